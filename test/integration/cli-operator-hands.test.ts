// The operator's hands from the real `enclave` CLI against a real control plane over TLS with token
// tenants (host placement): `calls list|cancel`, `kernel stop`, `host-agent stop` work with an
// operator's token and are refused (exit status 1, permission_denied) with a plain tenant's.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";
import { resultText } from "@enclave/client/control-plane-client.js";
import type { CallInFlight } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { startTenantService, type TenantService } from "../helpers/tenant-service.js";
import { eventually } from "../helpers/wait.js";

const run = promisify(execFile);
let svc: TenantService<"acme" | "ops">;

interface Out {
  stdout: string;
  stderr: string;
  code: number;
}

async function enclave(who: "acme" | "ops", args: string[]): Promise<Out> {
  const common = ["--address", svc.server.address, "--tls-ca", svc.certs.caFile, "--token", svc.tokens[who]];
  try {
    return { ...(await run(join(repoRoot, "bin", "enclave"), [...args, ...common], { timeout: 60_000 })), code: 0 };
  } catch (err) {
    const e = err as Out;
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}

beforeAll(async () => {
  svc = await startTenantService({ tenants: ["acme"], operators: ["ops"], prefix: "enclave-cli-hands-" });
}, 60_000);

afterAll(async () => {
  await svc?.close();
});

describe("the operator's hands from the CLI", () => {
  it("lists and cancels a call in flight; a plain tenant is refused", async () => {
    const acme = svc.client("acme");
    const conv = (await acme.createConversation()).id;
    const runId = (await acme.openRun(conv, { approvalPolicy: "never" })).id;
    const pending = acme.callTool(runId, "exec", { command: "exec sleep 600", timeout_seconds: 700 });
    const listed = await eventually(async () => {
      const out = await enclave("ops", ["calls", "list", "--json"]);
      return (JSON.parse(out.stdout) as CallInFlight[]).find((c) => c.runId === runId);
    }, "the call listed");
    const text = await enclave("ops", ["calls", "list", "-c", `acme.${conv}`]);
    expect(text.stdout).toMatch(new RegExp(`^${listed.callId}  exec  conversation acme\\.${conv}  tenant acme  run ${runId}  model  \\d+ s$`, "m"));

    // The CLI prints no code: its exit status, and the call left running, say it was refused.
    expect((await enclave("acme", ["calls", "list"])).code).toBe(1);
    expect((await enclave("acme", ["calls", "cancel", listed.callId])).code).toBe(1);
    expect((await svc.client("ops").listCallsInFlight()).map((c) => c.callId)).toContain(listed.callId);
    expect((await enclave("ops", ["calls", "cancel"])).code).toBe(2);

    const cancelled = await enclave("ops", ["calls", "cancel", listed.callId]);
    expect(cancelled).toMatchObject({ code: 0, stdout: `cancelled ${listed.callId} (exec in conversation acme.${conv})\n` });
    const result = await pending;
    expect(result.errorCode).toBe("cancelled");
    expect((await enclave("ops", ["calls", "cancel", listed.callId])).code).toBe(1);
  }, 60_000);

  it("stops a kernel by language and a host agent; a plain tenant is refused", async () => {
    const acme = svc.client("acme");
    const conv = (await acme.createConversation()).id;
    const runId = (await acme.openRun(conv, { approvalPolicy: "never" })).id;
    const cell = await acme.callTool(runId, "eval", { code: "x = 1", description: "keep a value in the kernel" });
    const kernelId = (cell.details as { kernel: { id: string } }).kernel.id;

    expect((await enclave("acme", ["kernel", "stop", conv, "python"])).code).toBe(1);
    expect(await svc.cp.liveKernels(`acme.${conv}`)).toEqual(["python"]);
    const stopped = await enclave("ops", ["kernel", "stop", `acme.${conv}`, "python", "--json"]);
    expect(stopped.code).toBe(0);
    expect(JSON.parse(stopped.stdout)).toMatchObject({ kernelId, language: "python" });
    expect(resultText(await acme.callTool(runId, "eval", { code: "print(1)", description: "run a cell after the stop" }))).toContain("stopped by an operator");

    const pid = svc.cp.hostAgentPid(`acme.${conv}`);
    expect((await enclave("acme", ["host-agent", "stop", conv])).code).toBe(1);
    expect(svc.cp.hostAgentPid(`acme.${conv}`)).toBe(pid);
    const agent = await enclave("ops", ["host-agent", "stop", `acme.${conv}`]);
    expect(agent).toMatchObject({ code: 0, stdout: `stopped the host agent (pid ${pid}) of conversation acme.${conv}\n` });
    expect((await enclave("ops", ["host-agent", "stop", `acme.${conv}`])).code).toBe(1);
    expect((await enclave("ops", ["host-agent", "halt", conv])).code).toBe(2);
  }, 60_000);
});
