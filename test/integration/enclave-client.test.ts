// The Node client as a harness imports it, `enclave/client` through the package's exports, against a
// real control plane (host placement, real commands): every kind of RPC, streams as async iterables,
// cancellation with an AbortSignal (the server stops the command), a permission card answered from
// the card stream, a worker host, and the TLS and token options against the control plane's real
// service served over TLS here (the control plane's own listener serves neither yet).
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Server, ServerCredentials, ServerInterceptingCall, type ServerInterceptor } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuditEvent, type Card, EnclaveClient, resultText, type ToolEvent } from "enclave/client";
import { controlPlaneService } from "@enclave/control-plane/server/control-plane-service.js";
import { StrictControlPlaneService } from "@enclave/control-plane/server/strict-call-decoding.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { eventually } from "../helpers/wait.js";

let fx: Fixture;
let client: EnclaveClient;

beforeAll(async () => {
  fx = await startFixture();
  client = new EnclaveClient(fx.client.address);
});

afterAll(async () => {
  client?.close();
  await fx?.close();
});

function workspaceOf(id: string): string {
  return fx.cp.getConversation(id).workspacePath;
}

describe("enclave/client", () => {
  it("drives conversations, runs, tools, placement and the CLI's runs", async () => {
    const conv = await client.createConversation("client-basics");
    expect((await client.getConversation(conv.id)).workspacePath).toBe(conv.workspacePath);
    expect((await client.listConversations()).map((c) => c.id)).toContain(conv.id);

    const run = await client.openRun(conv.id);
    expect(run.approvalPolicy).toBe("write");
    const tools = await client.listTools(run.id);
    expect(tools.tools.find((t) => t.name === "write")?.tier).toBe("write");
    expect((await client.setVibeMode(run.id, true)).vibeMode).toBe(true);

    const headless = await client.openRun(conv.id, { approvalPolicy: "never", resources: ["workspace"] });
    const written = await client.callTool(headless.id, "write", { path: "a.txt", content: "a\n" });
    expect(written.isError, resultText(written)).toBe(false);
    const read = await client.callTool(headless.id, "read", { path: "a.txt" });
    expect(resultText(read)).toContain("a\n");

    const placement = await client.describePlacement(conv.id);
    expect(placement.placement).toBe("host");
    const audit = await client.auditEnclosure(conv.id);
    expect(audit.placement).toBe("host");
    await expect(client.stopEnclosure(conv.id)).rejects.toMatchObject({ code: "failed_precondition" });

    const cli = await client.attachCliRun(conv.id);
    expect(cli.cli && cli.cliCurrent).toBe(true);
    expect((await client.attachCliRun(conv.id)).id).toBe(cli.id);
    expect((await client.listRuns(conv.id)).map((r) => r.id).sort()).toEqual([run.id, headless.id, cli.id].sort());

    await client.closeRun(run.id);
    expect((await client.listRuns(conv.id)).map((r) => r.id)).not.toContain(run.id);
    await client.deleteConversation(conv.id);
    await expect(client.getConversation(conv.id)).rejects.toMatchObject({ code: "not_found" });
  });

  it("streams a command's output as an async iterable, the result last", async () => {
    const conv = await client.createConversation("client-stream");
    const run = await client.openRun(conv.id, { approvalPolicy: "never" });
    const events: ToolEvent[] = [];
    for await (const e of client.streamTool(run.id, "exec", { command: "for i in 1 2 3; do echo line$i; done" })) events.push(e);
    const output = events.flatMap((e) => (e.event?.$case === "output" ? [Buffer.from(e.event.value.data).toString()] : [])).join("");
    expect(output).toBe("line1\nline2\nline3\n");
    const last = events[events.length - 1]?.event;
    expect(last?.$case).toBe("result");
    expect(last?.$case === "result" && last.value.isError).toBe(false);
  });

  it("cancels with an AbortSignal: a running command is stopped on the server", async () => {
    const conv = await client.createConversation("client-abort");
    const run = await client.openRun(conv.id, { approvalPolicy: "never" });
    const ws = workspaceOf(conv.id);

    // The iterable: abort once the first line arrived.
    const controller = new AbortController();
    const seen: string[] = [];
    const iterating = (async () => {
      for await (const e of client.streamTool(run.id, "exec", { command: "echo first; sleep 300; touch finished-1" }, { signal: controller.signal })) {
        if (e.event?.$case === "output") {
          seen.push(Buffer.from(e.event.value.data).toString());
          controller.abort();
        }
      }
    })();
    await expect(iterating).rejects.toMatchObject({ name: "AbortError" });
    expect(seen.join("")).toContain("first");

    // The promise form: abort while the command runs.
    const second = new AbortController();
    const calling = client.callTool(run.id, "exec", { command: "touch started-2; sleep 300; touch finished-2" }, { signal: second.signal });
    await eventually(async () => existsSync(join(ws, "started-2")), "the second command to start");
    second.abort();
    await expect(calling).rejects.toMatchObject({ name: "AbortError" });

    // Both calls ended on the server long before their sleep would have: the audit log has them, not ok.
    const ended = await eventually(
      async () => {
        const calls: AuditEvent[] = [];
        for await (const e of client.auditEvents({ conversationId: conv.id, historyOnly: true }))
          if (e.kind === "tool_call" && e.tool === "exec") calls.push(e);
        return calls.length === 2 ? calls : undefined;
      },
      "both cancelled calls in the audit log",
      60_000,
    );
    for (const e of ended) expect(e.outcome).not.toBe("ok");
    expect(existsSync(join(ws, "finished-1")) || existsSync(join(ws, "finished-2"))).toBe(false);

    // Already aborted: nothing is sent.
    const gone = AbortSignal.abort();
    await expect(client.listConversations({ signal: gone })).rejects.toMatchObject({ name: "AbortError" });
    await expect(client.callTool(run.id, "exec", { command: "touch never-ran" }, { signal: gone })).rejects.toMatchObject({ name: "AbortError" });
    expect(existsSync(join(ws, "never-ran"))).toBe(false);
  });

  it("answers a permission card from the card stream (a run with no policy asks for writes)", async () => {
    const conv = await client.createConversation("client-cards");
    const run = await client.openRun(conv.id, { resources: ["workspace"] });
    const stop = new AbortController();
    let card: Card | undefined;
    let writing: Promise<unknown> | undefined;
    const watching = (async () => {
      for await (const e of client.cardEvents(conv.id, { signal: stop.signal })) {
        if (e.event?.$case === "subscribed") writing = client.callTool(run.id, "write", { path: "approved.txt", content: "yes\n" });
        if (e.event?.$case === "opened" && e.event.value.kind === "permission") {
          card = e.event.value;
          const args = await client.getCardArguments(conv.id, card.number);
          expect(JSON.parse(args.text)).toEqual({ path: "approved.txt", content: "yes\n" });
          await client.answerCard(conv.id, card.number, { selected: ["allow"] });
        }
        if (e.event?.$case === "closed") stop.abort();
      }
    })();
    await expect(watching).rejects.toMatchObject({ name: "AbortError" });
    const result = (await writing) as Awaited<ReturnType<EnclaveClient["callTool"]>>;
    expect(result.isError, resultText(result)).toBe(false);
    expect(readFileSync(join(workspaceOf(conv.id), "approved.txt"), "utf8")).toBe("yes\n");
    const closed = await client.listCards(conv.id, true);
    expect(closed.find((c) => c.number === card?.number)?.state).toBe("answered");
  });

  it("connects a worker host", async () => {
    const host = client.connectWorkerHost({ name: "client-test-host", conversationIds: ["nobody"] }, () => undefined);
    expect(await host.ready).toMatch(/\S/);
    host.close();
    await host.done;
  });
});

