// The operator's hands through the real API over TLS with token tenants and host placement: an
// operator cancels a tenant's long exec call (its process leaves /proc, the caller is told), stops a
// kernel (its process leaves /proc, the next eval says so) and stops a host agent (the next call says
// so). A plain tenant is refused each, and cannot even list the calls in flight to guess at another
// tenant's ids. Each action is in the audit log with the operator's tenant and token.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import type { AuditEvent } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { outcome } from "../helpers/call-outcome.js";
import { startTenantService, type TenantService } from "../helpers/tenant-service.js";
import { eventually, until } from "../helpers/wait.js";

let svc: TenantService<"acme" | "globex" | "ops">;

/** Whether the process is in /proc and not a zombie (signal 0 cannot tell: the sandbox runs as other uids). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Host pids whose command name (/proc/PID/comm) is `name`. */
function pidsNamed(name: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() === name) out.push(Number(entry));
    } catch {
      // Gone while read.
    }
  }
  return out;
}

/** Host pids whose command line has `arg` as one of its arguments. */
function pidsWithArg(arg: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").includes(arg)) out.push(Number(entry));
    } catch {
      // Gone while read.
    }
  }
  return out;
}

async function operatorActions(who: "acme" | "ops", action: string): Promise<AuditEvent[]> {
  const events: AuditEvent[] = [];
  await svc.client(who).subscribeAudit({ includeHistory: true, historyOnly: true }, (e) => events.push(e)).done;
  return events.filter((e) => e.kind === "operator_action" && e.tool === action);
}

beforeAll(async () => {
  svc = await startTenantService({
    tenants: ["acme", "globex"],
    operators: ["ops"],
    prefix: "enclave-operator-hands-",
    config: (c, dir) => {
      // A tool that ignores its cancel: the operator's cancel must still answer its caller.
      const tools = join(dir, "custom-tools");
      mkdirSync(tools);
      writeFileSync(
        join(tools, "stubborn.mjs"),
        `export default (pi) => ({ name: "stubborn_wait", label: "Stubborn", description: "waits a minute whatever happens", parameters: pi.typebox.Type.Object({}), execute: () => new Promise((r) => setTimeout(() => r({ content: [{ type: "text", text: "done" }] }), 60000)) });\n`,
      );
      c.customToolsDir = tools;
    },
  });
}, 60_000);

afterAll(async () => {
  await svc?.close();
});

