// Each tenant has its own namespace of conversation ids, through the real API over TLS with host
// placement: two tenants' "x" live side by side (own workspace, own files, own runs), another
// tenant's id answers exactly as a missing one, an id that tries to leave the namespace is refused;
// worker hosts serve and are listed to their own tenant only; the kernels quota holds against evals
// made at the same moment.
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { status } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ControlPlaneClient } from "@enclave/client/control-plane-client.js";
import type { ControlPlane } from "@enclave/control-plane/control-plane.js";
import { conversationKey } from "@enclave/control-plane/conversations/conversation-keys.js";
import { serveConsole } from "@enclave/control-plane/console/console-server.js";
import { TokenFileAuth } from "@enclave/control-plane/tenants/caller-auth.js";
import { addToken, setQuota } from "@enclave/control-plane/tenants/token-file.js";
import type { Card, ToolResult, WorkerHostCommand } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { outcome } from "../helpers/call-outcome.js";
import { startTenantService, type TenantService } from "../helpers/tenant-service.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";
import { eventually } from "../helpers/wait.js";

let svc: TenantService<"acme" | "globex" | "ops" | "initech">;
let dir: string;
let tokensFile: string;
let cp: ControlPlane;
let tokens: Record<"acme" | "globex" | "ops" | "initech", string>;

function client(token: string): ControlPlaneClient {
  return svc.connect(token);
}

function text(r: ToolResult): string {
  return r.parts.map((p) => (p.part?.$case === "text" ? p.part.value : "")).join("");
}

beforeAll(async () => {
  svc = await startTenantService({
    tenants: ["acme", "globex", "initech"],
    operators: ["ops"],
    quotas: { initech: { kernels: 1 } },
    prefix: "enclave-tenant-ids-",
  });
  ({ dir, tokensFile, cp, tokens } = svc);
}, 120_000);

afterAll(async () => {
  await svc?.close();
});