describe("TLS and token options", () => {
  let dir: string;
  let server: Server;
  let port: number;
  const authorizations: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "enclave-client-tls-"));
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=localhost",
        "-addext",
        "subjectAltName=DNS:localhost",
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem"),
      ],
      { stdio: "ignore" },
    );
    // Records the authorization header of every call, as a token-checking front would see it.
    const recordToken: ServerInterceptor = (_method, call) =>
      new ServerInterceptingCall(call, {
        start: (next) =>
          next({
            onReceiveMetadata: (md, nextMd) => {
              authorizations.push(String(md.get("authorization")[0] ?? ""));
              nextMd(md);
            },
          }),
      });
    server = new Server({ interceptors: [recordToken] });
    server.addService(StrictControlPlaneService, controlPlaneService(fx.cp));
    const creds = ServerCredentials.createSsl(null, [{ private_key: readFileSync(join(dir, "key.pem")), cert_chain: readFileSync(join(dir, "cert.pem")) }]);
    port = await new Promise<number>((resolve, reject) => server.bindAsync("127.0.0.1:0", creds, (err, p) => (err ? reject(err) : resolve(p))));
  });

  afterAll(async () => {
    server?.forceShutdown();
    rmSync(dir, { recursive: true, force: true });
  });

  it("reaches a TLS endpoint with the given roots and sends the token on unary calls and streams", async () => {
    const secure = new EnclaveClient(`127.0.0.1:${port}`, {
      tls: { rootCerts: readFileSync(join(dir, "cert.pem")), serverNameOverride: "localhost" },
      token: "s3cret-token",
    });
    try {
      await secure.createConversation("client-tls");
      expect((await secure.listConversations()).map((c) => c.id)).toContain("client-tls");
      const run = await secure.openRun("client-tls", { approvalPolicy: "never" });
      const events: ToolEvent[] = [];
      for await (const e of secure.streamTool(run.id, "exec", { command: "echo over-tls" })) events.push(e);
      expect(events.some((e) => e.event?.$case === "output" && Buffer.from(e.event.value.data).toString() === "over-tls\n")).toBe(true);
      expect(authorizations.length).toBeGreaterThanOrEqual(4);
      expect(new Set(authorizations)).toEqual(new Set(["Bearer s3cret-token"]));
    } finally {
      secure.close();
    }
  });

  it("fails against the TLS endpoint without TLS, and with roots that do not sign its certificate", async () => {
    const plain = new EnclaveClient(`127.0.0.1:${port}`);
    const untrusted = new EnclaveClient(`127.0.0.1:${port}`, { tls: true });
    try {
      await expect(plain.listConversations({ signal: AbortSignal.timeout(20_000) })).rejects.toThrow();
      await expect(untrusted.listConversations({ signal: AbortSignal.timeout(20_000) })).rejects.toThrow();
    } finally {
      plain.close();
      untrusted.close();
    }
  });
});
