// A leaked token, revoked, loses every stream it opened before, not only its next call: worker and
// tool hosts, audit and card subscriptions, a CallTools session with a call in flight, and console
// event streams all end within a second of `revokeTokens` (as `enclave tokens revoke` does), each
// with code unauthenticated; the same tenant's other token keeps its stream. A real control plane
// over TLS with a token file, and its console, as `enclave serve` runs them.
import { request as httpRequest, type IncomingMessage } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ControlPlaneClient } from "@enclave/client/control-plane-client.js";
import { ControlPlane } from "@enclave/control-plane/control-plane.js";
import { serveConsole, type ServingConsole } from "@enclave/control-plane/console/console-server.js";
import { TokenFileAuth } from "@enclave/control-plane/tenants/caller-auth.js";
import { addToken, revokeTokens } from "@enclave/control-plane/tenants/token-file.js";
import type { AuditEvent } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { outcome } from "../helpers/call-outcome.js";
import { startTenantService, type TenantService } from "../helpers/tenant-service.js";
import { until } from "../helpers/wait.js";

let svc: TenantService<"acme">;
let cp: ControlPlane;
let web: ServingConsole;
let operators: TokenFileAuth;
let tokensFile: string;

function client(token: string): ControlPlaneClient {
  return svc.connect(token);
}

/** A console event stream read as it comes: its text so far, and whether (and when) it ended. */
function consoleEvents(token: string): Promise<{ text(): string; ended: Promise<number>; res: IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port: web.port, path: "/events?audit=*", headers: { authorization: `Bearer ${token}` } }, (res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      const ended = new Promise<number>((done) => res.on("close", () => done(Date.now())));
      if (res.statusCode !== 200) reject(new Error(`/events answered ${res.statusCode}`));
      else resolve({ text: () => text, ended, res });
    });
    req.on("error", reject);
    req.end();
  });
}

/** The code of a console stream's last `end` event, or "none" when it ended without one. */
function endCode(text: string): string {
  const data = /event: end\ndata: (\{.*\})/.exec(text)?.[1];
  return data === undefined ? "none" : (JSON.parse(data) as { code: string }).code;
}

/** When a stream's `done` settled, and how (the error code it carried, or "ok"). */
function settled(done: Promise<void>): Promise<{ at: number; code: string }> {
  return outcome(done).then((o) => ({ at: Date.now(), code: o.code }));
}

beforeAll(async () => {
  svc = await startTenantService({ tenants: ["acme"], prefix: "enclave-revoke-" });
  ({ cp, tokensFile } = svc);
  operators = new TokenFileAuth(tokensFile);
  web = await serveConsole(cp, { host: "127.0.0.1", port: 0, token: "", tokenGenerated: false, operators });
}, 60_000);

afterAll(async () => {
  await web?.close();
  operators?.close();
  await svc?.close();
});

describe("revoking a token", () => {
  it("ends every stream and session it opened, API and console, within a second; the tenant's other token keeps its own", async () => {
    const leaked = addToken(tokensFile, "acme", { label: "leaked" });
    const kept = addToken(tokensFile, "acme", { label: "kept" });
    const thief = client(leaked.token);
    const owner = client(kept.token);
    await until(() => operators.tokenTenant(leaked.id) !== undefined, "the console to know the new token", 5_000);

    const conv = (await thief.createConversation()).id;
    const run = (await thief.openRun(conv, { approvalPolicy: "never", resources: ["questions", "kernel"] })).id;

    const worker = thief.connectWorkerHost({ name: "forger", conversationIds: [conv], tiers: ["fast"] }, () => undefined);
    await worker.ready;
    const toolHost = thief.connectToolHost(run, [], { call: () => "forged", intercept: () => "allow" as const }, { intercept: true });
    await toolHost.ready;
    const audit: AuditEvent[] = [];
    const auditStream = thief.subscribeAudit({}, (e) => audit.push(e));
    const cards = thief.subscribeCards("", () => undefined);
    await cards.ready;
    // A CallTools session held open by a call in flight (a question no one answers).
    const asking = outcome(thief.callTool(run, "ask_user", { question: "still there?" }));
    await until(() => cp.cards(undefined, false).length > 0, "the question's card", 10_000);
    const pages = [await consoleEvents(leaked.token), await consoleEvents(leaked.token)];
    await until(() => pages.every((p) => p.text().includes("event: cards")), "the console streams to start", 5_000);
    const ownerAudit: AuditEvent[] = [];
    const ownerStream = owner.subscribeAudit({}, (e) => ownerAudit.push(e));

    const ends = {
      worker: settled(worker.done),
      toolHost: settled(toolHost.done),
      audit: settled(auditStream.done),
      cards: settled(cards.done),
      session: asking.then((o) => ({ at: Date.now(), code: o.code })),
      page1: pages[0]!.ended.then((at) => ({ at, code: endCode(pages[0]!.text()) })),
      page2: pages[1]!.ended.then((at) => ({ at, code: endCode(pages[1]!.text()) })),
    };
    expect(revokeTokens(tokensFile, { id: leaked.id })).toBe(1);
    const revokedAt = Date.now();
    const deadline = new Promise<"still open">((resolve) => setTimeout(() => resolve("still open"), 1_000).unref());
    const results: Record<string, unknown> = {};
    for (const [kind, ended] of Object.entries(ends)) {
      const r = await Promise.race([ended, deadline]);
      results[kind] = r === "still open" ? r : r.code;
      if (r !== "still open") expect(r.at - revokedAt).toBeLessThan(1_000);
    }
    expect(results).toEqual({
      worker: "unauthenticated",
      toolHost: "unauthenticated",
      audit: "unauthenticated",
      cards: "unauthenticated",
      session: "unauthenticated",
      page1: "unauthenticated",
      page2: "unauthenticated",
    });
    // Nothing more reaches the revoked token's subscriber; the tenant's other token still hears events.
    const seenBefore = audit.length;
    await owner.createConversation();
    await until(() => ownerAudit.some((e) => e.kind === "conversation_created"), "the kept token's stream to hear a new event", 5_000);
    expect(audit.length).toBe(seenBefore);
    // The ends are audited for the tenant (one record, the rest counted into the next: rate-limited like refusals).
    const history: AuditEvent[] = [];
    await owner.subscribeAudit({ includeHistory: true, historyOnly: true }, (e) => history.push(e)).done;
    expect(history.some((e) => e.kind === "stream_cut" && e.tenant === "acme" && e.outcome === "cut:unauthenticated")).toBe(true);
    ownerStream.cancel();
    // The revoked token's worker host is no longer on the roster, and its stream slots were given back.
    expect(cp.streams.held("worker_host", "acme")).toBe(0);
    expect(cp.streams.held("console_events", "acme")).toBe(0);
  }, 60_000);
});
