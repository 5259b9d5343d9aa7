// An agent that streams more output than any honest agent sends (code in an enclosure that replaced
// its agent): the control plane keeps what a call streamed until it ends, so it stops the call once
// the bound is passed, fails it as agent_lost, and holds no more — for a command (exec) and a cell
// (eval) alike. An honest agent caps a command at 16 MiB and a cell at 8 MiB of text.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Server, ServerCredentials, type ServerDuplexStream } from "@grpc/grpc-js";
import { afterAll, expect, it } from "vitest";
import { AgentClient } from "@enclave/control-plane/agent-client/agent-client.js";
import { LIMITS } from "@enclave/control-plane/limits.js";
import type { Run } from "@enclave/control-plane/model/run.js";
import { execTool } from "@enclave/control-plane/tools/builtin/exec.js";
import { runCell } from "@enclave/control-plane/tools/eval/eval-cell.js";
import type { ToolContext } from "@enclave/control-plane/tools/tool.js";
import { KernelsService, type EvalEvent, type EvalRequest } from "@enclave/proto/gen/enclave/agent/v1/kernel.js";
import { type ExecEvent, type ExecRequest, ProcessService } from "@enclave/proto/gen/enclave/agent/v1/process.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const CHUNK = Buffer.alloc(1024 * 1024, "y");

/** A stand-in agent whose Exec and Eval stream stdout until cancelled; counts what it sent. */
async function floodingAgent(): Promise<{ client: AgentClient; sent: () => number; cancelled: () => Promise<void>; close(): void }> {
  const dir = mkdtempSync(join(tmpdir(), "enclave-flood-"));
  dirs.push(dir);
  const socket = join(dir, "agent.sock");
  let sent = 0;
  let onCancel: () => void = () => undefined;
  const cancelled = new Promise<void>((resolve) => (onCancel = resolve));
  const flood = <T>(call: ServerDuplexStream<unknown, T>, event: T): void => {
    call.on("cancelled", onCancel);
    call.on("error", () => undefined);
    const more = (): void => {
      // Written as fast as the stream takes them, as a hostile agent would.
      while (!call.cancelled && sent < 4 * LIMITS.agentStreamedOutputMaxBytes) {
        sent += CHUNK.length;
        if (!call.write(event)) return void call.once("drain", more);
      }
    };
    more();
  };
  const server = new Server();
  server.addService(ProcessService, {
    exec: (call: ServerDuplexStream<ExecRequest, ExecEvent>) => call.once("data", () => flood(call, { event: { $case: "stdout", value: CHUNK } })),
  });
  server.addService(KernelsService, {
    eval: (call: ServerDuplexStream<EvalRequest, EvalEvent>) => call.once("data", () => flood(call, { event: { $case: "stdout", value: CHUNK } })),
  });
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${socket}`, ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())),
  );
  const client = new AgentClient(socket, () => "flooding agent");
  return {
    client,
    sent: () => sent,
    cancelled: () => cancelled,
    close: () => {
      client.close();
      server.forceShutdown();
    },
  };
}

function context(client: AgentClient, streamed: { bytes: number }): ToolContext {
  return {
    run: {
      id: "r-flood",
      conversationId: "flood",
      surface: "default",
      resources: ["shell", "kernel"],
      approvalPolicy: "never",
      openedAtMs: 0,
      targetSpace: "flood",
      vibeMode: false,
      questionTimeoutMs: 0,
      cli: false,
      lastUsedMs: 0,
      callsInFlight: 1,
      tenant: "local",
    } satisfies Run,
    origin: "model",
    dispatch: () => Promise.reject(new Error("no nested calls here")),
    agent: () => Promise.resolve({ placement: "enclosure", client, where: "enclosure flood" }),
    emit: (e) => {
      if (e.kind === "output") streamed.bytes += e.data.length;
    },
    signal: new AbortController().signal,
    callable: () => [],
  };
}

it("a command whose agent streams past the bound is stopped as agent_lost, and nothing past the bound is kept or passed on", async () => {
  const agent = await floodingAgent();
  try {
    const streamed = { bytes: 0 };
    const args = execTool.validate({ command: "yes" });
    if (!args.ok) throw new Error(args.error);
    await expect(execTool.invoke(args.args, context(agent.client, streamed))).rejects.toMatchObject({
      code: "agent_lost",
      message: expect.stringContaining("more than 64 MiB of output for one command"),
    });
    await agent.cancelled();
    expect(streamed.bytes).toBeLessThanOrEqual(LIMITS.agentStreamedOutputMaxBytes);
    expect(streamed.bytes).toBeGreaterThan(LIMITS.agentStreamedOutputMaxBytes - CHUNK.length * 2);
    // The agent was told to stop well before what it would have sent.
    expect(agent.sent()).toBeLessThan(4 * LIMITS.agentStreamedOutputMaxBytes);
  } finally {
    agent.close();
  }
}, 60_000);

it("a cell whose agent streams past the bound is stopped as agent_lost", async () => {
  const agent = await floodingAgent();
  try {
    const streamed = { bytes: 0 };
    const cell = runCell(
      agent.client,
      { language: "python", code: "while True: print('y' * 1000)", reset: false, timeoutSeconds: 30, bridgeSurface: undefined },
      context(agent.client, streamed),
    );
    await expect(cell).rejects.toMatchObject({ code: "agent_lost", message: expect.stringContaining("more than 64 MiB of output for one cell") });
    await agent.cancelled();
    expect(streamed.bytes).toBeLessThanOrEqual(LIMITS.agentStreamedOutputMaxBytes);
    expect(agent.sent()).toBeLessThan(4 * LIMITS.agentStreamedOutputMaxBytes);
  } finally {
    agent.close();
  }
}, 60_000);
