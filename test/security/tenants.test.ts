// Authenticated tenants through the real API over TLS: a throwaway CA and server certificate, a
// token file with two tenants and an operator, and a real control plane with host placement.
// Every RPC of the service definition is tried by one tenant on the other's conversation and run
// and must answer exactly as for ids that do not exist; the probe table is checked against the
// generated service, so a new RPC without a probe here (and so, likely, without scoping) fails.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { promisify } from "node:util";
import { join } from "node:path";
import { status } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ControlPlaneClient, type ClientOptions } from "@enclave/client/control-plane-client.js";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";
import { ControlPlane } from "@enclave/control-plane/control-plane.js";
import { serveConsole } from "@enclave/control-plane/console/console-server.js";
import { serveControlPlane, type ServingControlPlane } from "@enclave/control-plane/server/serve.js";
import { TokenFileAuth } from "@enclave/control-plane/tenants/caller-auth.js";
import { addToken, readTokenFile, revokeTokens, setQuota } from "@enclave/control-plane/tenants/token-file.js";
import { type AuditEvent, ControlPlaneService } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { type Outcome, outcome } from "../helpers/call-outcome.js";
import { startTenantService, type TenantService } from "../helpers/tenant-service.js";
import type { TestCerts } from "../helpers/tls-certs.js";
import { type Mask, expectTranscript } from "@enclave/test-kit/transcript.js";
import { eventually } from "../helpers/wait.js";

const exec = promisify(execFile);
/** Conversation and run ids a tenant's client was given (random when it names none). */
const IDS: Mask[] = [[/\b[0-9a-f]{8,}\b/g, "<id>"]];
let svc: TenantService<"acme" | "globex" | "ops">;
let dir: string;
let certs: TestCerts;
let tokensFile: string;
let cp: ControlPlane;
let server: ServingControlPlane;
let tokens: Record<"acme" | "globex" | "ops", string>;

function client(
  token: string | undefined,
  tls: ClientOptions["tls"] = { rootCerts: certs.ca },
  address = server.address,
  more: Partial<ClientOptions> = {},
): ControlPlaneClient {
  return svc.connect(token, { tls, ...more }, address);
}

/** A stream's refusal, or "ok" once it is attached (then it is closed). */
function streamOutcome(s: { ready: Promise<unknown>; done: Promise<void>; close?(): void; cancel?(): void }): Promise<void> {
  return Promise.race([
    s.done,
    s.ready.then(() => {
      s.close?.();
      s.cancel?.();
    }),
  ]);
}

function history(c: ControlPlaneClient): Promise<AuditEvent[]> {
  const events: AuditEvent[] = [];
  return c.subscribeAudit({ includeHistory: true, historyOnly: true }, (e) => events.push(e)).done.then(() => events);
}

interface Ids {
  conv: string;
  run: string;
}

/** byId: tried with the other tenant's ids and with missing ones, which must answer alike. check: asserts by itself. */
type Probe = { byId: (c: ControlPlaneClient, ids: Ids) => Promise<unknown> } | { check: (c: ControlPlaneClient, theirs: Ids) => Promise<void> };

