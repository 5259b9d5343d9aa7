// The idle policy on host placement, through the real API with token tenants: a conversation left
// alone sleeps (its host agent's process gone) and its next call answers from a fresh agent and says
// what was lost; a call in flight and an open card keep it awake; a maximum lifetime puts it to sleep
// too; a tenant cannot widen its values past the operator's maxima; a restart keeps it asleep and
// wakeable; a paused tenant's every call is refused until an operator resumes it. Time is never
// waited out: the tests poll for states with a bound, or run one sweep as if the clock were later.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText, type ControlPlaneClient } from "@enclave/client/control-plane-client.js";
import type { AuditEvent, Conversation } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { HOST_AGENT_LOST, PLACEMENT_SLEPT } from "@enclave/control-plane/placement/host-agent-loss.js";
import { startTenantService, type TenantService } from "../helpers/tenant-service.js";
import { outcome } from "../helpers/call-outcome.js";
import { alive, eventually } from "../helpers/wait.js";
import { sandboxNamespace, sandboxProcesses } from "../helpers/sandbox-processes.js";

const IDLE_MAX = 600;
const LABEL = "a python cell of the idle policy test";
let svc: TenantService<"acme" | "globex" | "ops">;

beforeAll(async () => {
  svc = await startTenantService({
    tenants: ["acme", "globex"],
    operators: ["ops"],
    transport: "unix",
    prefix: "enclave-lifecycle-",
    quotas: { acme: { maxIdleSeconds: IDLE_MAX, maxLifetimeSeconds: 3600 } },
    config: (c) => {
      // The server's default stays an hour: only the conversations below ask for seconds.
      c.lifecycle.sweepMs = 100;
    },
  });
});
afterAll(async () => svc?.close());

const acme = (): ControlPlaneClient => svc.client("acme");
const key = (id: string): string => `acme.${id}`;

async function sleeping(c: ControlPlaneClient, id: string): Promise<Conversation> {
  return eventually(async () => {
    const conv = await c.getConversation(id);
    return conv.lifecycleState === "sleeping" ? conv : undefined;
  }, `conversation ${id} asleep`);
}

async function history(c: ControlPlaneClient, conversationId: string): Promise<AuditEvent[]> {
  const events: AuditEvent[] = [];
  for await (const e of c.auditEvents({ conversationId, includeHistory: true, historyOnly: true })) events.push(e);
  return events;
}

