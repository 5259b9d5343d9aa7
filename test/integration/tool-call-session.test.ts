// CallTools through a real control plane's gRPC API: the client library's calls share one stream
// (counted by the server's own channelz call tracker), each call hears only its own events, a cancel
// or a closed client stops exactly the calls it should, and frames a raw client writes by hand are
// refused call by call (a duplicate id, a bound on calls in flight, a malformed frame, bad UTF-8)
// while the session keeps serving. Draining ends a session once its calls are answered.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, type ClientDuplexStream, credentials, getChannelzHandlers, Metadata, type ServiceError, status } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ControlPlaneCallError, ControlPlaneClient, resultText } from "@enclave/client/control-plane-client.js";
import { loadConfig } from "@enclave/control-plane/config.js";
import { ControlPlane } from "@enclave/control-plane/control-plane.js";
import { ERROR_CODE_TRAILER } from "@enclave/control-plane/errors.js";
import { LIMITS } from "@enclave/control-plane/limits.js";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";
import { serveControlPlane } from "@enclave/control-plane/server/serve.js";
import { type AuditEvent, ToolCallEvent, ToolCallFrame, type ToolEvent, ToolEvent as ToolEventMsg } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";
import { eventually, until } from "../helpers/wait.js";

let fx: Fixture;
let runId: string;
let ws: string;
const CONV = "sessions";
const opened: Array<{ close(): void }> = [];

beforeAll(async () => {
  fx = await startFixture();
  ws = (await fx.client.createConversation(CONV)).workspacePath;
  runId = (await fx.client.openRun(CONV, { approvalPolicy: "never", resources: ["workspace", "shell", "kernel"] })).id;
}, 120_000);

afterAll(async () => {
  for (const c of opened) c.close();
  await fx?.close();
});

function newClient(): ControlPlaneClient {
  const c = new ControlPlaneClient(fx.client.address);
  opened.push(c);
  return c;
}

/** Calls every gRPC server in this process has started (channelz's own tracker). */
function serverCallsStarted(): Promise<number> {
  return new Promise((resolve, reject) => {
    const handlers = getChannelzHandlers() as unknown as {
      GetServers(
        call: { request: { start_server_id: number; max_results: number } },
        cb: (err: Error | null, res?: { server: Array<{ data: { calls_started: number } }> }) => void,
      ): void;
    };
    handlers.GetServers({ request: { start_server_id: 0, max_results: 100 } }, (err, res) =>
      err ? reject(err) : resolve((res?.server ?? []).reduce((n, s) => n + Number(s.data.calls_started), 0)),
    );
  });
}

function outputOf(events: ToolEvent[]): string {
  return events.map((e) => (e.event?.$case === "output" ? Buffer.from(e.event.value.data).toString() : "")).join("");
}

/** The run's calls of `tool` in the audit log. */
async function toolCalls(run: string, tool: string): Promise<AuditEvent[]> {
  const calls: AuditEvent[] = [];
  for await (const e of fx.client.auditEvents({ conversationId: CONV, historyOnly: true }))
    if (e.kind === "tool_call" && e.tool === tool && e.runId === run) calls.push(e);
  return calls;
}

/** A run of its own, so the audit log's records of a test's calls are told apart from the others'. */
async function ownRun(): Promise<string> {
  return (await fx.client.openRun(CONV, { approvalPolicy: "never", resources: ["workspace", "shell"] })).id;
}

/** A CallTools stream written frame by frame, as raw bytes when a test needs bytes no typed client writes. */
class RawSession {
  readonly events: ToolCallEvent[] = [];
  readonly ended: Promise<ServiceError | "ok">;
  private readonly client: Client;
  private readonly stream: ClientDuplexStream<Buffer, ToolCallEvent>;

  constructor(address: string) {
    this.client = new Client(address, credentials.createInsecure());
    opened.push(this);
    this.stream = this.client.makeBidiStreamRequest(
      "/enclave.control.v1.ControlPlane/CallTools",
      (b: Buffer) => b,
      (b: Buffer) => ToolCallEvent.decode(b),
      new Metadata(),
    );
    this.stream.on("data", (e: ToolCallEvent) => this.events.push(e));
    this.ended = new Promise((resolve) => {
      this.stream.on("error", (err: ServiceError) => resolve(err));
      this.stream.on("end", () => resolve("ok"));
    });
  }

  sendRaw(bytes: Buffer): void {
    this.stream.write(bytes);
  }

  send(frame: Partial<ToolCallFrame>): void {
    this.sendRaw(Buffer.from(ToolCallFrame.encode(ToolCallFrame.fromPartial(frame)).finish()));
  }

