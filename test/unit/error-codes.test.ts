// Failures are told apart by their codes across every boundary: the agent's gRPC (a real server
// with the agent's own handler wrappers, and the control plane's real AgentClient), the control-plane
// API (a real control plane and the Node client), the CLI (the built binary) and the debug tool's
// text. Every case runs with ENCLAVE_REWORD_ERRORS=1, which rewrites every EnclaveError and
// AgentError message: a branch that read the text would take the other way here.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Metadata, Server, ServerCredentials, type ServiceError, status } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AgentClient } from "@enclave/control-plane/agent-client/agent-client.js";
import { ControlPlaneCallError, ControlPlaneClient, ControlPlaneUnreachable } from "@enclave/client/control-plane-client.js";
import type { EnclaveErrorCode } from "@enclave/control-plane/errors.js";
import { formatStatus } from "@enclave/control-plane/tools/debug/debug-format.js";
import { AgentError, type AgentErrorCode } from "@enclave/agent/errors.js";
import { processService } from "@enclave/agent/exec/exec-service.js";
import { WorkspacePaths } from "@enclave/agent/fs/workspace-paths.js";
import { unary } from "@enclave/agent/grpc/unary.js";
import { DebugEndKind, type DebugStatus } from "@enclave/proto/gen/enclave/agent/v1/debug.js";
import { AgentInfoService, type HealthResponse } from "@enclave/proto/gen/enclave/agent/v1/info.js";
import { ProcessService } from "@enclave/proto/gen/enclave/agent/v1/process.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";

const exec = promisify(execFile);
const REWORDED = /^\[reworded\] /;

beforeAll(() => {
  vi.stubEnv("ENCLAVE_REWORD_ERRORS", "1");
});
afterAll(() => {
  vi.unstubAllEnvs();
});

describe("agent errors reach the control plane as codes", () => {
  const dir = mkdtempSync(join(tmpdir(), "enclave-codes-"));
  const socket = join(dir, "agent.sock");
  const server = new Server();
  let client: AgentClient;
  // What the next Health call throws.
  let next: () => unknown = () => undefined;

  beforeAll(async () => {
    server.addService(AgentInfoService, {
      health: unary<unknown, HealthResponse>(async () => {
        throw next();
      }),
    } as never);
    server.addService(ProcessService, processService(new WorkspacePaths(dir)) as never);
    await new Promise<void>((resolve, reject) =>
      server.bindAsync(`unix://${socket}`, ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())),
    );
    client = new AgentClient(socket, () => "the test agent");
  });
  afterAll(async () => {
    client.close();
    await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  const cases: [AgentErrorCode, EnclaveErrorCode][] = [
    ["invalid_argument", "invalid_arguments"],
    ["outside_workspace", "outside_workspace"],
    ["not_found", "not_found"],
    ["already_exists", "already_exists"],
    ["failed_precondition", "failed_precondition"],
    ["too_large", "too_large"],
    ["unavailable", "placement_unavailable"],
    ["stopping", "agent_lost"],
    ["internal", "failed"],
    ["lsp_timeout", "lsp_timeout"],
    ["lsp_server_dead", "lsp_server_dead"],
    ["lsp_server_error", "lsp_server_error"],
    ["lsp_state_changed", "lsp_state_changed"],
    ["lsp_no_server", "lsp_no_server"],
  ];

  it.each(cases)("the agent's %s is the control plane's %s", async (agentCode, expected) => {
    next = () => new AgentError(agentCode, `what happened (${agentCode})`);
    const err = await client.health().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ name: "EnclaveError", code: expected });
    expect((err as Error).message).toMatch(/reworded/);
  });

  it("an agent's own failure that mentions a connection is not a lost agent", async () => {
    // The text used to decide: INTERNAL mentioning "connection" or "stream" read as the agent gone.
    vi.stubEnv("ENCLAVE_REWORD_ERRORS", "0");
    try {
      next = () => new Error("the connection pool's stream table is corrupt");
      await expect(client.health()).rejects.toMatchObject({ code: "failed" });
    } finally {
      vi.stubEnv("ENCLAVE_REWORD_ERRORS", "1");
    }
  });

  it("a streaming call's failure carries the code too", async () => {
    const call = client.exec(10_000);
    const failed = new Promise<ServiceError>((resolve) => call.on("error", resolve));
    call.on("data", () => undefined);
    call.write({ message: { $case: "start", value: { argv: [], shellCommand: "", cwd: "", env: {}, timeoutMs: 0 } } });
    const err = client.translate(await failed);
    expect(err.code).toBe("invalid_arguments");
    expect(err.message).toMatch(REWORDED);
  });

  it("a failure gRPC made itself (no agent code) says what gRPC said", () => {
    const bare = (code: status): ServiceError => Object.assign(new Error("x"), { code, details: "Received RST_STREAM with code 2", metadata: new Metadata() });
    expect(client.translate(bare(status.INTERNAL)).code).toBe("agent_lost");
    expect(client.translate(bare(status.UNAVAILABLE)).code).toBe("agent_lost");
    expect(client.translate(bare(status.DEADLINE_EXCEEDED)).code).toBe("timeout");
    expect(client.translate(bare(status.RESOURCE_EXHAUSTED)).code).toBe("too_large");
  });
});