describe("a conversation on host placement", () => {
  it("sleeps when left alone (its host agent gone) and its next calls answer from a fresh agent, saying what was lost", async () => {
    const c = acme();
    const conv = await c.createConversation("idle-host", "", { lifecycle: { idleTimeoutSeconds: 1 } });
    expect(conv).toMatchObject({ lifecycleState: "active", idleTimeoutSeconds: 1, sleptAtMs: 0 });
    const run = (await c.openRun("idle-host", { approvalPolicy: "never", resources: ["workspace", "kernel"] })).id;
    const defined = await c.callTool(run, "eval", { description: LABEL, language: "python", code: "x = 41" });
    expect(defined.isError, resultText(defined)).toBe(false);
    expect((await c.callTool(run, "write", { path: "kept.txt", content: "kept\n" })).isError).toBe(false);
    const pid = svc.cp.hostAgentPid(key("idle-host"));
    expect(pid).toBeGreaterThan(0);
    // The sandbox's processes as the host's /proc shows them: the agent and its kernel, at least.
    const target = svc.cp.hostAgents.auditTarget(key("idle-host"));
    const namespace = sandboxNamespace(target?.bwrapPid ?? -1);
    expect(sandboxProcesses(namespace).length).toBeGreaterThanOrEqual(2);

    const asleep = await sleeping(c, "idle-host");
    expect(asleep.sleep).toMatchObject({ reason: "idle", mechanism: "stop", memoryKept: false, placement: "host" });
    expect(asleep.sleptAtMs).toBeGreaterThan(0);
    // No process of it is left: the agent (the sandbox's pid as the host sees it) is gone.
    expect(alive(pid as number)).toBe(false);
    expect(svc.cp.hostAgentPid(key("idle-host"))).toBeUndefined();
    // The kernel reaps what is left of the namespace a moment after its init ended.
    await eventually(
      async () => sandboxProcesses(namespace).length === 0,
      `no process left in the sandbox (${JSON.stringify(sandboxProcesses(namespace))})`,
      10_000,
    );

    const sum = await c.callTool(run, "eval", { description: LABEL, language: "python", code: "1 + 1" });
    expect(sum.isError, resultText(sum)).toBe(false);
    const text = resultText(sum);
    expect(text.startsWith(PLACEMENT_SLEPT)).toBe(true);
    expect(text).toContain("2");
    expect((await c.getConversation("idle-host")).lifecycleState).toBe("active");
    // Told once; the workspace is there; the kernel's variable is not (a fresh kernel).
    const read = await c.callTool(run, "read", { path: "kept.txt" });
    expect(read.isError).toBe(false);
    expect(resultText(read)).toContain("kept");
    expect(resultText(read)).not.toContain(PLACEMENT_SLEPT);
    const lost = await c.callTool(run, "eval", { description: LABEL, language: "python", code: "x" });
    expect(lost.errorCode).toBe("cell_error");
    const kinds = (await history(c, "idle-host")).map((e) => `${e.kind}:${e.outcome}`);
    expect(kinds).toContain("conversation_slept:idle");
    expect(kinds).toContain("conversation_woke:ok");
  });

  it("does not sleep while a call is in flight, and sleeps once it ended", async () => {
    const c = acme();
    const conv = await c.createConversation("busy-call", "", { lifecycle: { idleTimeoutSeconds: IDLE_MAX } });
    const run = (await c.openRun("busy-call", { approvalPolicy: "never", resources: ["workspace", "kernel"] })).id;
    const warm = await c.callTool(run, "eval", { description: LABEL, language: "python", code: "import os, time" });
    expect(warm.isError, resultText(warm)).toBe(false);
    // A cell that runs until the test lets it go.
    const call = c.callTool(run, "eval", {
      description: LABEL,
      language: "python",
      code: "while not os.path.exists('go'): time.sleep(0.02)\n'done'",
    });
    await eventually(async () => svc.cp.sweeper.callsInFlight(key("busy-call")) > 0, "the call in flight");
    // As if the idle timeout and far more had passed: a call in flight keeps it awake.
    await svc.cp.sweeper.sweep(Date.now() + 10 * IDLE_MAX * 1000);
    expect((await c.getConversation("busy-call")).lifecycleState).toBe("active");
    writeFileSync(join(conv.workspacePath || svc.cp.getConversation(key("busy-call")).workspacePath, "go"), "");
    const done = await call;
    expect(done.isError, resultText(done)).toBe(false);
    expect(resultText(done)).toContain("done");
    await svc.cp.sweeper.sweep(Date.now() + 10 * IDLE_MAX * 1000);
    expect((await c.getConversation("busy-call")).sleep?.reason).toBe("idle");
  });

  it("does not sleep while a card is open, and sleeps once it was answered", async () => {
    const c = acme();
    await c.createConversation("busy-card", "", { lifecycle: { idleTimeoutSeconds: IDLE_MAX } });
    const free = (await c.openRun("busy-card", { approvalPolicy: "never", resources: ["workspace", "kernel"] })).id;
    expect((await c.callTool(free, "eval", { description: LABEL, language: "python", code: "1" })).isError).toBe(false);
    const run = (await c.openRun("busy-card", { approvalPolicy: "write", resources: ["workspace"], questionTimeoutSeconds: 600 })).id;
    const human = c.subscribeCards("busy-card", () => undefined);
    await human.ready;
    try {
      const asking = c.callTool(run, "write", { path: "asked.txt", content: "asked\n" });
      const card = await eventually(async () => (await c.listCards("busy-card"))[0], "the permission card");
      await svc.cp.sweeper.sweep(Date.now() + 10 * IDLE_MAX * 1000);
      expect((await c.getConversation("busy-card")).lifecycleState).toBe("active");
      expect(svc.cp.hostAgentPid(key("busy-card"))).toBeGreaterThan(0);
      // The first option allows the write.
      await c.answerCard("busy-card", card.number, { selected: [card.options[0]?.label ?? ""] });
      const written = await asking;
      expect(written.isError, resultText(written)).toBe(false);
      await svc.cp.sweeper.sweep(Date.now() + 10 * IDLE_MAX * 1000);
      expect((await c.getConversation("busy-card")).lifecycleState).toBe("sleeping");
    } finally {
      human.cancel();
    }
  });

  it("does not sleep while a debug session is stopped at a breakpoint, and sleeps once it ran on", async () => {
    const c = acme();
    await c.createConversation("busy-debug", "", { lifecycle: { idleTimeoutSeconds: IDLE_MAX } });
    const run = (await c.openRun("busy-debug", { approvalPolicy: "never", resources: ["workspace", "debug"] })).id;
    expect((await c.callTool(run, "write", { path: "pyproject.toml", content: "[project]\nname = 'stop'\n" })).isError).toBe(false);
    expect((await c.callTool(run, "write", { path: "stop.py", content: "x = 1\ny = x + 1\nprint(y)\n" })).isError).toBe(false);
    expect((await c.callTool(run, "debug", { op: "breakpoints", file: "stop.py", lines: [2] })).isError).toBe(false);
    const launched = await c.callTool(run, "debug", { op: "launch", program: "stop.py" });
    expect(launched.isError, resultText(launched)).toBe(false);
    await eventually(async () => {
      const status = (await c.callTool(run, "debug", { op: "status" })).details as { session?: { state?: string } } | undefined;
      return status?.session?.state === "stopped";
    }, "the session stopped at the breakpoint");
    // No call in flight, no card: only the stopped session keeps it awake.
    expect(svc.cp.sweeper.callsInFlight(key("busy-debug"))).toBe(0);
    await svc.cp.sweeper.sweep(Date.now() + 10 * IDLE_MAX * 1000);
    expect((await c.getConversation("busy-debug")).lifecycleState).toBe("active");
    expect((await c.callTool(run, "debug", { op: "continue" })).isError).toBe(false);
    await eventually(async () => {
      await svc.cp.sweeper.sweep(Date.now() + 10 * IDLE_MAX * 1000);
      return (await c.getConversation("busy-debug")).lifecycleState === "sleeping";
    }, "busy-debug asleep once the program ran on");
  });

  it("sleeps at its maximum lifetime, busy or idle, and says which", async () => {
    const c = acme();
    await c.createConversation("lifetime", "", { lifecycle: { idleTimeoutSeconds: IDLE_MAX, maxLifetimeSeconds: 1 } });
    const run = (await c.openRun("lifetime", { approvalPolicy: "never", resources: ["workspace", "kernel"] })).id;
    expect((await c.callTool(run, "eval", { description: LABEL, language: "python", code: "1" })).isError).toBe(false);
    const asleep = await sleeping(c, "lifetime");
    expect(asleep.sleep?.reason).toBe("max_lifetime");
    expect((await history(c, "lifetime")).some((e) => e.kind === "conversation_slept" && e.outcome === "max_lifetime")).toBe(true);
  });

  it("refuses values past the tenant's maxima, naming the quota; within them they are kept", async () => {
    const c = acme();
    const wide = await outcome(c.createConversation("too-idle", "", { lifecycle: { idleTimeoutSeconds: IDLE_MAX + 1 } }));
    expect(wide.code).toBe("invalid_arguments");
    expect(wide.message).toContain("maxIdleSeconds");
    await expect(c.getConversation("too-idle").catch((e: { code: string }) => e.code)).resolves.toBe("not_found");
    await c.createConversation("set-later");
    expect((await outcome(c.setConversationLifecycle("set-later", { maxLifetimeSeconds: 3601 }))).code).toBe("invalid_arguments");
    expect((await outcome(c.setConversationLifecycle("set-later", { idleTimeoutSeconds: -5 }))).code).toBe("invalid_arguments");
    const set = await c.setConversationLifecycle("set-later", { idleTimeoutSeconds: IDLE_MAX, maxLifetimeSeconds: 3600 });
    expect(set).toMatchObject({ idleTimeoutSeconds: IDLE_MAX, maxLifetimeSeconds: 3600 });
    // Back to the server's defaults (an hour idle).
    expect(await c.setConversationLifecycle("set-later", {})).toMatchObject({ idleTimeoutSeconds: 3600 });
  });

  it("stays asleep across a control-plane restart and wakes on its next call", async () => {
    let c = acme();
    await c.createConversation("restart-asleep", "", { lifecycle: { idleTimeoutSeconds: 1 } });
    let run = (await c.openRun("restart-asleep", { approvalPolicy: "never", resources: ["workspace", "kernel"] })).id;
    expect((await c.callTool(run, "write", { path: "before.txt", content: "before\n" })).isError).toBe(false);
    await sleeping(c, "restart-asleep");
    await svc.restart({ deleteConversations: false });
    c = acme();
    const after = await c.getConversation("restart-asleep");
    expect(after.lifecycleState).toBe("sleeping");
    expect(after.sleep?.reason).toBe("idle");
    run = (await c.openRun("restart-asleep", { approvalPolicy: "never", resources: ["workspace", "kernel"] })).id;
    const sum = await c.callTool(run, "eval", { description: LABEL, language: "python", code: "20 + 22" });
    expect(sum.isError, resultText(sum)).toBe(false);
    expect(resultText(sum).startsWith(PLACEMENT_SLEPT)).toBe(true);
    expect(resultText(sum)).not.toContain(HOST_AGENT_LOST);
    expect(resultText(sum)).toContain("42");
    expect(resultText(await c.callTool(run, "read", { path: "before.txt" }))).toContain("before");
  });
});