  call(callId: number, tool: string, args: unknown): void {
    this.send({ callId, frame: { $case: "call", value: { runId, tool, argumentsJson: JSON.stringify(args) } } });
  }

  cancel(callId: number): void {
    this.send({ callId, frame: { $case: "cancel", value: {} } });
  }

  /** The result or error that ended call `callId` (0: the refusals of frames with no call of their own). */
  final(callId: number): ToolCallEvent | undefined {
    return this.events.find((e) => e.callId === callId && (e.event?.$case === "result" || e.event?.$case === "error"));
  }

  waitFinal(callId: number, label: string, timeoutMs = 60_000): Promise<ToolCallEvent> {
    return until(() => this.final(callId), label, timeoutMs);
  }

  endWriting(): void {
    this.stream.end();
  }

  close(): void {
    this.stream.cancel();
    this.client.close();
  }
}

/** A protobuf field written by hand: tag, then a varint or a length and bytes. */
function field(no: number, value: Buffer | number): Buffer {
  const varint = (n: number): number[] => {
    const out: number[] = [];
    do {
      out.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
      n >>>= 7;
    } while (n > 0);
    return out;
  };
  if (typeof value === "number") return Buffer.from([no << 3, ...varint(value)]);
  return Buffer.concat([Buffer.from([(no << 3) | 2, ...varint(value.length)]), value]);
}

