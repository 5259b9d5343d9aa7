// The call mux between the control plane and an agent: small unary calls travel on one long-lived
// stream. Against the real agent bundle: answers and error codes are those of the unary calls, calls
// in flight together come back to their own callers, a dead agent fails the calls in flight and the
// next call reaches the agent that replaced it. Against a stand-in for an older agent (no mux) and a
// hostile one (answers calls never made): the client falls back, or refuses to believe it.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type sendUnaryData,
  Server,
  type UntypedServiceImplementation,
  ServerCredentials,
  type ServerDuplexStream,
  type ServerUnaryCall,
  status,
} from "@grpc/grpc-js";
import { afterAll, describe, expect, it } from "vitest";
import { AgentClient } from "@enclave/control-plane/agent-client/agent-client.js";
import { EnclaveError } from "@enclave/control-plane/errors.js";
import { agentBundleEntry } from "@enclave/control-plane/repo-paths.js";
import { FilesService, type StatRequest, type StatResponse } from "@enclave/proto/gen/enclave/agent/v1/files.js";
import { CallMuxService, type MuxReply, type MuxRequest } from "@enclave/proto/gen/enclave/agent/v1/mux.js";
import { eventually, until } from "../helpers/wait.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

function startRealAgent(ws: string, socket: string): ChildProcess {
  const state = join(tempDir("mux-state-"), "s");
  mkdirSync(state, { mode: 0o700 });
  return spawn(process.execPath, [agentBundleEntry, "--socket", socket, "--workspace", ws, "--state-dir", state], { stdio: ["ignore", "ignore", "inherit"] });
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "ok";
  } catch (err) {
    return err instanceof EnclaveError ? err.code : `not an EnclaveError: ${String(err)}`;
  }
}

const statReq = (path: string): StatRequest => ({ path });
const readReq = (path: string) => ({ path, maxBytes: 0 });

describe("call mux, real agent", () => {
  it("answers as the unary calls do, keeps error codes, and serves calls in flight together", async () => {
    const ws = tempDir("mux-ws-");
    writeFileSync(join(ws, "a.txt"), "hello\n");
    mkdirSync(join(ws, "sub"));
    for (let i = 0; i < 20; i++) writeFileSync(join(ws, "sub", `f${i}.txt`), `file ${i}\n`);
    const socket = join(tempDir("mux-sock-"), "a.sock");
    const agent = startRealAgent(ws, socket);
    const client = new AgentClient(socket, () => "test agent");
    try {
      await client.health(20_000);
      const read = await client.readFile(readReq("a.txt"));
      expect(Buffer.from(read.content).toString()).toBe("hello\n");
      // Error codes come through the mux exactly as through a unary call.
      expect(await codeOf(client.readFile(readReq("missing.txt")))).toBe("not_found");
      expect(await codeOf(client.stat(statReq("../outside")))).toBe("outside_workspace");
      // Forty calls at once: each caller gets its own answer.
      const names = Array.from({ length: 20 }, (_, i) => `sub/f${i}.txt`);
      const answers = await Promise.all([
        ...names.map((n) => client.readFile(readReq(n)).then((r) => Buffer.from(r.content).toString())),
        ...names.map((n) => client.stat(statReq(n)).then((r) => r.size)),
      ]);
      expect(answers.slice(0, 20)).toEqual(names.map((_, i) => `file ${i}\n`));
      expect(answers.slice(20)).toEqual(names.map((_, i) => `file ${i}\n`.length));
      const listed = await client.listDir({ path: "sub", recursive: false, maxEntries: 0 });
      expect(listed.entries.length).toBe(20);
    } finally {
      client.close();
      agent.kill("SIGKILL");
    }
  });

  it("after the agent dies a call fails as lost, and a later call reaches the agent that replaced it", async () => {
    const ws = tempDir("mux-ws-");
    writeFileSync(join(ws, "a.txt"), "one\n");
    const socket = join(tempDir("mux-sock-"), "a.sock");
    let agent = startRealAgent(ws, socket);
    const client = new AgentClient(socket, () => "test agent");
    try {
      await client.health(20_000);
      expect((await client.stat(statReq("a.txt"))).size).toBe(4);
      agent.kill("SIGKILL");
      await new Promise((r) => agent.once("exit", r));
      expect(["agent_lost", "placement_unavailable"]).toContain(await codeOf(client.stat(statReq("a.txt"))));
      agent = startRealAgent(ws, socket);
      writeFileSync(join(ws, "a.txt"), "two two\n");
      await eventually(async () => (await codeOf(client.stat(statReq("a.txt")))) === "ok", "the restarted agent answers over a new stream", 20_000);
      expect((await client.stat(statReq("a.txt"))).size).toBe(8);
    } finally {
      client.close();
      agent.kill("SIGKILL");
    }
  });
});