describe("a paused tenant", () => {
  it("is refused every call with tenant_paused, its placements asleep, until an operator resumes it; a plain tenant cannot pause", async () => {
    const c = acme();
    await c.createConversation("paused-work");
    const run = (await c.openRun("paused-work", { approvalPolicy: "never", resources: ["workspace", "kernel"] })).id;
    expect((await c.callTool(run, "write", { path: "w.txt", content: "w\n" })).isError).toBe(false);
    const pid = svc.cp.hostAgentPid(key("paused-work"));
    expect(pid).toBeGreaterThan(0);

    // A plain tenant's token is refused the operator's action, for another tenant and for itself.
    expect((await outcome(svc.client("globex").pauseTenant("acme"))).code).toBe("permission_denied");
    expect((await outcome(c.pauseTenant("acme"))).code).toBe("permission_denied");
    const ops = svc.client("ops");
    expect((await outcome(ops.pauseTenant("nobody"))).code).toBe("not_found");
    expect((await outcome(ops.pauseTenant("ops"))).code).toBe("invalid_arguments");

    // A stream the tenant holds open ends with the pause.
    const watching = c.subscribeCards("paused-work", () => undefined);
    await watching.ready;
    const paused = await ops.pauseTenant("acme", { reason: "invoice overdue" });
    expect((await outcome(watching.done)).code).toBe("tenant_paused");
    expect(paused).toMatchObject({ tenant: "acme", paused: true, pausedBy: "ops", reason: "invoice overdue" });
    expect(paused.slept).toContain("acme.paused-work");
    expect(alive(pid as number)).toBe(false);

    for (const refused of [
      () => c.getConversation("paused-work"),
      () => c.listConversations(),
      () => c.callTool(run, "read", { path: "w.txt" }),
      () => c.createConversation("while-paused"),
    ]) {
      expect((await outcome(refused())).code).toBe("tenant_paused");
    }
    // Another tenant is not touched; an operator sees the paused tenant's conversation asleep.
    expect((await svc.client("globex").listConversations()).length).toBeGreaterThanOrEqual(0);
    expect((await ops.getConversation("acme.paused-work")).sleep?.reason).toBe("tenant_paused");

    const resumed = await ops.resumeTenant("acme");
    expect(resumed).toMatchObject({ tenant: "acme", paused: false });
    const read = await c.callTool(run, "read", { path: "w.txt" });
    expect(read.isError, resultText(read)).toBe(false);
    expect(resultText(read)).toContain(PLACEMENT_SLEPT);
    expect((await c.getConversation("paused-work")).lifecycleState).toBe("active");

    const events = await history(ops, "");
    const pauseEvent = events.find((e) => e.kind === "tenant_paused" && e.tenant === "acme");
    expect(pauseEvent?.detail).toContain("ops");
    expect(events.some((e) => e.kind === "tenant_resumed" && e.tenant === "acme" && e.detail.includes("ops"))).toBe(true);
    expect(events.some((e) => e.kind === "call_refused" && e.outcome === "refused:permission_denied")).toBe(true);
    expect(existsSync(svc.cp.getConversation(key("paused-work")).workspacePath)).toBe(true);
  });
});