describe("the client library over CallTools", () => {
  it("carries many concurrent calls on one stream, each hearing only its own output in order", async () => {
    const client = newClient();
    await client.listConversations(); // connected, so the count below is only the tool calls'
    const before = await serverCallsStarted();
    const lines = (tag: string): string => Array.from({ length: 5 }, (_, i) => `${tag}${i}`).join("\n") + "\n";
    const execs = ["a", "b", "c"].map((tag) => {
      const events: ToolEvent[] = [];
      const done = client.callTool(runId, "exec", { command: `for i in 0 1 2 3 4; do echo ${tag}$i; sleep 0.1; done` }, (e) => events.push(e));
      return { tag, events, done };
    });
    const evalEvents: ToolEvent[] = [];
    const cell = client.callTool(
      runId,
      "eval",
      {
        code: "import time\nfor i in range(5):\n    print(f'p{i}', flush=True)\n    time.sleep(0.1)",
        description: "print five numbered lines slowly to stdout",
      },
      (e) => evalEvents.push(e),
    );
    const reads = Array.from({ length: 12 }, (_, i) => client.callTool(runId, "list", { path: "." }).then((r) => ({ i, r })));
    for (const x of execs) {
      const r = await x.done;
      expect(r.isError, resultText(r)).toBe(false);
      expect(outputOf(x.events)).toBe(lines(x.tag));
    }
    const c = await cell;
    expect(c.isError, resultText(c)).toBe(false);
    expect(outputOf(evalEvents)).toBe(lines("p"));
    for (const { r } of await Promise.all(reads)) expect(r.isError).toBe(false);
    // 16 tool calls, one stream.
    expect((await serverCallsStarted()) - before).toBe(1);
  }, 120_000);

  it("sends calls past the session's bound over CallTool, so a caller never sees the bound", async () => {
    const client = newClient();
    const n = LIMITS.toolSessionCallsInFlight + 4;
    const stop = new AbortController();
    const sleeping = Array.from({ length: n }, (_, i) =>
      client.callTool(runId, "exec", { command: `touch bound-${i}; sleep 60` }, { signal: stop.signal }).catch((err: unknown) => err),
    );
    try {
      await eventually(
        async () => Array.from({ length: n }, (_, i) => existsSync(join(ws, `bound-${i}`))).every(Boolean),
        "every call's command to start",
        60_000,
      );
    } finally {
      stop.abort();
    }
    for (const r of await Promise.all(sleeping)) expect(r).toMatchObject({ name: "AbortError" });
  }, 120_000);

  it("an aborted signal cancels its call only; the others on the session run to their end", async () => {
    const client = newClient();
    const runId = await ownRun();
    const stop = new AbortController();
    const cancelled = client.callTool(runId, "exec", { command: "touch cancel-started; sleep 60; touch cancel-finished" }, { signal: stop.signal });
    const other = client.callTool(runId, "exec", { command: "until [ -e cancel-started ]; do sleep 0.05; done; sleep 1; echo other-done" });
    await eventually(async () => existsSync(join(ws, "cancel-started")), "the call to cancel to start");
    stop.abort();
    await expect(cancelled).rejects.toMatchObject({ name: "AbortError" });
    const r = await other;
    expect(resultText(r)).toContain("other-done");
    // Leaving a streamTool loop early cancels its call the same way.
    const seen: string[] = [];
    for await (const e of client.streamTool(runId, "exec", { command: "echo first; sleep 60; touch stream-finished" })) {
      if (e.event?.$case === "output") {
        seen.push(Buffer.from(e.event.value.data).toString());
        break;
      }
    }
    expect(seen.join("")).toContain("first");
    // Three calls recorded as a CallTool's are: the two cancelled ones ended long before their sleep, not ok.
    const audited = await eventually(
      async () => {
        const calls = await toolCalls(runId, "exec");
        return calls.length >= 3 ? calls : undefined;
      },
      "the calls in the audit log",
      60_000,
    );
    expect(audited.map((e) => e.origin)).toEqual(["model", "model", "model"]);
    // Cancelled by their caller, not lost: the agent stopped the commands.
    expect(audited.filter((e) => e.outcome === "error:cancelled")).toHaveLength(2);
    expect(existsSync(join(ws, "cancel-finished")) || existsSync(join(ws, "stream-finished"))).toBe(false);
  }, 120_000);

  it("closing the client cancels its calls in flight on the server, as the audit log shows", async () => {
    const client = newClient();
    const runId = await ownRun();
    const calls = [0, 1].map((i) =>
      client.callTool(runId, "exec", { command: `touch closing-${i}; sleep 60; touch closed-finished-${i}` }).then(
        () => "resolved",
        (err: unknown) => err,
      ),
    );
    await eventually(async () => existsSync(join(ws, "closing-0")) && existsSync(join(ws, "closing-1")), "both commands to start");
    client.close();
    for (const r of await Promise.all(calls)) expect(r).toBeInstanceOf(Error);
    const ended = await eventually(
      async () => {
        const after = await toolCalls(runId, "exec");
        return after.length >= 2 ? after : undefined;
      },
      "both calls to end on the server",
      60_000,
    );
    for (const e of ended) expect(e.outcome).toBe("error:cancelled");
    expect(existsSync(join(ws, "closed-finished-0")) || existsSync(join(ws, "closed-finished-1"))).toBe(false);
  }, 120_000);

  it("a process that never closes its client still exits once its calls are done", async () => {
    // The built client (dist), as a harness's script uses it.
    const script = [
      `import { EnclaveClient } from "enclave/client";`,
      `const c = new EnclaveClient(${JSON.stringify(fx.client.address)});`,
      `const r = await Promise.all([c.callTool(${JSON.stringify(runId)}, "list", {}), c.callTool(${JSON.stringify(runId)}, "list", {})]);`,
      `console.log(r.every((x) => !x.isError) ? "answered" : "failed");`,
    ].join("\n");
    const ended = await new Promise<{ killed: boolean; stdout: string }>((resolve) =>
      execFile(process.execPath, ["--input-type=module", "-e", script], { cwd: repoRoot, timeout: 15_000 }, (err, stdout) =>
        resolve({ killed: err?.signal === "SIGTERM", stdout }),
      ),
    );
    expect(ended).toEqual({ killed: false, stdout: "answered\n" });
  }, 30_000);

  it("a call on a session that broke is answered, and the next call opens a new session", async () => {
    const client = newClient();
    expect((await client.callTool(runId, "list", { path: "." })).isError).toBe(false);
    // The tool's own failure is a result, a run unknown is the same status and code as on CallTool.
    const legacy = new ControlPlaneClient(fx.client.address, { toolCallSession: false });
    opened.push(legacy);
    const viaSession = await client.callTool("r-000000000000", "list", {}).catch((err: unknown) => err);
    const viaCallTool = await legacy.callTool("r-000000000000", "list", {}).catch((err: unknown) => err);
    expect(viaSession).toBeInstanceOf(ControlPlaneCallError);
    expect(viaSession).toMatchObject({ grpcCode: status.NOT_FOUND, code: "not_found", message: (viaCallTool as Error).message });
    expect(viaCallTool).toMatchObject({ grpcCode: status.NOT_FOUND, code: "not_found" });
    expect((await client.callTool(runId, "list", { path: "." })).isError).toBe(false);
  });
});