describe("conversation ids per tenant", () => {
  it("two tenants make the same id and each works in its own, alone; deleting one leaves the other", async () => {
    const acme = client(tokens.acme);
    const globex = client(tokens.globex);
    const a = await acme.createConversation("x");
    const g = await globex.createConversation("x");
    expect([a.id, g.id]).toEqual(["x", "x"]);
    expect([a.tenant, g.tenant]).toEqual(["acme", "globex"]);
    // Each in a folder of its own, which a token tenant is not told.
    expect([a.workspacePath, g.workspacePath]).toEqual(["", ""]);
    expect(cp.getConversation(conversationKey("acme", "x")).workspacePath).not.toBe(cp.getConversation(conversationKey("globex", "x")).workspacePath);
    const aRun = (await acme.openRun("x", { approvalPolicy: "never" })).id;
    const gRun = (await globex.openRun("x", { approvalPolicy: "never" })).id;
    expect((await acme.listRuns("x")).map((r) => [r.id, r.conversationId])).toEqual([[aRun, "x"]]);
    expect((await globex.listRuns("x")).map((r) => [r.id, r.conversationId])).toEqual([[gRun, "x"]]);
    expect((await acme.callTool(aRun, "write", { path: "acme.txt", content: "acme's\n" })).isError).toBe(false);
    expect((await globex.callTool(gRun, "write", { path: "globex.txt", content: "globex's\n" })).isError).toBe(false);
    const aLs = await acme.callTool(aRun, "exec", { command: "ls" });
    const gLs = await globex.callTool(gRun, "exec", { command: "ls" });
    expect(text(aLs)).toContain("acme.txt");
    expect(text(aLs)).not.toContain("globex.txt");
    expect(text(gLs)).toContain("globex.txt");
    expect(text(gLs)).not.toContain("acme.txt");
    // The audit log and the lists name each tenant's own "x", bare.
    expect((await acme.listConversations()).map((c) => c.id)).toEqual(["x"]);
    const events: string[] = [];
    await acme.subscribeAudit({ conversationId: "x", includeHistory: true, historyOnly: true }, (e) => events.push(`${e.tenant}/${e.conversationId}`)).done;
    expect(events.length).toBeGreaterThan(0);
    expect(new Set(events)).toEqual(new Set(["acme/x"]));
    // An operator sees both, another tenant's qualified by its name.
    const ops = client(tokens.ops);
    const all = (await ops.listConversations()).map((c) => `${c.tenant}:${c.id}`);
    expect(all).toEqual(expect.arrayContaining(["acme:acme.x", "globex:globex.x"]));
    expect((await ops.getConversation("acme.x")).workspacePath).toBe(cp.getConversation(conversationKey("acme", "x")).workspacePath);

    await acme.deleteConversation("x");
    expect(await outcome(acme.getConversation("x"))).toMatchObject({ code: "not_found" });
    const gRead = await globex.callTool(gRun, "read", { path: "globex.txt" });
    expect(gRead.isError).toBe(false);
    expect(text(gRead)).toContain("globex's");
    expect((await globex.getConversation("x")).id).toBe("x");
    // And acme may make its "x" again, empty.
    await acme.createConversation("x");
    const again = (await acme.openRun("x", { approvalPolicy: "never" })).id;
    expect(text(await acme.callTool(again, "exec", { command: "ls -A | wc -l" })).trim()).toMatch(/^0\b/);
  }, 120_000);

  it("another tenant's id answers get, delete and openRun exactly as a missing one", async () => {
    const acme = client(tokens.acme);
    const globex = client(tokens.globex);
    await acme.createConversation("acme-only");
    for (const [name, call] of [
      ["get", (id: string) => globex.getConversation(id)],
      ["delete", (id: string) => globex.deleteConversation(id)],
      ["openRun", (id: string) => globex.openRun(id, { approvalPolicy: "never" })],
      ["describePlacement", (id: string) => globex.describePlacement(id)],
    ] as const) {
      const foreign = await outcome(call("acme-only"), "acme-only");
      const missing = await outcome(call("never-made"), "never-made");
      expect({ name, ...foreign }).toEqual({ name, ...missing });
      expect({ name, code: foreign.code }).toEqual({ name, code: "not_found" });
    }
    expect((await acme.getConversation("acme-only")).id).toBe("acme-only");
  });

  it("an id that tries to leave the caller's namespace is refused with invalid_arguments, whether or not it exists", async () => {
    const acme = client(tokens.acme);
    const globex = client(tokens.globex);
    await acme.createConversation("target");
    for (const id of ["acme.target", "../target", "acme/target", "x/../target", "..", ".", "acme", "target\u0000"]) {
      for (const call of [
        () => globex.createConversation(id),
        () => globex.getConversation(id),
        () => globex.deleteConversation(id),
        () => globex.openRun(id, { approvalPolicy: "never" }),
      ]) {
        const o = await outcome(call());
        if (id === "acme") {
          // A bare id that is a tenant's name is just an id in the caller's own namespace.
          expect(["ok", "not_found", "already_exists"]).toContain(o.code);
        } else {
          expect({ id, code: o.code }).toEqual({ id, code: "invalid_arguments" });
        }
      }
    }
    expect((await acme.getConversation("target")).id).toBe("target");
    expect((await globex.listConversations()).map((c) => c.id)).not.toContain("target");
  });

  it("a state database from before re-keys another tenant's conversations and runs, and leaves the implicit tenant's", async () => {
    const { StateDb } = await import("@enclave/control-plane/state/state-db.js");
    const { MIGRATIONS } = await import("@enclave/control-plane/state/migrations.js");
    const data = mkdtempSync(join(dir, "old-state-"));
    const old = new StateDb(
      data,
      MIGRATIONS.filter((m) => m.version <= 2),
    );
    const put = old.db.prepare("INSERT INTO conversations (id, tenant, created_at_ms, record_json) VALUES (?, ?, 1, ?)");
    put.run("x", "local", JSON.stringify({ id: "x", tenant: "local", workspacePath: "/w/x" }));
    put.run("y", "acme", JSON.stringify({ id: "y", tenant: "acme", workspacePath: "/w/y" }));
    old.db
      .prepare("INSERT INTO runs (id, tenant, conversation_id, opened_at_ms, record_json) VALUES (?, ?, ?, 1, ?)")
      .run("r-1", "acme", "y", JSON.stringify({ id: "r-1", tenant: "acme", conversationId: "y", targetSpace: "y" }));
    old.close();
    const now = new StateDb(data);
    try {
      const rows = now.db.prepare("SELECT id, record_json FROM conversations ORDER BY id").all() as Array<{ id: string; record_json: string }>;
      expect(rows.map((r) => [r.id, (JSON.parse(r.record_json) as { id: string }).id])).toEqual([
        ["acme.y", "acme.y"],
        ["x", "x"],
      ]);
      const run = now.db.prepare("SELECT conversation_id, record_json FROM runs").get() as { conversation_id: string; record_json: string };
      expect(run.conversation_id).toBe("acme.y");
      expect(JSON.parse(run.record_json)).toMatchObject({ conversationId: "acme.y", targetSpace: "acme.y" });
    } finally {
      now.close();
    }
  });
});

