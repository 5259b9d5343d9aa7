// The idle policy in an enclosure, under every runtime the engine has registered: a conversation
// left alone sleeps. Under runc its container is gone from the engine (no process of it left), its
// options kept in its record, and its next call answers from a new enclosure with the same image and
// options, saying what was lost; the workspace is there. Under runsc it is paused with its memory
// (checkpointed, not running) and its next call answers from the same kernel.
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import type { Conversation } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { PLACEMENT_SLEPT } from "@enclave/control-plane/placement/host-agent-loss.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { TEST_RUNTIMES } from "../helpers/runtimes.js";
import { eventually } from "../helpers/wait.js";
import { startTenantService, type TenantService } from "../helpers/tenant-service.js";
import { outcome } from "../helpers/call-outcome.js";

const LABEL = "a python cell of the idle policy test";
const MEMORY = 768 * 1024 ** 2;

function registered(runtime: string): boolean {
  const runtimes = JSON.parse(execFileSync("docker", ["info", "--format", "{{json .Runtimes}}"], { encoding: "utf8" })) as Record<string, unknown>;
  return Object.hasOwn(runtimes, runtime);
}

/** Whether the engine still has the container, running or not. */
function containerExists(id: string): boolean {
  return execFileSync("docker", ["ps", "-aq", "--no-trunc", "--filter", `id=${id}`], { encoding: "utf8" }).trim() !== "";
}

/** Whether the engine runs the container now (a paused one exists, stopped). */
function containerRunning(id: string): boolean {
  return execFileSync("docker", ["inspect", "--format", "{{.State.Running}}", id], { encoding: "utf8" }).trim() === "true";
}