describe("CallTools frames written by hand", () => {
  it("refuses a second call with an id in flight under id 0; the first goes on", async () => {
    const s = new RawSession(fx.client.address);
    s.call(5, "exec", { command: "sleep 1; echo first-of-five" });
    s.call(5, "list", { path: "." });
    const refused = await s.waitFinal(0, "the duplicate's refusal");
    expect(refused.event).toMatchObject({ $case: "error", value: { code: "already_exists", grpcCode: status.ALREADY_EXISTS } });
    const first = await s.waitFinal(5, "the first call's result");
    expect(first.event?.$case).toBe("result");
    expect(JSON.stringify(first.event)).toContain("first-of-five");
    // Its id is free again once answered.
    s.call(5, "list", { path: "." });
    await until(() => s.events.filter((e) => e.callId === 5 && e.event?.$case === "result").length === 2 || undefined, "the id used again");
  });

  it("bounds the calls in flight on one session: one more fails with too_many_calls, and the session serves on", async () => {
    const s = new RawSession(fx.client.address);
    const limit = LIMITS.toolSessionCallsInFlight;
    for (let id = 1; id <= limit; id++) s.call(id, "exec", { command: `touch raw-bound-${id}; sleep 60` });
    s.call(limit + 1, "list", { path: "." });
    const over = await s.waitFinal(limit + 1, "the call over the bound");
    expect(over.event).toMatchObject({ $case: "error", value: { code: "too_many_calls", grpcCode: status.RESOURCE_EXHAUSTED } });
    // What it says (the bound, and what to do), recorded.
    await expectTranscript(over.event?.$case === "error" ? over.event.value.message : "", "transcripts/tool-call-session/too-many-calls.txt");
    // A cancel frees a place.
    s.cancel(1);
    const cancelled = await s.waitFinal(1, "the cancelled call's answer");
    expect(cancelled.event).toMatchObject({ $case: "result", value: { isError: true } });
    s.call(limit + 2, "list", { path: "." });
    expect((await s.waitFinal(limit + 2, "a call after the cancel")).event?.$case).toBe("result");
    // Closing the stream cancels every call still in flight.
    s.close();
    await eventually(async () => (await fx.client.listRuns(CONV))[0]?.callsInFlight === 0, "the session's calls to end on the server", 60_000);
  }, 120_000);

  it("a malformed frame fails its own call (or, with no id, is answered under id 0) and the session goes on", async () => {
    const s = new RawSession(fx.client.address);
    // A call id, then a call field whose length runs past the frame's end.
    s.sendRaw(Buffer.concat([field(1, 9), Buffer.from([(2 << 3) | 2, 50]), Buffer.from("short")]));
    const nine = await s.waitFinal(9, "the malformed frame's refusal");
    expect(nine.event).toMatchObject({ $case: "error", value: { code: "invalid_arguments", grpcCode: status.INVALID_ARGUMENT } });
    // No id to fail: answered under 0.
    s.sendRaw(Buffer.from([0xff, 0xff, 0xff]));
    const noId = await s.waitFinal(0, "the id-less frame's refusal");
    expect(noId.event).toMatchObject({ $case: "error", value: { code: "invalid_arguments" } });
    // Neither call nor cancel; call_id 0 with a call.
    s.send({ callId: 10 });
    expect((await s.waitFinal(10, "the empty frame's refusal")).event).toMatchObject({ $case: "error", value: { code: "invalid_arguments" } });
    s.send({ callId: 0, frame: { $case: "call", value: { runId, tool: "list", argumentsJson: "{}" } } });
    await until(() => s.events.filter((e) => e.callId === 0).length === 2 || undefined, "the id-0 call's refusal");
    // The session still serves.
    s.call(11, "list", { path: "." });
    expect((await s.waitFinal(11, "a good call after the bad frames")).event?.$case).toBe("result");
    // Half-closed: the stream ends once its calls are answered.
    s.call(12, "exec", { command: "sleep 0.5; echo last" });
    s.endWriting();
    expect(await s.ended).toBe("ok");
    expect(s.final(12)?.event?.$case).toBe("result");
  });

  it("the session's own refusals are in the audit log, at most one record per interval with a count of the rest", async () => {
    const since = Date.now();
    const s = new RawSession(fx.client.address);
    const burst = 30;
    for (let i = 0; i < burst; i++) s.send({ callId: 0, frame: { $case: "call", value: { runId, tool: "list", argumentsJson: "{}" } } });
    await until(() => s.events.filter((e) => e.callId === 0).length === burst || undefined, "the burst's refusals");
    await new Promise((resolve) => setTimeout(resolve, LIMITS.refusedCallAuditIntervalMs + 50));
    s.send({ callId: 0, frame: { $case: "call", value: { runId, tool: "list", argumentsJson: "{}" } } });
    await until(() => s.events.filter((e) => e.callId === 0).length === burst + 1 || undefined, "the last refusal");
    s.close();
    const records: AuditEvent[] = [];
    for await (const e of fx.client.auditEvents({ historyOnly: true }))
      if (e.kind === "call_refused" && e.timeMs >= since && e.detail.startsWith("CallTools")) records.push(e);
    expect(records.length).toBeGreaterThanOrEqual(2);
    expect(records.length).toBeLessThan(burst / 2);
    for (const r of records) expect(r).toMatchObject({ tenant: "local", outcome: "refused:invalid_arguments" });
    // Every refusal is counted: a record stands for itself and the ones its interval held back (the
    // first may also count the earlier tests' few refusals, on the same tenant's count).
    const counted = records.reduce((n, r) => n + 1 + Number(/; (\d+) more refused/.exec(r.detail)?.[1] ?? 0), 0);
    expect(counted).toBeGreaterThanOrEqual(burst + 1);
    expect(counted).toBeLessThan(burst + 10);
    expect(records.at(-1)?.detail).toMatch(/; \d+ more refused since the last record$/);
  });

  it("arguments that are not UTF-8 are refused as invalid_arguments, as on CallTool", async () => {
    const args = Buffer.concat([Buffer.from('{"path":"'), Buffer.from([0xff, 0xfe, 0xc3, 0x28]), Buffer.from('"}')]);
    const call = Buffer.concat([field(1, Buffer.from(runId)), field(2, Buffer.from("read")), field(3, args)]);
    const s = new RawSession(fx.client.address);
    s.sendRaw(Buffer.concat([field(1, 21), field(2, call)]));
    const viaSession = await s.waitFinal(21, "the bad UTF-8 call's result");
    expect(viaSession.event).toMatchObject({ $case: "result", value: { isError: true, errorCode: "invalid_arguments" } });
    // CallTool's answer to the same bytes.
    const raw = new Client(fx.client.address, credentials.createInsecure());
    opened.push(raw);
    const viaCallTool = await new Promise<ToolEvent[]>((resolve, reject) => {
      const events: ToolEvent[] = [];
      const stream = raw.makeServerStreamRequest(
        "/enclave.control.v1.ControlPlane/CallTool",
        (b: Buffer) => b,
        (b: Buffer) => ToolEventMsg.decode(b),
        call,
        new Metadata(),
      );
      stream.on("data", (e: ToolEvent) => events.push(e));
      stream.on("error", reject);
      stream.on("end", () => resolve(events));
    });
    const last = viaCallTool.at(-1)?.event;
    expect(last?.$case === "result" && last.value.errorCode).toBe("invalid_arguments");
    expect(viaSession.event?.$case === "result" && resultText(viaSession.event.value)).toBe(last?.$case === "result" ? resultText(last.value) : "");
  });
});