describe("the control-plane API keeps its status and code for the Node client and the CLI", () => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await startFixture();
  });
  afterAll(async () => {
    await fx?.close();
  });

  it("a missing conversation is NOT_FOUND with code not_found, whatever its words", async () => {
    const err = await fx.client.getConversation("no-such-conversation").then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ControlPlaneCallError);
    expect(err).toMatchObject({ grpcCode: status.NOT_FOUND, code: "not_found", message: expect.stringMatching(REWORDED) });
  });

  it("no control plane at the address is unreachable, told by the missing code", async () => {
    const nowhere = new ControlPlaneClient(`unix://${join(fx.dataDir, "nobody.sock")}`);
    try {
      await expect(nowhere.listConversations()).rejects.toBeInstanceOf(ControlPlaneUnreachable);
    } finally {
      nowhere.close();
    }
  });

  it("the CLI creates a conversation it does not find (on NOT_FOUND, not on the words)", async () => {
    const cli = join(import.meta.dirname, "../../control-plane/dist/src/cli/main.js");
    const address = fx.client.address;
    const { stdout } = await exec(process.execPath, [cli, "tools", "list", "--address", address, "-c", "fresh-conversation"], { timeout: 60_000 });
    expect(stdout).toMatch(/^read\s/m);
    expect(fx.cp.listConversations().map((c) => c.id)).toContain("fresh-conversation");
  });
});

describe("the debug tool's text follows how a session ended, not its words", () => {
  const ended = (kind: DebugEndKind, reason: string): DebugStatus => ({
    active: false,
    sessionId: "s-1",
    adapter: "debugpy",
    program: "app.py",
    state: "exited",
    stopped: undefined,
    hasExitCode: true,
    exitCode: 3,
    startedAtMs: 0,
    expiresAtMs: 0,
    endedReason: reason,
    interpreter: "",
    notes: [],
    breakpoints: [],
    endedKind: kind,
  });

  it("a program's end says its exit code once, however it is worded", async () => {
    const text = formatStatus(ended(DebugEndKind.DEBUG_END_KIND_PROGRAM_ENDED, "[reworded] 3 edoc htiw detixe margorp eht"));
    await expectTranscript(text, "transcripts/error-codes/program-ended.txt");
  });

  it("any other end adds the exit code, even when its words mention exiting", async () => {
    const text = formatStatus(ended(DebugEndKind.DEBUG_END_KIND_TERMINATED, "terminated on request before it could exit"));
    await expectTranscript(text, "transcripts/error-codes/terminated.txt");
  });
});
