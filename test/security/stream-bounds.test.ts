// The API's streams are bounded like the console's: a SubscribeCards reader that stops reading is
// cut off once what waits for it passes the per-reader bound, and when it reads again it finds the
// events up to the cut and then a status with code slow_reader; a tenant holds at most its bound of
// card subscriptions at once (quota_exceeded past it). A real control plane with a token file,
// through the real API; permission cards with 64 KiB arguments raised and cancelled.
import { credentials, Metadata, type ServiceError } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ControlPlaneClient } from "@enclave/client/control-plane-client.js";
import { ControlPlane } from "@enclave/control-plane/control-plane.js";
import { ERROR_CODE_TRAILER } from "@enclave/control-plane/errors.js";
import { LIMITS } from "@enclave/control-plane/limits.js";
import { type AuditEvent, type CardEvent, ControlPlaneClient as GrpcClient } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { outcome } from "../helpers/call-outcome.js";
import { startTenantService, type TenantService } from "../helpers/tenant-service.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Cards raised while the slow subscriber does not read: 12 MiB of arguments, three times the per-reader bound. */
const CARDS = 200;

let svc: TenantService<"acme" | "globex">;
let cp: ControlPlane;
let token: string;
let globexToken: string;
let acme: ControlPlaneClient;
let raw: GrpcClient;

function auth(): Metadata {
  const md = new Metadata();
  md.set("authorization", `Bearer ${token}`);
  return md;
}

beforeAll(async () => {
  svc = await startTenantService({ tenants: ["acme", "globex"], transport: "unix", prefix: "enclave-stream-bounds-" });
  cp = svc.cp;
  token = svc.tokens.acme;
  globexToken = svc.tokens.globex;
  acme = svc.client("acme");
  raw = new GrpcClient(svc.server.address, credentials.createInsecure(), { "grpc.max_receive_message_length": LIMITS.grpcMaxMessageBytes });
}, 60_000);

afterAll(async () => {
  raw?.close();
  await svc?.close();
});