describe("the operator's hands over the API", () => {
  it("cancels a tenant's long exec call: its process is killed, the caller gets `cancelled`; no other tenant can list or cancel it", async () => {
    const acme = svc.client("acme");
    const conv = (await acme.createConversation()).id;
    const run = (await acme.openRun(conv, { approvalPolicy: "never" })).id;
    const marker = String(31_000 + Math.floor(Math.random() * 9_000));
    const pending = acme.callTool(run, "exec", { command: `exec sleep ${marker}`, timeout_seconds: 600 });
    const sleeper = await until(() => pidsWithArg(marker)[0], "the sleep process");
    const ops = svc.client("ops");
    const call = await eventually(async () => (await ops.listCallsInFlight()).find((c) => c.tool === "exec" && c.runId === run), "the call in flight");
    expect(call).toMatchObject({ tenant: "acme", conversationId: `acme.${conv}`, origin: "model" });
    expect(Number(call.startedAtMs)).toBeGreaterThan(0);
    // Filtered by conversation, the operator names it as its tenant's key.
    expect((await ops.listCallsInFlight(`acme.${conv}`)).map((c) => c.callId)).toEqual([call.callId]);

    // The attack: another tenant sees nothing in flight and cannot cancel by a guessed (or the real) id.
    const globex = svc.client("globex");
    await expect(outcome(globex.listCallsInFlight())).resolves.toMatchObject({ code: "permission_denied" });
    for (const guess of [call.callId, String(Number(call.callId) + 1), "1"]) {
      await expect(outcome(globex.cancelCall(guess))).resolves.toMatchObject({ code: "permission_denied" });
    }
    // Nor may the call's own tenant use the operator's cancel (it cancels through its own session).
    await expect(outcome(acme.cancelCall(call.callId))).resolves.toMatchObject({ code: "permission_denied" });
    expect(alive(sleeper)).toBe(true);

    const cancelled = await ops.cancelCall(call.callId);
    expect(cancelled).toMatchObject({ callId: call.callId, tenant: "acme", tool: "exec" });
    const result = await pending;
    expect(result).toMatchObject({ isError: true, errorCode: "cancelled" });
    expect(resultText(result)).toContain("cancelled by tenant ops (token");
    await until(() => !alive(sleeper) && pidsWithArg(marker).length === 0, "the sleep process gone");
    // Ended: no longer in flight, and a second cancel says so.
    expect((await ops.listCallsInFlight()).find((c) => c.callId === call.callId)).toBeUndefined();
    await expect(outcome(ops.cancelCall(call.callId))).resolves.toMatchObject({ code: "not_found" });
    await expect(outcome(ops.cancelCall("not-an-id"))).resolves.toMatchObject({ code: "invalid_arguments" });

    // Audited with who did it, and the tenant reads it in its own history.
    const [event] = await operatorActions("ops", "cancel_call");
    expect(event).toMatchObject({ tenant: "acme", conversationId: `acme.${conv}`, outcome: "ok" });
    expect(event?.detail).toMatch(/^by tenant ops \(token [0-9a-f]{8}\): cancelled call \d+ \(exec/);
    expect((await operatorActions("acme", "cancel_call")).length).toBe(1);
    const refusals: AuditEvent[] = [];
    await ops.subscribeAudit({ includeHistory: true, historyOnly: true }, (e) => refusals.push(e)).done;
    expect(refusals.some((e) => e.kind === "call_refused" && e.tenant === "globex" && e.outcome === "refused:permission_denied")).toBe(true);
  }, 60_000);

  it("answers `cancelled` within the grace when the cancelled tool does not stop", async () => {
    const acme = svc.client("acme");
    const ops = svc.client("ops");
    const conv = (await acme.createConversation()).id;
    const run = (await acme.openRun(conv, { approvalPolicy: "never" })).id;
    const pending = acme.callTool(run, "stubborn_wait", {});
    const call = await eventually(async () => (await ops.listCallsInFlight(`acme.${conv}`)).find((c) => c.tool === "stubborn_wait"), "the call in flight");
    const asked = Date.now();
    await ops.cancelCall(call.callId);
    const result = await pending;
    expect(Date.now() - asked).toBeLessThan(20_000);
    expect(result).toMatchObject({ isError: true, errorCode: "cancelled" });
    expect(resultText(result)).toMatch(
      /^\[the `stubborn_wait` call was cancelled by tenant ops \(token [0-9a-f]{8}\); it did not stop within 5 s and is answered now\]/,
    );
    const calls: AuditEvent[] = [];
    await ops.subscribeAudit({ conversationId: `acme.${conv}`, includeHistory: true, historyOnly: true }, (e) => calls.push(e)).done;
    const recorded = calls.filter((e) => e.kind === "tool_call" && e.tool === "stubborn_wait");
    expect(recorded.map((e) => e.outcome)).toEqual(["error:cancelled"]);
    expect(recorded[0]?.detail).toMatch(/^cancelled by tenant ops \(token [0-9a-f]{8}\); it did not stop within \d+ ms$/);
  }, 60_000);

  it("stops a kernel: its process is gone and the next eval says an operator stopped it", async () => {
    const acme = svc.client("acme");
    const ops = svc.client("ops");
    const conv = (await acme.createConversation()).id;
    const run = (await acme.openRun(conv, { approvalPolicy: "never" })).id;
    const name = `krn${Math.floor(Math.random() * 1e6)}`;
    const first = await acme.callTool(run, "eval", {
      code: `open('/proc/self/comm', 'w').write('${name}')\nkept = 41\nkept + 1`,
      description: "name the kernel process and keep a value",
    });
    expect(first.isError).toBe(false);
    const kernelId = (first.details as { kernel: { id: string } }).kernel.id;
    const [pid] = pidsNamed(name);
    expect(pid).toBeGreaterThan(0);

    await expect(outcome(svc.client("globex").stopKernel(`acme.${conv}`, { kernelId }))).resolves.toMatchObject({ code: "permission_denied" });
    await expect(outcome(acme.stopKernel(conv, { kernelId }))).resolves.toMatchObject({ code: "permission_denied" });
    await expect(outcome(ops.stopKernel(`acme.${conv}`, { kernelId: "k-nope" }))).resolves.toMatchObject({ code: "not_found" });
    await expect(outcome(ops.stopKernel(`acme.${conv}`, {}))).resolves.toMatchObject({ code: "invalid_arguments" });
    await expect(outcome(ops.stopKernel(`acme.${conv}`, { language: "ruby" }))).resolves.toMatchObject({ code: "invalid_arguments" });

    const stopped = await ops.stopKernel(`acme.${conv}`, { kernelId });
    expect(stopped).toMatchObject({ kernelId, language: "python" });
    await until(() => !alive(pid as number) && pidsNamed(name).length === 0, "the kernel process gone");

    const next = await acme.callTool(run, "eval", { code: "print('kept' in globals())", description: "check whether the kept value survived" });
    expect(next.isError).toBe(false);
    const text = resultText(next);
    expect(text).toContain(`the previous python kernel (${kernelId}) was stopped by an operator (tenant ops (token`);
    expect(text).toContain("its state was lost");
    expect(text).toContain("False");
    expect((next.details as { kernel: { previous_fate: string | null } }).kernel.previous_fate).toContain("stopped by an operator");

    const [event] = await operatorActions("ops", "stop_kernel");
    expect(event?.detail).toContain(`stopped the python kernel ${kernelId}`);
    expect(event?.tenant).toBe("acme");
  }, 90_000);

  it("stops a kernel while a cell runs in it: the cell ends with kernel_died, saying an operator stopped it", async () => {
    const acme = svc.client("acme");
    const ops = svc.client("ops");
    const conv = (await acme.createConversation()).id;
    const run = (await acme.openRun(conv, { approvalPolicy: "never" })).id;
    expect((await acme.callTool(run, "eval", { code: "started = True", description: "start the kernel before the long cell" })).isError).toBe(false);
    const pending = acme.callTool(run, "eval", { code: "import time\ntime.sleep(120)", description: "sleep long enough to be stopped", timeout_seconds: 300 });
    await eventually(async () => (await ops.listCallsInFlight(`acme.${conv}`)).some((c) => c.tool === "eval"), "the cell in flight");
    await new Promise((r) => setTimeout(r, 500));
    await ops.stopKernel(`acme.${conv}`, { language: "python" });
    const result = await pending;
    expect(result.errorCode).toBe("kernel_died");
    expect(resultText(result)).toContain("died during the cell: it was stopped by an operator (tenant ops (token");
  }, 60_000);

  it("stops a kernel in an enclosure the same way", async () => {
    const acme = svc.client("acme");
    const ops = svc.client("ops");
    const conv = (await acme.createConversation()).id;
    await acme.startEnclosure(conv);
    try {
      const run = (await acme.openRun(conv, { approvalPolicy: "never" })).id;
      const name = `enk${Math.floor(Math.random() * 1e6)}`;
      const first = await acme.callTool(run, "eval", {
        code: `open('/proc/self/comm', 'w').write('${name}')`,
        description: "name the kernel process in the enclosure",
      });
      expect(first.isError).toBe(false);
      const kernelId = (first.details as { kernel: { id: string } }).kernel.id;
      const [pid] = pidsNamed(name);
      expect(pid).toBeGreaterThan(0);
      await expect(outcome(svc.client("globex").stopKernel(`acme.${conv}`, { language: "python" }))).resolves.toMatchObject({ code: "permission_denied" });
      // StopHostAgent is not for an enclosure's agent.
      await expect(outcome(ops.stopHostAgent(`acme.${conv}`))).resolves.toMatchObject({ code: "failed_precondition" });
      expect(await ops.stopKernel(`acme.${conv}`, { language: "python" })).toMatchObject({ kernelId, language: "python" });
      await until(() => !alive(pid as number) && pidsNamed(name).length === 0, "the enclosure's kernel process gone");
      const next = await acme.callTool(run, "eval", { code: "print(2)", description: "run a cell after the stop" });
      expect(resultText(next)).toContain(`the previous python kernel (${kernelId}) was stopped by an operator (tenant ops (token`);
    } finally {
      await acme.stopEnclosure(conv);
    }
  }, 180_000);

  it("stops a host agent: its process is gone and the next call says an operator stopped it", async () => {
    const acme = svc.client("acme");
    const ops = svc.client("ops");
    const conv = (await acme.createConversation()).id;
    const run = (await acme.openRun(conv, { approvalPolicy: "never" })).id;
    expect((await acme.callTool(run, "exec", { command: "true" })).isError).toBe(false);
    const pid = svc.cp.hostAgentPid(`acme.${conv}`);
    expect(pid).toBeGreaterThan(0);

    await expect(outcome(svc.client("globex").stopHostAgent(`acme.${conv}`))).resolves.toMatchObject({ code: "permission_denied" });
    await expect(outcome(acme.stopHostAgent(conv))).resolves.toMatchObject({ code: "permission_denied" });
    expect(svc.cp.hostAgentPid(`acme.${conv}`)).toBe(pid);

    expect(await ops.stopHostAgent(`acme.${conv}`)).toBe(pid);
    expect(svc.cp.hostAgentPid(`acme.${conv}`)).toBeUndefined();
    await until(() => !alive(pid as number), "the host agent gone");
    // Stopped already: nothing runs to stop.
    await expect(outcome(ops.stopHostAgent(`acme.${conv}`))).resolves.toMatchObject({ code: "failed_precondition" });

    const next = await acme.callTool(run, "exec", { command: "echo again" });
    expect(next.isError).toBe(false);
    expect(resultText(next)).toMatch(/^host_agent_lost: an operator \(tenant ops \(token [0-9a-f]{8}\)\) stopped this conversation's host agent/);
    expect(resultText(next)).toContain("again");
    // Said once.
    expect(resultText(await acme.callTool(run, "exec", { command: "true" }))).not.toContain("host_agent_lost");

    const [event] = await operatorActions("ops", "stop_host_agent");
    expect(event).toMatchObject({ tenant: "acme", conversationId: `acme.${conv}` });
    expect(event?.detail).toContain(`stopped the host agent (pid ${pid})`);
  }, 90_000);

  it("audits an operator's close of another tenant's run and delete of its conversation with who did it", async () => {
    const acme = svc.client("acme");
    const ops = svc.client("ops");
    const conv = (await acme.createConversation()).id;
    const run = (await acme.openRun(conv, { approvalPolicy: "never" })).id;
    await ops.closeRun(run);
    await ops.deleteConversation(`acme.${conv}`);
    expect((await operatorActions("ops", "close_run")).find((e) => e.detail.includes(run))?.detail).toMatch(/^by tenant ops \(token [0-9a-f]{8}\): closed run/);
    expect((await operatorActions("acme", "delete_conversation")).some((e) => e.conversationId === conv)).toBe(true);
  }, 30_000);
});