describe("worker hosts per tenant", () => {
  it("a tenant's worker host is listed to and serves its own tenant's conversations only, with bare ids", async () => {
    const acme = client(tokens.acme);
    const globex = client(tokens.globex);
    // Ids of their own (not the same one), so this holds apart from the namespaces above.
    await acme.createConversation("vibe-a");
    await globex.createConversation("vibe-g");
    const commands: WorkerHostCommand[] = [];
    const host = acme.connectWorkerHost({ name: "acme-secret-host" }, (c) => commands.push(c));
    await host.ready;
    try {
      const open = { approvalPolicy: "never" as const, resources: ["workspace", "vibe"], vibeMode: true };
      const aRun = (await acme.openRun("vibe-a", open)).id;
      const gRun = (await globex.openRun("vibe-g", open)).id;
      expect(text(await acme.callTool(aRun, "vibe_list", {}))).toContain("acme-secret-host");
      const gList = text(await globex.callTool(gRun, "vibe_list", {}));
      expect(gList).not.toContain("acme-secret-host");
      // What globex is shown instead: its own (empty) list, recorded whole.
      await expectTranscript(gList, "transcripts/tenant-namespaces/vibe-list-other-tenant.txt");
      const gSpawn = await globex.callTool(gRun, "vibe_spawn", { brief: "anything", label: "probe" });
      expect(gSpawn.isError).toBe(true);
      expect(text(gSpawn)).not.toContain("acme-secret-host");
      const aSpawn = await acme.callTool(aRun, "vibe_spawn", { brief: "refactor", label: "mine" });
      expect(text(aSpawn)).toContain("acme-secret-host");
      const assigns = commands.flatMap((c) => (c.command?.$case === "assign" ? [c.command.value] : []));
      expect(assigns.map((a) => a.conversationId)).toEqual(["vibe-a"]);
      // A token tenant's worker host is told no host path: nothing it receives names the data folder.
      expect(assigns.map((a) => a.workspacePath)).toEqual([""]);
      expect(JSON.stringify(commands)).not.toContain(dir);
      // Nor does the placement's description, nor its own audit trail.
      const described = JSON.stringify(await acme.describePlacement("vibe-a"));
      expect(described).not.toContain(dir);
      const history: unknown[] = [];
      await acme.subscribeAudit({ includeHistory: true, historyOnly: true }, (e) => history.push(e)).done;
      expect(history.length).toBeGreaterThan(0);
      expect(JSON.stringify(history)).not.toContain(dir);
    } finally {
      host.close();
    }
  });
});

describe("the kernels quota at the same moment", () => {
  it("two evals that would each start a kernel, at once, in two conversations: one runs, the other is refused naming the quota", async () => {
    const c = client(tokens.initech);
    await c.createConversation("k1");
    await c.createConversation("k2");
    const r1 = (await c.openRun("k1", { approvalPolicy: "never" })).id;
    const r2 = (await c.openRun("k2", { approvalPolicy: "never" })).id;
    const both = await Promise.all([
      outcome(c.callTool(r1, "eval", { code: "1 + 1", description: "start a kernel in the first conversation" })),
      outcome(c.callTool(r2, "eval", { code: "2 + 2", description: "start a kernel in the second conversation" })),
    ]);
    expect(both.map((o) => o.code).sort()).toEqual(["ok", "quota_exceeded"]);
    const refused = both.find((o) => o.code === "quota_exceeded");
    expect(refused?.grpcCode).toBe(status.RESOURCE_EXHAUSTED);
    // quota_exceeded covers every quota: the recorded answer names this one and its limit.
    await expectTranscript(refused?.message ?? "", "transcripts/tenant-namespaces/kernels-quota.txt");
    const alive = (await Promise.all(["k1", "k2"].map((id) => cp.liveKernels(`initech.${id}`)))).flat();
    expect(alive).toHaveLength(1);
    // Two cells at once to the same new kernel take one slot between them, not two.
    await c.deleteConversation(both[0]?.code === "ok" ? "k1" : "k2");
    await c.createConversation("k3");
    const r3 = (await c.openRun("k3", { approvalPolicy: "never" })).id;
    const same = await Promise.all([
      outcome(c.callTool(r3, "eval", { code: "a = 1", description: "start the kernel" })),
      outcome(c.callTool(r3, "eval", { code: "b = 2", description: "a second cell to the same kernel" })),
    ]);
    // The deleted conversation's kernel went with it, so the slot is free; the two cells share it.
    expect(same.map((o) => o.code)).toEqual(["ok", "ok"]);
    expect(await cp.liveKernels("initech.k3")).toHaveLength(1);
  }, 180_000);
});