const PROBES: Record<keyof typeof ControlPlaneService, Probe> = {
  createConversation: {
    // Each tenant has its own ids: naming one another tenant holds makes the caller's own, beside it.
    check: async (c, theirs) => {
      const mine = await c.createConversation(theirs.conv);
      expect(mine).toMatchObject({ id: theirs.conv, tenant: "globex" });
      await c.deleteConversation(theirs.conv);
      await expect(outcome(c.createConversation("", "/etc"))).resolves.toMatchObject({ code: "invalid_arguments" });
    },
  },
  getConversation: { byId: (c, ids) => c.getConversation(ids.conv) },
  listConversations: {
    check: async (c, theirs) => {
      expect((await c.listConversations()).map((x) => x.id)).not.toContain(theirs.conv);
    },
  },
  deleteConversation: { byId: (c, ids) => c.deleteConversation(ids.conv) },
  // Forking another tenant's conversation would copy its files into the caller's hands.
  forkConversation: { byId: (c, ids) => c.forkConversation(ids.conv, "stolen-fork") },
  startEnclosure: { byId: (c, ids) => c.startEnclosure(ids.conv) },
  stopEnclosure: { byId: (c, ids) => c.stopEnclosure(ids.conv) },
  setConversationLifecycle: { byId: (c, ids) => c.setConversationLifecycle(ids.conv, { idleTimeoutSeconds: 60 }) },
  // Operators' actions: another tenant's name is refused as any name is, before it is looked at.
  pauseTenant: {
    check: async (c) => {
      await expect(outcome(c.pauseTenant("acme"))).resolves.toMatchObject({ code: "permission_denied" });
      await expect(outcome(c.pauseTenant("globex"))).resolves.toMatchObject({ code: "permission_denied" });
    },
  },
  resumeTenant: {
    check: async (c) => {
      await expect(outcome(c.resumeTenant("acme"))).resolves.toMatchObject({ code: "permission_denied" });
    },
  },
  pauseEnclosure: { byId: (c, ids) => c.pauseEnclosure(ids.conv) },
  resumeEnclosure: { byId: (c, ids) => c.resumeEnclosure(ids.conv) },
  setConversationEgress: { byId: (c, ids) => c.setConversationEgress(ids.conv, []) },
  openRun: { byId: (c, ids) => c.openRun(ids.conv, { approvalPolicy: "never" }) },
  closeRun: { byId: (c, ids) => c.closeRun(ids.run) },
  listTools: { byId: (c, ids) => c.listTools(ids.run) },
  // The client library's calls go over CallTools; CallTool is tried with a client that has it make one stream a call.
  callTool: { byId: (_c, ids) => client(tokens.globex, undefined, undefined, { toolCallSession: false }).callTool(ids.run, "read", { path: "secret.txt" }) },
  callTools: { byId: (c, ids) => c.callTool(ids.run, "read", { path: "secret.txt" }) },
  syncWrites: { byId: (c, ids) => c.syncWrites(ids.run, ["secret.txt"]) },
  describePlacement: { byId: (c, ids) => c.describePlacement(ids.conv) },
  subscribeAudit: {
    check: async (c, theirs) => {
      const seen = await history(c);
      // Its own events only, its own conversation of the same id (made and deleted above) included.
      expect(seen.filter((e) => e.tenant !== "globex")).toEqual([]);
      const named: AuditEvent[] = [];
      await c.subscribeAudit({ conversationId: theirs.conv, includeHistory: true, historyOnly: true }, (e) => named.push(e)).done;
      expect(named.filter((e) => e.tenant !== "globex")).toEqual([]);
    },
  },
  auditEnclosure: { byId: (c, ids) => c.auditEnclosure(ids.conv) },
  subscribeCards: { byId: (c, ids) => streamOutcome(c.subscribeCards(ids.conv, () => undefined)) },
  answerCard: { byId: (c, ids) => c.answerCard(ids.conv, 1, { skip: true }) },
  listCards: {
    check: async (c, theirs) => {
      expect((await c.listCards("", true)).filter((k) => k.conversationId === theirs.conv)).toEqual([]);
      expect(await c.listCards(theirs.conv, true)).toEqual([]);
    },
  },
  getCardArguments: { byId: (c, ids) => c.getCardArguments(ids.conv, 1) },
  setVibeMode: { byId: (c, ids) => c.setVibeMode(ids.run, true) },
  connectWorkerHost: {
    // A host may name conversations not made yet, so naming another tenant's is accepted, and inert:
    // the host is never picked for it.
    check: async (c, theirs) => {
      const host = c.connectWorkerHost({ name: "probe-host", conversationIds: [theirs.conv] }, () => undefined);
      await host.ready;
      try {
        const roster = cp.vibe as unknown as { hosts: { name: string; serves(id: string, tier: string): boolean }[] };
        const registered = roster.hosts.find((h) => h.name === "probe-host");
        expect(registered?.serves(`acme.${theirs.conv}`, "fast")).toBe(false);
        const anyHost = c.connectWorkerHost({ name: "probe-any" }, () => undefined);
        await anyHost.ready;
        expect(roster.hosts.find((h) => h.name === "probe-any")?.serves(`acme.${theirs.conv}`, "good")).toBe(false);
        anyHost.close();
      } finally {
        host.close();
      }
    },
  },
  connectToolHost: { byId: (c, ids) => streamOutcome(c.connectToolHost(ids.run, [], { call: () => "" })) },
  attachCliRun: { byId: (c, ids) => c.attachCliRun(ids.conv, { approvalPolicy: "never" }) },
  // The operator's hands are refused to a plain tenant whatever it names (its own things included).
  listCallsInFlight: {
    check: async (c, theirs) => {
      for (const id of [theirs.conv, ""]) await expect(outcome(c.listCallsInFlight(id))).resolves.toMatchObject({ code: "permission_denied" });
    },
  },
  cancelCall: {
    check: async (c) => {
      for (const id of ["1", "2", "999999"]) await expect(outcome(c.cancelCall(id))).resolves.toMatchObject({ code: "permission_denied" });
    },
  },
  stopKernel: {
    check: async (c, theirs) => {
      await expect(outcome(c.stopKernel(theirs.conv, { language: "python" }))).resolves.toMatchObject({ code: "permission_denied" });
    },
  },
  stopHostAgent: {
    check: async (c, theirs) => {
      await expect(outcome(c.stopHostAgent(theirs.conv))).resolves.toMatchObject({ code: "permission_denied" });
    },
  },
  listRuns: {
    check: async (c, theirs) => {
      expect((await c.listRuns()).map((r) => r.id)).not.toContain(theirs.run);
      const foreign = await outcome(c.listRuns(theirs.conv), theirs.conv);
      const missing = await outcome(c.listRuns("c-0000000000"), "c-0000000000");
      expect(foreign.grpcCode).toBe(status.NOT_FOUND);
      expect(foreign).toEqual(missing);
    },
  },
};