describe("draining with a session open", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "enclave-session-drain-"));
  let cp: ControlPlane | undefined;
  afterAll(async () => {
    if (cp) {
      for (const c of cp.listConversations()) await cp.deleteConversation(c.id).catch(() => undefined);
      await cp.close();
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("answers the calls in flight, refuses new ones as draining, then ends the session", async () => {
    const config = loadConfig({ dataDir, listen: `unix://${join(dataDir, "cp.sock")}` });
    cp = await ControlPlane.start(config);
    const server = await serveControlPlane(cp, config.listen);
    const client = new ControlPlaneClient(server.address);
    opened.push(client);
    await client.createConversation("drain-session");
    const run = (await client.openRun("drain-session", { approvalPolicy: "never", resources: ["workspace", "shell"] })).id;
    const s = new RawSession(server.address);
    let started = false;
    const inFlight = client.callTool(run, "exec", { command: "echo started; sleep 1; echo finished" }, (e) => {
      if (e.event?.$case === "output" && Buffer.from(e.event.value.data).toString().includes("started")) started = true;
    });
    await until(() => started || undefined, "the call to start");
    s.send({ callId: 1, frame: { $case: "call", value: { runId: run, tool: "list", argumentsJson: "{}" } } });
    await s.waitFinal(1, "a call before the drain");
    const drained = server.drainAndClose(30_000);
    s.send({ callId: 2, frame: { $case: "call", value: { runId: run, tool: "list", argumentsJson: "{}" } } });
    const refused = await s.ended;
    // The idle session ended at once; a frame that raced the end may have been answered draining.
    expect(refused).toMatchObject({ code: status.UNAVAILABLE });
    expect(refused !== "ok" && refused.metadata.get(ERROR_CODE_TRAILER)).toEqual(["draining"]);
    const late = s.final(2);
    if (late) expect(late.event).toMatchObject({ $case: "error", value: { code: "draining" } });
    expect(resultText(await inFlight)).toContain("finished");
    expect(await drained).toBe(true);
  }, 120_000);
});