/** The data of the first `name` event of a console event stream. */
async function firstEvent(url: string, token: string, name: string): Promise<unknown> {
  const stop = new AbortController();
  const r = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal: stop.signal });
  const reader = (r.body as ReadableStream<Uint8Array>).getReader();
  let text = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the event stream ended before a \`${name}\` event: ${text}`);
      text += new TextDecoder().decode(value);
      const m = new RegExp(`event: ${name}\\ndata: (.*)\\n`).exec(text);
      if (m?.[1]) return JSON.parse(m[1]) as unknown;
    }
  } finally {
    stop.abort();
  }
}

describe("the console per tenant", () => {
  it("a tenant's token sees and acts on its own conversations, cards, audit and calls only; an operator's sees all", async () => {
    const acme = client(tokens.acme);
    const globex = client(tokens.globex);
    await acme.createConversation("console-a");
    await globex.createConversation("console-g");
    const gRun = (await globex.openRun("console-g", { approvalPolicy: "write", questionTimeoutSeconds: 120 })).id;
    const opened: Card[] = [];
    const human = globex.subscribeCards("console-g", (e) => {
      if (e.event?.$case === "opened") opened.push(e.event.value);
    });
    await human.ready;
    const operators = new TokenFileAuth(tokensFile);
    const web = await serveConsole(cp, { host: "127.0.0.1", port: 0, token: "", tokenGenerated: false, operators });
    const base = `http://127.0.0.1:${web.port}`;
    const as = (token: string, accept = "text/html") => ({ headers: { authorization: `Bearer ${token}`, accept } });
    const get = async (path: string, token: string, accept?: string) => {
      const r = await fetch(`${base}${path}`, as(token, accept));
      return { status: r.status, body: await r.text() };
    };
    const pending = globex.callTool(gRun, "write", { path: "globex-secret.txt", content: "x\n" });
    let cardNumber = 0;
    try {
      const card = await eventually(async () => opened.find((c) => c.tool === "write"), "globex's permission card");
      cardNumber = card.number;
      // acme's console: its own conversation; nothing of globex's, anywhere.
      for (const path of ["/", "/cards", "/fragments/overview"]) {
        const page = await get(path, tokens.acme);
        expect({ path, status: page.status }).toEqual({ path, status: 200 });
        expect(page.body).not.toContain("console-g");
        expect(page.body).not.toContain("globex");
      }
      expect((await get("/", tokens.acme)).body).toContain("console-a");
      const audit = await get("/conversations/acme.console-a/audit.jsonl", tokens.acme);
      expect(audit.status).toBe(200);
      expect(audit.body).toContain("conversation_created");
      expect(audit.body).not.toContain("globex");
      expect((await get("/conversations/globex.console-g/audit.jsonl", tokens.acme)).status).toBe(404);
      expect((await get("/conversations/globex.console-g/audit", tokens.acme)).status).toBe(404);
      // Its event stream starts with its own open cards: none.
      expect(await firstEvent(`${base}/events?audit=*`, tokens.acme, "cards")).toEqual({ cards: [] });
      expect(((await firstEvent(`${base}/events?audit=*`, tokens.ops, "cards")) as { cards: unknown[] }).cards).toHaveLength(1);
      // Another tenant's conversation and card answer exactly as missing ones.
      const foreign = await get("/conversations/globex.console-g", tokens.acme, "application/json");
      const missing = await get("/conversations/acme.never-made", tokens.acme, "application/json");
      expect(foreign.status).toBe(404);
      expect(foreign.body.split("console-g").join("<ID>")).toBe(missing.body.split("never-made").join("<ID>"));
      const answer = (token: string, space: string) =>
        fetch(`${base}/cards/${encodeURIComponent(space)}/${card.number}/answer`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, accept: "application/json", "content-type": "application/x-www-form-urlencoded" },
          body: "choice=deny",
        });
      // The console names a conversation by its key (its tenant's name, '.', its id), as an operator does.
      expect(card.conversationId).toBe("console-g");
      const space = "globex.console-g";
      expect((await answer(tokens.acme, space)).status).toBe(404);
      expect((await get(`/cards/${space}/${card.number}/arguments.json`, tokens.acme)).status).toBe(404);
      expect((await get(`/cards/${space}/${card.number}/arguments.json`, tokens.globex)).status).toBe(200);
      // globex's console: its own card, which it may answer.
      const gCards = await get("/cards", tokens.globex);
      expect(gCards.body).toContain("globex-secret.txt");
      expect(gCards.body).not.toContain("console-a");
      // The operator's console: both tenants'.
      const ops = await get("/", tokens.ops);
      expect(ops.body).toContain("console-a");
      expect(ops.body).toContain("console-g");
      expect((await get("/cards", tokens.ops)).body).toContain("globex-secret.txt");
      expect((await answer(tokens.globex, space)).status).toBe(200);
      expect((await pending).isError).toBe(true);
      // A login by ?token= keeps a tenant's session with its view, until the token is revoked.
      const login = await fetch(`${base}/?token=${tokens.acme}`, { redirect: "manual" });
      expect(login.status).toBe(303);
      const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
      const viaCookie = await fetch(`${base}/`, { headers: { cookie } });
      expect(viaCookie.status).toBe(200);
      const text = await viaCookie.text();
      expect(text).toContain("console-a");
      expect(text).not.toContain("console-g");
    } finally {
      if (cardNumber) await globex.answerCard("console-g", cardNumber, { selected: [], freeText: "", skip: true }).catch(() => undefined);
      human.cancel();
      await pending.catch(() => undefined);
      await web.close();
      operators.close();
    }
  }, 60_000);
});