describe.each(TEST_RUNTIMES)("an enclosure under %s", (runtime) => {
  let fx: Fixture;
  const skip = !registered(runtime);

  beforeAll(async () => {
    if (skip) return;
    fx = await startFixture((c) => {
      c.lifecycle.sweepMs = 100;
    });
  });
  afterAll(async () => fx?.close());

  it.skipIf(skip)("sleeps when left alone (its container gone) and its next call answers from a new enclosure with the same options", async () => {
    const id = `idle-${runtime}`;
    await fx.client.createConversation(id, "", { lifecycle: { idleTimeoutSeconds: 1 } });
    const started = await fx.client.startEnclosure(id, { runtime, memoryBytes: MEMORY, workspaceMode: "copy" });
    const before = started.enclosure;
    expect(before?.state).toBe("running");
    const run = (await fx.client.openRun(id, { approvalPolicy: "never", resources: ["workspace", "kernel"] })).id;
    expect((await fx.client.callTool(run, "write", { path: "kept.txt", content: "kept\n" })).isError).toBe(false);
    const defined = await fx.client.callTool(run, "eval", { description: LABEL, language: "python", code: "x = 41" });
    expect(defined.isError, resultText(defined)).toBe(false);

    const asleep: Conversation = await eventually(async () => {
      const c = await fx.client.getConversation(id);
      return c.lifecycleState === "sleeping" ? c : undefined;
    }, `${id} asleep`);
    expect(asleep.placement).toBe("enclosure");
    // Its options are in the record, for the wake.
    expect(fx.cp.getConversation(id).lifecycle?.sleep?.enclosure?.request).toMatchObject({ runtime, memoryBytes: MEMORY, workspaceMode: "copy" });

    if (runtime === "runsc") {
      // gVisor keeps the memory: the enclosure is paused (checkpointed), no process of it runs, and
      // the next call resumes it with its kernel's variables.
      expect(asleep.sleep).toMatchObject({ reason: "idle", mechanism: "checkpoint", memoryKept: true, placement: "enclosure", image: before?.image, runtime });
      expect(asleep.enclosure?.state).toBe("paused");
      expect(containerRunning(before?.containerId ?? "")).toBe(false);
      const x = await fx.client.callTool(run, "eval", { description: LABEL, language: "python", code: "x + 1" });
      expect(x.isError, resultText(x)).toBe(false);
      expect(resultText(x).startsWith(PLACEMENT_SLEPT), resultText(x)).toBe(false);
      expect(resultText(x)).toContain("42");
      const after = await fx.client.getConversation(id);
      expect(after.lifecycleState).toBe("active");
      expect(after.enclosure).toMatchObject({ containerId: before?.containerId, state: "running" });
      return;
    }
    expect(asleep.enclosure).toBeUndefined();
    expect(asleep.sleep).toMatchObject({ reason: "idle", mechanism: "stop", memoryKept: false, placement: "enclosure", image: before?.image, runtime });
    // No process of it is left: the engine no longer has its container.
    expect(containerExists(before?.containerId ?? "")).toBe(false);

    const sum = await fx.client.callTool(run, "eval", { description: LABEL, language: "python", code: "1 + 1" });
    expect(sum.isError, resultText(sum)).toBe(false);
    expect(resultText(sum).startsWith(PLACEMENT_SLEPT), resultText(sum)).toBe(true);
    expect(resultText(sum)).toContain("2");
    const after = await fx.client.getConversation(id);
    expect(after.lifecycleState).toBe("active");
    expect(after.enclosure).toMatchObject({ image: before?.image, runtime, workspaceMode: "copy", state: "running" });
    expect(after.enclosure?.limits?.memoryBytes).toBe(MEMORY);
    expect(after.enclosure?.containerId).not.toBe(before?.containerId);
    // The workspace came back through the copy-mode stop and went into the new enclosure.
    expect(resultText(await fx.client.callTool(run, "read", { path: "kept.txt" }))).toContain("kept");
    expect((await fx.client.callTool(run, "eval", { description: LABEL, language: "python", code: "x" })).errorCode).toBe("cell_error");
  });

  it.skipIf(skip)("stopped while asleep, it forgets its options and continues on the host", async () => {
    const id = `stop-asleep-${runtime}`;
    await fx.client.createConversation(id);
    await fx.client.startEnclosure(id, { runtime, memoryBytes: MEMORY });
    await fx.cp.sleepConversation(id, "operator");
    expect((await fx.client.getConversation(id)).sleep?.reason).toBe("operator");
    const stopped = await fx.client.stopEnclosure(id);
    expect(stopped).toMatchObject({ lifecycleState: "active", placement: "host" });
    const run = (await fx.client.openRun(id, { approvalPolicy: "never", resources: ["workspace"] })).id;
    const r = await fx.client.callTool(run, "list", { path: "." });
    expect(r.isError, resultText(r)).toBe(false);
    expect((await fx.client.getConversation(id)).enclosure).toBeUndefined();
  });
});

describe("a tenant at its enclosure quota", () => {
  let svc: TenantService<"acme">;
  const skip = !registered("runc");

  beforeAll(async () => {
    if (skip) return;
    svc = await startTenantService({ tenants: ["acme"], transport: "unix", prefix: "enclave-lifecycle-quota-", quotas: { acme: { runningEnclosures: 1 } } });
  });
  afterAll(async () => svc?.close());

  // The attack: let an enclosure sleep, start another in its slot, then wake the first with a call.
  it.skipIf(skip)("cannot start another enclosure in the slot of one asleep: the sleeping one keeps it until stopped", async () => {
    const acme = svc.client("acme");
    await acme.createConversation("slot-a");
    await acme.createConversation("slot-b");
    await acme.startEnclosure("slot-a", { runtime: "runc", memoryBytes: MEMORY });
    await svc.cp.sleepConversation("acme.slot-a", "operator");
    expect((await acme.getConversation("slot-a")).lifecycleState).toBe("sleeping");
    expect((await outcome(acme.startEnclosure("slot-b", { runtime: "runc", memoryBytes: MEMORY }))).code).toBe("quota_exceeded");
    // Stopped while asleep, it gives its slot back.
    await acme.stopEnclosure("slot-a");
    const b = await acme.startEnclosure("slot-b", { runtime: "runc", memoryBytes: MEMORY });
    expect(b.enclosure?.state).toBe("running");
  });
});