const acmeIds: Ids = { conv: "", run: "" };

beforeAll(async () => {
  svc = await startTenantService({
    tenants: ["acme", "globex"],
    operators: ["ops"],
    quotas: { globex: { concurrentCalls: 1, kernels: 1 } },
    prefix: "enclave-tenants-",
  });
  ({ dir, certs, tokensFile, cp, server, tokens } = svc);
  const acme = client(tokens.acme);
  acmeIds.conv = (await acme.createConversation()).id;
  acmeIds.run = (await acme.openRun(acmeIds.conv, { approvalPolicy: "never" })).id;
  const w = await acme.callTool(acmeIds.run, "write", { path: "secret.txt", content: "acme only\n" });
  expect(w.isError).toBe(false);
}, 120_000);

afterAll(async () => {
  await svc?.close();
});

describe("tenants over TLS", () => {
  it("the token file keeps digests, never the tokens", () => {
    const text = JSON.stringify(readTokenFile(tokensFile));
    for (const t of Object.values(tokens)) expect(text).not.toContain(t.slice(13));
  });

  it("refuses a call without a token, or with one the file does not hold, as UNAUTHENTICATED (and records it)", async () => {
    for (const token of [undefined, "enc_00000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", `${tokens.acme.slice(0, -1)}x`]) {
      const o = await outcome(client(token).listConversations());
      expect(o).toMatchObject({ grpcCode: status.UNAUTHENTICATED, code: "unauthenticated" });
    }
    const refused = (await history(client(tokens.ops))).filter((e) => e.kind === "call_refused");
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(refused[0]?.detail).toContain("/enclave.control.v1.ControlPlane/ListConversations");
    // A flood is recorded as a few events with counts, not one event per call.
    const flood = client("enc_00000000_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB");
    await Promise.all(Array.from({ length: 200 }, () => outcome(flood.listConversations())));
    const after = (await history(client(tokens.ops))).filter((e) => e.kind === "call_refused");
    expect(after.length - refused.length).toBeLessThan(50);
  });

  it("every RPC of the service, tried by one tenant on another's conversation and run, answers as for a missing id", async () => {
    expect(Object.keys(PROBES).sort()).toEqual(Object.keys(ControlPlaneService).sort());
    const globex = client(tokens.globex);
    const missing: Ids = { conv: "c-0000000000", run: "r-000000000000" };
    for (const [method, probe] of Object.entries(PROBES)) {
      if ("check" in probe) {
        await probe.check(globex, acmeIds);
        continue;
      }
      const foreign = await outcome(probe.byId(globex, acmeIds));
      const absent = await outcome(probe.byId(globex, missing));
      const norm = (o: Outcome, ids: Ids): Outcome => ({ ...o, message: o.message.split(ids.conv).join("<CONV>").split(ids.run).join("<RUN>") });
      expect({ method, ...norm(foreign, acmeIds) }).toEqual({ method, ...norm(absent, missing) });
      expect({ method, grpcCode: foreign.grpcCode }).toEqual({ method, grpcCode: status.NOT_FOUND });
    }
    // Nothing the probes tried reached acme's conversation: it, its run and its file are intact.
    const acme = client(tokens.acme);
    expect((await acme.getConversation(acmeIds.conv)).tenant).toBe("acme");
    expect((await acme.listRuns(acmeIds.conv)).map((r) => r.id)).toEqual([acmeIds.run]);
    const read = await acme.callTool(acmeIds.run, "read", { path: "secret.txt" });
    expect(read.isError).toBe(false);
  });

  it("records the tenant of every call in the audit log; an operator sees every tenant's", async () => {
    const ops = client(tokens.ops);
    // Another tenant's conversation is named `<tenant>.<id>` to an operator.
    expect((await ops.listConversations()).map((c) => c.id)).toContain(`acme.${acmeIds.conv}`);
    const events = await history(ops);
    const calls = events.filter((e) => e.kind === "tool_call" && e.conversationId === `acme.${acmeIds.conv}`);
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((e) => e.tenant === "acme")).toBe(true);
    const own = await history(client(tokens.acme));
    expect(own.length).toBeGreaterThan(0);
    expect(own.every((e) => e.tenant === "acme")).toBe(true);
    expect(events.some((e) => e.kind === "api_started" && e.detail.includes("TLS"))).toBe(true);
  });

  it("a quota past its limit fails with RESOURCE_EXHAUSTED, quota_exceeded and its name and limit", async () => {
    const globex = client(tokens.globex);
    const conv = (await globex.createConversation()).id;
    const run = (await globex.openRun(conv, { approvalPolicy: "never" })).id;
    const stop = new AbortController();
    const first = globex.callTool(run, "exec", { command: "touch started; sleep 60" }, undefined, { signal: stop.signal }).catch(() => undefined);
    try {
      const ws = cp.getConversation(`globex.${conv}`).workspacePath;
      await eventually(async () => existsSync(join(ws, "started")), "the first call's command to start");
      expect((await globex.listRuns(conv))[0]?.callsInFlight).toBe(1);
      const second = await outcome(globex.callTool(run, "read", { path: "x" }));
      expect(second).toMatchObject({ grpcCode: status.RESOURCE_EXHAUSTED, code: "quota_exceeded" });
      // quota_exceeded covers every quota: the recorded answer names this one and its limit.
      await expectTranscript(second.message, "transcripts/tenants/concurrent-calls-quota.txt", IDS);
      // A flood of refused calls is recorded at most once per interval (with a count of the rest),
      // so a tenant cannot push other tenants' events out of the size-bounded log.
      const flood = await Promise.all(Array.from({ length: 40 }, () => outcome(globex.callTool(run, "read", { path: "x" }))));
      expect(flood.every((o) => o.code === "quota_exceeded")).toBe(true);
      // Another tenant's calls are not counted against it.
      expect((await client(tokens.acme).callTool(acmeIds.run, "read", { path: "secret.txt" })).isError).toBe(false);
    } finally {
      stop.abort();
      await first;
    }
    // The slot is given back when the server has ended the cancelled call.
    await eventually(async () => (await globex.listRuns(conv))[0]?.callsInFlight === 0, "the cancelled call to end on the server", 30_000);
    expect((await globex.callTool(run, "read", { path: "x" })).isError).toBe(true);
    const recorded = (await history(client(tokens.ops))).filter((e) => e.kind === "quota_exceeded");
    expect(recorded.some((e) => e.tenant === "globex" && e.detail.includes("concurrentCalls"))).toBe(true);
    expect(recorded.filter((e) => e.tenant === "globex").length).toBeLessThan(20);
  }, 60_000);

  it("the kernels quota refuses an eval that would start one more kernel, not one that uses a live kernel", async () => {
    const globex = client(tokens.globex);
    const conv = (await globex.createConversation()).id;
    const run = (await globex.openRun(conv, { approvalPolicy: "never" })).id;
    const py = await globex.callTool(run, "eval", { code: "x = 41", description: "set a variable in the kernel" });
    expect(py.isError).toBe(false);
    const again = await globex.callTool(run, "eval", { code: "x + 1", description: "read the variable back from the kernel" });
    expect(again.isError).toBe(false);
    const js = await outcome(globex.callTool(run, "eval", { code: "1 + 1", language: "javascript", description: "start a second kernel in javascript" }));
    expect(js).toMatchObject({ grpcCode: status.RESOURCE_EXHAUSTED, code: "quota_exceeded" });
    await expectTranscript(js.message, "transcripts/tenants/kernels-quota.txt", IDS);
  }, 120_000);

  it("the runningEnclosures quota refuses a second enclosure of the tenant while one runs", async () => {
    const initech = addToken(tokensFile, "initech").token;
    setQuota(tokensFile, "initech", "runningEnclosures", 1);
    const c = client(initech);
    await eventually(async () => (await outcome(c.listConversations())).code === "ok", "the new tenant's token to be accepted", 1_000);
    const one = (await c.createConversation()).id;
    const two = (await c.createConversation()).id;
    const started = await c.startEnclosure(one);
    try {
      expect(started.enclosure?.state).toBe("running");
      const second = await outcome(c.startEnclosure(two));
      expect(second).toMatchObject({ grpcCode: status.RESOURCE_EXHAUSTED, code: "quota_exceeded" });
      await expectTranscript(second.message, "transcripts/tenants/running-enclosures-quota.txt", IDS);
      expect((await c.getConversation(two)).enclosure).toBeUndefined();
    } finally {
      await c.stopEnclosure(one);
    }
  }, 180_000);

  it("a paused enclosure keeps its runningEnclosures slot, and another tenant can neither pause nor resume it", async () => {
    const hooli = addToken(tokensFile, "hooli").token;
    setQuota(tokensFile, "hooli", "runningEnclosures", 1);
    const c = client(hooli);
    const other = client(tokens.globex);
    await eventually(async () => (await outcome(c.listConversations())).code === "ok", "the new tenant's token to be accepted", 1_000);
    const one = (await c.createConversation()).id;
    const two = (await c.createConversation()).id;
    await c.startEnclosure(one, { runtime: "runsc" });
    try {
      // Named by another tenant, the conversation answers as a missing one, and nothing changes.
      expect(await outcome(other.pauseEnclosure(one))).toMatchObject({ grpcCode: status.NOT_FOUND, code: "not_found" });
      expect((await c.getConversation(one)).enclosure?.state).toBe("running");
      expect((await c.pauseEnclosure(one)).enclosure?.state).toBe("paused");
      expect(await outcome(other.resumeEnclosure(one))).toMatchObject({ grpcCode: status.NOT_FOUND, code: "not_found" });
      expect((await c.getConversation(one)).enclosure?.state).toBe("paused");
      // Pausing makes no room for a second enclosure: the first would come back with any call.
      expect(await outcome(c.startEnclosure(two))).toMatchObject({ grpcCode: status.RESOURCE_EXHAUSTED, code: "quota_exceeded" });
      const paused = svc.cp.auditHistory().filter((e) => e.kind === "enclosure_paused" && e.tenant === "hooli");
      expect(paused.map((e) => e.detail?.split(";")[0])).toEqual(["by tenant `hooli`"]);
    } finally {
      await c.stopEnclosure(one);
    }
  }, 180_000);

  it("the CLI makes a token once and calls over TLS with --token/ENCLAVE_TOKEN and --tls-ca", async () => {
    const enclave = join(repoRoot, "bin", "enclave");
    const made = await exec(enclave, ["tokens", "add", "cli-tenant", "--tokens-file", tokensFile]);
    const token = made.stdout.trim();
    expect(token).toMatch(/^enc_[0-9a-f]{8}_[A-Za-z0-9_-]{43}$/);
    expect(readTokenFile(tokensFile).tokens.some((t) => t.tenant === "cli-tenant" && !JSON.stringify(t).includes(token.slice(13)))).toBe(true);
    const common = ["--address", server.address, "--tls-ca", certs.caFile];
    const env = { ...process.env, ENCLAVE_TOKEN: token };
    const created = await exec(enclave, ["conversations", "create", "cli-made", ...common], { env });
    expect(created.stdout).toContain("cli-made");
    expect((await client(token).getConversation("cli-made")).tenant).toBe("cli-tenant");
    const listed = await exec(enclave, ["conversations", "list", ...common, "--token", token]);
    expect(listed.stdout).toContain("cli-made");
    expect(listed.stdout).not.toContain(acmeIds.conv);
    const { ENCLAVE_TOKEN: _drop, ...noToken } = env;
    const refused = await exec(enclave, ["conversations", "list", ...common], { env: noToken }).then(
      () => undefined,
      (err: { code: number; stderr: string }) => err,
    );
    expect(refused?.code).toBe(1);
    // The CLI has no code of its own to print: its exit status, and what it says, recorded.
    // (Node's own warnings on stderr are left out: they are Node's, and vary with its version.)
    const said = (refused?.stderr ?? "").split("\n").filter((l) => !/^\((?:node:\d+|Use `node )/.test(l));
    await expectTranscript(said.join("\n"), "transcripts/tenants/cli-without-token.txt");
  }, 60_000);

  it("a tenant cannot name a host folder as its workspace nor weaken an enclosure", async () => {
    const globex = client(tokens.globex);
    expect(await outcome(globex.createConversation("", dir))).toMatchObject({ code: "invalid_arguments" });
    const conv = (await globex.createConversation()).id;
    const weak = await outcome(globex.startEnclosure(conv, { networkMode: "bridge", keepCapabilities: ["SYS_ADMIN"] }));
    expect(weak).toMatchObject({ code: "invalid_arguments" });
    // Two options weaken it; the answer says which it refuses first.
    await expectTranscript(weak.message, "transcripts/tenants/weakened-enclosure-refused.txt", IDS);
    expect((await globex.getConversation(conv)).enclosure).toBeUndefined();
  });

  it("a token added works, and once revoked stops working within a second, with no restart", async () => {
    const { id, token } = addToken(tokensFile, "acme", { label: "short-lived" });
    const c = client(token);
    await eventually(async () => (await outcome(c.listConversations())).code === "ok", "the new token to be accepted", 1_000);
    expect((await outcome(c.listConversations())).code).toBe("ok");
    // A tool call opens the client's CallTools session, which stays open across the revocation.
    expect((await c.callTool(acmeIds.run, "read", { path: "secret.txt" })).isError).toBe(false);
    expect(revokeTokens(tokensFile, { id })).toBe(1);
    const revokedAt = Date.now();
    let last: Outcome = { grpcCode: status.OK, code: "ok", message: "" };
    while (Date.now() - revokedAt < 1_000) {
      last = await outcome(c.listConversations());
      if (last.code !== "ok") break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(last).toMatchObject({ grpcCode: status.UNAUTHENTICATED, code: "unauthenticated" });
    // Each call on the open session is authenticated again.
    expect(await outcome(c.callTool(acmeIds.run, "read", { path: "secret.txt" }))).toMatchObject({ grpcCode: status.UNAUTHENTICATED, code: "unauthenticated" });
    // The other tokens of the tenant still work.
    expect((await outcome(client(tokens.acme).listConversations())).code).toBe("ok");
  });

  it("with client certificates required, a client without one is refused and one with it is served", async () => {
    const mtls = await serveControlPlane(cp, "127.0.0.1:0", {
      tlsCertFile: certs.serverCertFile,
      tlsKeyFile: certs.serverKeyFile,
      tlsClientCaFile: certs.caFile,
      tokensFile,
    });
    try {
      const without = client(tokens.acme, { rootCerts: certs.ca }, mtls.address);
      await expect(without.listConversations()).rejects.toThrow();
      const withCert = client(tokens.acme, { rootCerts: certs.ca, certChain: certs.clientCert, privateKey: certs.clientKey }, mtls.address);
      expect((await withCert.listConversations()).map((c) => c.id)).toContain(acmeIds.conv);
    } finally {
      await mtls.close();
    }
  });

  it("the console opens with an operator's token (its session ends with the token), a tenant's to its own view, not with none", async () => {
    const operators = new TokenFileAuth(tokensFile);
    const web = await serveConsole(cp, { host: "127.0.0.1", port: 0, token: "", tokenGenerated: false, operators });
    try {
      const base = `http://127.0.0.1:${web.port}`;
      expect(web.tokenRequired).toBe(true);
      expect((await fetch(`${base}/`)).status).toBe(401);
      // A tenant's token opens its own tenant's view (test/security/tenant-namespaces.test.ts).
      const own = await fetch(`${base}/`, { headers: { authorization: `Bearer ${tokens.globex}` } });
      expect(own.status).toBe(200);
      expect(await own.text()).not.toContain(acmeIds.conv);
      const page = await fetch(`${base}/`, { headers: { authorization: `Bearer ${tokens.ops}` } });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain(acmeIds.conv);
      // A login by ?token= keeps a session cookie; revoking the operator's token ends it.
      const extra = addToken(tokensFile, "ops", { operator: true });
      const login = await fetch(`${base}/?token=${extra.token}`, { redirect: "manual" });
      expect(login.status).toBe(303);
      const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
      expect((await fetch(`${base}/`, { headers: { cookie } })).status).toBe(200);
      revokeTokens(tokensFile, { id: extra.id });
      expect((await fetch(`${base}/`, { headers: { cookie } })).status).toBe(401);
    } finally {
      await web.close();
      operators.close();
    }
  });

  it("refuses a non-loopback address without TLS and tokens unless weakened on purpose, which the audit log says", async () => {
    await expect(serveControlPlane(cp, "0.0.0.0:0", {})).rejects.toMatchObject({ code: "failed_precondition" });
    await expect(serveControlPlane(cp, "0.0.0.0:0", { tokensFile })).rejects.toMatchObject({ code: "failed_precondition" });
    const weak = await serveControlPlane(cp, "0.0.0.0:0", { tokensFile, allowInsecureRemote: true });
    try {
      await expectTranscript(weak.security, "transcripts/tenants/weakened-server.txt", [[/\b0\.0\.0\.0:\d+/g, "0.0.0.0:<port>"]]);
      const started = (await history(client(tokens.ops))).filter((e) => e.kind === "api_started");
      expect(started.at(-1)).toMatchObject({ outcome: "weakened" });
    } finally {
      await weak.close();
    }
  });
});