describe("the runningEnclosures quota across surfaces", () => {
  it("holds when the API and the console start an enclosure at the same moment: one account for both", async () => {
    const token = addToken(tokensFile, "umbrella").token;
    setQuota(tokensFile, "umbrella", "runningEnclosures", 1);
    const c = client(token);
    await eventually(async () => (await outcome(c.listConversations())).code === "ok", "the new tenant's token to be accepted", 5_000);
    await c.createConversation("u1");
    await c.createConversation("u2");
    const operators = new TokenFileAuth(tokensFile);
    const web = await serveConsole(cp, { host: "127.0.0.1", port: 0, token: "", tokenGenerated: false, operators });
    try {
      const viaConsole = fetch(`http://127.0.0.1:${web.port}/conversations/umbrella.u2/enclosure/start`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, accept: "application/json", "content-type": "application/x-www-form-urlencoded" },
        body: "",
      }).then(async (r) => ({ ok: r.ok, status: r.status, body: await r.text() }));
      const [api, page] = await Promise.all([outcome(c.startEnclosure("u1")), viaConsole]);
      expect([api.code === "ok", page.ok].filter(Boolean), `api: ${api.message}; console: ${page.body}`).toHaveLength(1);
      // The refused one was refused for the quota (the console's 429 is quota_exceeded), and says which.
      if (api.code === "ok") expect(page.status, page.body).toBe(429);
      else expect(api.code, api.message).toBe("quota_exceeded");
      const refusal = api.code === "ok" ? String(JSON.parse(page.body).error) : api.message;
      await expectTranscript(refusal, "transcripts/tenant-namespaces/running-enclosures-quota.txt");
    } finally {
      for (const id of ["u1", "u2"]) if ((await c.getConversation(id)).enclosure) await c.stopEnclosure(id);
      await web.close();
      operators.close();
    }
  }, 180_000);
});

describe("host paths", () => {
  it("a token tenant whose workspace folder went missing is told so without the host path, in the answer and in its audit trail", async () => {
    const acme = client(tokens.acme);
    await acme.createConversation("folder-gone");
    const conv = cp.listConversations().find((c) => c.tenant === "acme" && c.id.endsWith("folder-gone"));
    expect(conv?.workspacePath.startsWith(dir)).toBe(true);
    rmSync(conv?.workspacePath ?? "", { recursive: true, force: true });
    const run = await acme.openRun("folder-gone", { approvalPolicy: "never" }).catch((err: unknown) => ({ id: "", err }));
    const answers: unknown[] = [run];
    if (run.id) answers.push(await acme.callTool(run.id, "read", { path: "a.txt" }).catch((err: unknown) => err));
    answers.push(await acme.describePlacement("folder-gone").catch((err: unknown) => err));
    const history: unknown[] = [];
    await acme.subscribeAudit({ includeHistory: true, historyOnly: true }, (e) => history.push(e)).done;
    // Each surface answered something (the read failed, not_found); none of it names the folder.
    expect(answers.length).toBe(3);
    expect(JSON.stringify(answers)).toContain("not_found");
    const seen = JSON.stringify([answers.map((a) => (a instanceof Error ? { ...a, message: a.message } : a)), history]);
    expect(seen).not.toContain(dir);
  });
});