describe("API streams", () => {
  it("a card subscriber that stops reading is cut off with slow_reader, after far fewer events than were raised", async () => {
    const conv = (await acme.createConversation()).id;
    const run = (await acme.openRun(conv, { approvalPolicy: "write" })).id;
    // Someone who reads stays attached, so cards keep being raised after the slow one is cut.
    const watcher = acme.subscribeCards(conv, () => undefined);
    await watcher.ready;
    const stream = raw.subscribeCards({ conversationId: conv }, auth());
    const received: CardEvent[] = [];
    let status: { code: string } | undefined;
    const ended = new Promise<void>((resolve) => {
      stream.on("error", (err: ServiceError) => {
        status = { code: String(err.metadata?.get(ERROR_CODE_TRAILER)[0] ?? "") };
        resolve();
      });
      stream.on("end", () => resolve());
    });
    await new Promise<void>((resolve) => {
      stream.on("data", (e: CardEvent) => {
        received.push(e);
        if (e.event?.$case === "subscribed") {
          stream.pause();
          resolve();
        }
      });
    });
    const content = "x".repeat(64 * 1024);
    let raised = 0;
    while (raised < CARDS) {
      const abort = new AbortController();
      const call = acme.callTool(run, "write", { path: `f${raised}.txt`, content }, undefined, { signal: abort.signal }).catch(() => undefined);
      for (let tries = 0; (await acme.listCards(conv, false)).length === 0; tries++) {
        if (tries > 500) throw new Error("the card was never raised");
        await new Promise((r) => setTimeout(r, 5));
      }
      abort.abort();
      await call;
      for (let tries = 0; (await acme.listCards(conv, false)).length > 0; tries++) {
        if (tries > 500) throw new Error("the card was never closed");
        await new Promise((r) => setTimeout(r, 5));
      }
      raised++;
    }
    stream.resume();
    const settled = await Promise.race([ended.then(() => true), new Promise<false>((r) => setTimeout(() => r(false), 10_000).unref())]);
    process.stdout.write(`slow card subscriber: ${raised} cards raised, ${received.length} events delivered before the cut\n`);
    expect(settled).toBe(true);
    expect(status).toEqual({ code: "slow_reader" });
    // Each card is an opened and a closed event: far fewer reached the reader than were raised.
    expect(received.length).toBeLessThan(CARDS);
    watcher.cancel();
    // The cut-off is in the tenant's audit trail: which stream, and why.
    const history: AuditEvent[] = [];
    await acme.subscribeAudit({ includeHistory: true, historyOnly: true }, (e) => history.push(e)).done;
    expect(history.filter((e) => e.kind === "stream_cut").map((e) => ({ tenant: e.tenant, tool: e.tool, outcome: e.outcome }))).toEqual([
      { tenant: "acme", tool: "subscribe_cards", outcome: "cut:slow_reader" },
    ]);
  }, 180_000);

  it("a tenant holds at most its bound of card subscriptions; the next is refused quota_exceeded", async () => {
    const max = LIMITS.tenantStreams.subscribe_cards;
    const held = Array.from({ length: max }, () => acme.subscribeCards("", () => undefined));
    await Promise.all(held.map((s) => s.ready));
    const refused = acme.subscribeCards("", () => undefined);
    expect(await outcome(refused.done)).toMatchObject({ code: "quota_exceeded" });
    held[0]?.cancel();
    await held[0]?.done;
    for (let tries = 0; cp.streams.held("subscribe_cards", "acme") >= max; tries++) {
      if (tries > 200) throw new Error("the cancelled subscription was never given back");
      await new Promise((r) => setTimeout(r, 10));
    }
    const again = acme.subscribeCards("", () => undefined);
    await again.ready;
    for (const s of [...held, again]) s.cancel();
    // The refusal is in the tenant's audit trail.
    const refusals: AuditEvent[] = [];
    await acme.subscribeAudit({ includeHistory: true, historyOnly: true }, (e) => refusals.push(e)).done;
    expect(refusals.some((e) => e.kind === "quota_exceeded" && e.tenant === "acme" && e.outcome === "refused:quota_exceeded")).toBe(true);
  }, 60_000);

  it("an audit history replay waits for its reader: a reader that stops holds the control plane to its per-reader bound, and gets every event once it reads", async () => {
    // 40 MiB of the tenant's history (held by a reader that stops, before the bound), ten times the per-reader bound (seeded as the log records it).
    const EVENTS = LIMITS.auditHistoryEvents;
    for (let i = 0; i < EVENTS; i++) cp.recordAudit({ kind: "tool_call", tenant: "globex", tool: "read", outcome: "ok", detail: `${i} ${"x".repeat(4096)}` });
    const md = new Metadata();
    md.set("authorization", `Bearer ${globexToken}`);
    const buffers = (): number => {
      gc();
      gc();
      const m = process.memoryUsage();
      return m.heapUsed + m.arrayBuffers;
    };
    const before = buffers();
    const stream = raw.subscribeAudit({ conversationId: "", includeHistory: true, historyOnly: true }, md);
    let received = 0;
    const ended = new Promise<string>((resolve) => {
      stream.on("error", (err: ServiceError) => resolve(String(err.metadata?.get(ERROR_CODE_TRAILER)[0] ?? "")));
      stream.on("end", () => resolve("end"));
    });
    const first = await Promise.race([
      new Promise<string>((resolve) => {
        stream.once("data", () => {
          received++;
          stream.pause();
          resolve("data");
        });
      }),
      ended,
      new Promise<string>((r) => setTimeout(() => r("nothing"), 30_000).unref()),
    ]);
    expect(first).toBe("data");
    // Give the server every chance to queue more than the bound (it would have queued all at once).
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    await new Promise((r) => setTimeout(r, 500));
    const held = (buffers() - before) / 1024 ** 2;
    process.stdout.write(`paused audit history reader: ${held.toFixed(1)} MiB of heap and buffers held for it\n`);
    expect(held).toBeLessThan((LIMITS.streamBufferedBytes.subscribe_audit * 3) / 1024 ** 2);
    stream.on("data", () => received++);
    stream.resume();
    const how = await Promise.race([ended, new Promise<string>((r) => setTimeout(() => r("still open"), 30_000).unref())]);
    expect(how).toBe("end");
    expect(received).toBe(EVENTS);
  }, 120_000);
});