/** A gRPC server on a unix socket with the given services, for a stand-in agent. */
async function standIn(register: (s: Server) => void): Promise<{ socket: string; close(): void }> {
  const socket = join(tempDir("mux-standin-"), "s.sock");
  const server = new Server();
  register(server);
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${socket}`, ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())),
  );
  return { socket, close: () => server.forceShutdown() };
}

const stat = (size: number): StatResponse => ({ path: "x", type: "file", size, mode: 0o644, mtimeMs: 0 });

function statService(seen: string[]) {
  const notImplemented = (_call: unknown, cb: sendUnaryData<never>): void => cb({ code: status.UNIMPLEMENTED, details: "not here" }, null);
  const impl: UntypedServiceImplementation = {};
  for (const name of Object.keys(FilesService)) impl[name] = notImplemented;
  impl.stat = (call: ServerUnaryCall<StatRequest, StatResponse>, cb: sendUnaryData<StatResponse>): void => {
    seen.push(`unary ${call.request.path}`);
    cb(null, stat(42));
  };
  return impl;
}

/** A stat answer for call `id`, as the agent would encode it. */
const statReply = (id: number, size: number): MuxReply => ({
  id,
  outcome: { $case: "response", value: Buffer.from(FilesService.stat.responseSerialize(stat(size))) },
});

/** A stand-in agent with only the mux; `serve` is given each stream and its number (1 for the first). */
async function muxStandIn(
  serve: (stream: ServerDuplexStream<MuxRequest, MuxReply>, n: number) => void,
): Promise<{ socket: string; close(): void; streams(): number }> {
  let streams = 0;
  const agent = await standIn((s) =>
    s.addService(CallMuxService, {
      calls: (stream: ServerDuplexStream<MuxRequest, MuxReply>) => serve(stream, ++streams),
    }),
  );
  return { ...agent, streams: () => streams };
}

describe("call mux, stand-in agents", () => {
  it("an older agent without the mux is called unary, and the client remembers it", async () => {
    const seen: string[] = [];
    const agent = await standIn((s) => s.addService(FilesService, statService(seen)));
    const client = new AgentClient(agent.socket, () => "older agent");
    try {
      expect((await client.stat(statReq("x"))).size).toBe(42);
      expect((await client.stat(statReq("y"))).size).toBe(42);
      expect(seen).toEqual(["unary x", "unary y"]);
    } finally {
      client.close();
      agent.close();
    }
  });

  it("calls go over the mux when the agent has it", async () => {
    const seen: string[] = [];
    const agent = await standIn((s) => {
      s.addService(FilesService, statService(seen));
      s.addService(CallMuxService, {
        calls: (stream: ServerDuplexStream<MuxRequest, MuxReply>) => {
          stream.on("data", (req: MuxRequest) => {
            seen.push(`mux ${req.method}`);
            stream.write({ id: req.id, outcome: { $case: "response", value: Buffer.from(FilesService.stat.responseSerialize(stat(7))) } });
          });
        },
      });
    });
    const client = new AgentClient(agent.socket, () => "agent");
    try {
      expect((await client.stat(statReq("x"))).size).toBe(7);
      expect((await client.stat(statReq("y"))).size).toBe(7);
      expect(seen).toEqual(["mux /enclave.agent.v1.Files/Stat", "mux /enclave.agent.v1.Files/Stat"]);
    } finally {
      client.close();
      agent.close();
    }
  });

  it("a hostile agent answering a call never made is not believed: the calls in flight fail, the next call opens a new stream", async () => {
    const agent = await muxStandIn((stream, n) =>
      // The first stream's agent answers an id it was never sent, with a response it made up.
      stream.on("data", (req: MuxRequest) => stream.write(n === 1 ? statReply(req.id + 1000, 666) : statReply(req.id, 1))),
    );
    const client = new AgentClient(agent.socket, () => "hostile agent");
    try {
      expect(await codeOf(client.stat(statReq("x")))).toBe("agent_lost");
      expect((await client.stat(statReq("y"))).size).toBe(1);
      expect(agent.streams()).toBe(2);
    } finally {
      client.close();
      agent.close();
    }
  });

  it("a second answer to a call already answered is not believed either", async () => {
    const agent = await muxStandIn((stream, n) =>
      stream.on("data", (req: MuxRequest) => {
        stream.write(statReply(req.id, 5));
        // The first stream's agent answers every call twice.
        if (n === 1) stream.write(statReply(req.id, 5));
      }),
    );
    const client = new AgentClient(agent.socket, () => "hostile agent");
    try {
      // The first answer is the call's; the second closes the stream, and the next call opens another.
      expect((await client.stat(statReq("x"))).size).toBe(5);
      // A call sent before the second answer arrived fails with the stream, as lost.
      await eventually(async () => (await codeOf(client.stat(statReq("y")))) === "ok" && agent.streams() === 2, "a new stream after the second answer", 10_000);
    } finally {
      client.close();
      agent.close();
    }
  });

  it("an agent that stops reading its stream: a call past its deadline replaces the stream, freeing what was queued for it", async () => {
    const agent = await muxStandIn((stream, n) => {
      // The first stream's agent reads nothing: what the control plane sends stays queued on its side.
      if (n === 1) stream.pause();
      else stream.on("data", (req: MuxRequest) => stream.write(statReply(req.id, 9)));
    });
    const client = new AgentClient(agent.socket, () => "deaf agent");
    try {
      // Large enough to fill the stream's flow-control window, small enough to share the stream.
      const big = "x".repeat(900 * 1024);
      const code = await codeOf(client.lspQuery({ kind: 0, file: "", line: 0, symbol: big, query: "", timeoutMs: 0, maxResults: 0 }, 300 - 60_000));
      expect(code).toBe("timeout");
      expect((await client.stat(statReq("z"))).size).toBe(9);
      expect(agent.streams()).toBe(2);
    } finally {
      client.close();
      agent.close();
    }
  });

  it("an agent that never answers: the call fails at its deadline, a late answer is dropped, and an agent that goes away fails the call in flight", async () => {
    let late: (() => void) | undefined;
    let leave: (() => void) | undefined;
    const agent: { socket: string; close(): void } = await standIn((s) =>
      s.addService(CallMuxService, {
        calls: (stream: ServerDuplexStream<MuxRequest, MuxReply>) => {
          stream.on("data", (req: MuxRequest) => {
            if (req.method.endsWith("/Query")) {
              late = () => stream.write({ id: req.id, outcome: { $case: "response", value: Buffer.alloc(0) } });
              return;
            }
            if (req.method.endsWith("/ListDir")) {
              // The agent goes away (its server shuts down) with this call unanswered.
              leave = () => agent.close();
              return;
            }
            stream.write(statReply(req.id, 3));
          });
        },
      }),
    );
    const client = new AgentClient(agent.socket, () => "slow agent");
    try {
      // lspQuery's deadline is its timeout plus the agent-call allowance (60 s): this one is 200 ms.
      const code = await codeOf(client.lspQuery({ kind: 0, file: "", line: 0, symbol: "", query: "", timeoutMs: 0, maxResults: 0 }, 200 - 60_000));
      expect(code).toBe("timeout");
      late?.();
      // The late answer changed nothing: the same stream still serves.
      expect((await client.stat(statReq("z"))).size).toBe(3);
      const inFlight = codeOf(client.listDir({ path: "", recursive: false, maxEntries: 0 }));
      await until(() => leave !== undefined, "the listing reaches the agent", 5_000);
      leave?.();
      expect(await inFlight).toBe("agent_lost");
    } finally {
      client.close();
      agent.close();
    }
  });
});
