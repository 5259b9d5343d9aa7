// Promise: what an operator allows is a policy a tenant cannot lift. The token file bounds, per
// tenant, what one enclosure may ask for (memory, pids, CPUs, copy mode's disk; LIMITS' defaults
// for a tenant the file sets none for), how many host agents it runs, and whether its dev containers
// may be built at all (off for plain tenants). A start past a maximum is refused with
// invalid_arguments naming it, through the API and the console alike; limits that are not numbers
// in range (NaN, Infinity, negative, a billionth of a CPU, a fraction of a byte) are refused too.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ControlPlaneClient } from "@enclave/client/control-plane-client.js";
import { tenantView } from "@enclave/control-plane/console/tenant-view.js";
import { conversationKey } from "@enclave/control-plane/conversations/conversation-keys.js";
import { EnclaveError } from "@enclave/control-plane/errors.js";
import { LIMITS } from "@enclave/control-plane/limits.js";
import type { EnclosureRequest } from "@enclave/control-plane/model/enclosure.js";
import { TokenFileAuth } from "@enclave/control-plane/tenants/caller-auth.js";
import type { Tenant } from "@enclave/control-plane/tenants/tenant.js";
import { setQuota } from "@enclave/control-plane/tenants/token-file.js";
import { imageTags } from "@enclave/control-plane/image-set/image-tags.js";
import { outcome } from "../helpers/call-outcome.js";
import { startTenantService, type TenantService } from "../helpers/tenant-service.js";
import { eventually, until } from "../helpers/wait.js";

const GIB = 1024 ** 3;
let fx: TenantService<"acme" | "globex" | "ops">;
let acme: ControlPlaneClient;
let globex: ControlPlaneClient;

beforeAll(async () => {
  fx = await startTenantService({
    tenants: ["acme", "globex"],
    operators: ["ops"],
    transport: "unix",
    quotas: { acme: { maxMemoryBytes: GIB, maxCpus: 1 }, globex: { hostAgents: 1 } },
  });
  acme = fx.client("acme");
  globex = fx.client("globex");
}, 120_000);
afterAll(async () => {
  await fx?.close();
});

/** The tenant as the control plane has it configured now. */
function tenant(name: string): Tenant {
  const auth = new TokenFileAuth(fx.tokensFile);
  try {
    return auth.tenant(name) ?? expect.unreachable(`no tenant ${name}`);
  } finally {
    auth.close();
  }
}

async function consoleStart(name: string, id: string, req: EnclosureRequest): Promise<string> {
  return tenantView(fx.cp, tenant(name))
    .startEnclosure(conversationKey(name, id), req)
    .then(
      () => "ok",
      (err: unknown) => (err instanceof EnclaveError ? err.code : String(err)),
    );
}

describe("tenant maxima", () => {
  it("refuses a start above the tenant's maxima with invalid_arguments naming the maximum, on the API and the console", async () => {
    const id = (await acme.createConversation()).id;
    const over: Array<[Parameters<ControlPlaneClient["startEnclosure"]>[1], string, number]> = [
      [{ memoryBytes: 200_000_000_000 }, "maxMemoryBytes", GIB],
      [{ pidsLimit: 30_000 }, "maxPids", LIMITS.tenantMaxPids],
      [{ cpus: 2 }, "maxCpus", 1],
      [{ workspaceMode: "copy", diskLimitBytes: 2_199_023_255_552 }, "maxDiskBytes", LIMITS.tenantMaxDiskBytes],
    ];
    for (const [options, quota, max] of over) {
      const o = await outcome(acme.startEnclosure(id, options));
      expect(o.code, JSON.stringify(options)).toBe("invalid_arguments");
      // The maximum is named: its quota and its value.
      expect(o.message).toContain(quota);
      expect(o.message).toContain(String(max));
    }
    // A tenant whose entry sets no maximum is bounded by the defaults.
    const g = (await globex.createConversation()).id;
    expect((await outcome(globex.startEnclosure(g, { memoryBytes: 200_000_000_000 }))).code).toBe("invalid_arguments");
    expect((await outcome(globex.startEnclosure(g, { workspaceMode: "copy", diskLimitBytes: 2_199_023_255_552 }))).code).toBe("invalid_arguments");
    // The console's start takes the same bound.
    expect(await consoleStart("acme", id, { memoryBytes: 200_000_000_000 })).toBe("invalid_arguments");
    expect(await consoleStart("acme", id, { cpus: 2 })).toBe("invalid_arguments");
    expect((await acme.getConversation(id)).placement).toBe("host");
    // The refusals are audited, for the operator to see.
    const events: string[] = [];
    await fx.client("ops").subscribeAudit({ includeHistory: true, historyOnly: true }, (e) => {
      if (e.kind === "call_refused" && e.tenant === "acme" && e.outcome === "refused:invalid_arguments") events.push(e.detail);
    }).done;
    expect(events.some((d) => d.includes("maxMemoryBytes"))).toBe(true);
  });

  it("refuses limits that are not numbers in range: NaN, Infinity, 0 or negative CPUs, a billionth of a CPU, fractions of whole limits", async () => {
    const id = (await acme.createConversation()).id;
    for (const cpus of [Number.NaN, Infinity, -1, 1e-9]) {
      expect((await outcome(acme.startEnclosure(id, { cpus }))).code, `cpus ${cpus}`).toBe("invalid_arguments");
    }
    // int64 fields cannot carry a fraction over the wire; the console's form and other callers can.
    const bad: EnclosureRequest[] = [
      { cpus: Number.NaN },
      { cpus: -0.5 },
      { memoryBytes: 256 * 1024 ** 2 + 0.5 },
      { memoryBytes: -1 },
      { pidsLimit: 100.5 },
      { pidsLimit: Number.NaN },
      { workspaceMode: "copy", diskLimitBytes: 64 * 1024 ** 2 + 0.5 },
    ];
    for (const req of bad) expect(await consoleStart("acme", id, req), JSON.stringify(req)).toBe("invalid_arguments");
    expect((await acme.getConversation(id)).placement).toBe("host");
  });

  it("starts an enclosure within the maxima", async () => {
    const id = (await acme.createConversation()).id;
    const c = await acme.startEnclosure(id, { memoryBytes: 256 * 1024 ** 2, cpus: 0.5, pidsLimit: 128 });
    expect(c.enclosure?.limits).toMatchObject({ memoryBytes: 256 * 1024 ** 2, cpus: 0.5, pids: 128 });
    await acme.stopEnclosure(id);
  }, 120_000);
});

describe("host agents quota", () => {
  it("counts a tenant's host agents like its enclosures: past the quota a call that would start one is refused", async () => {
    const first = (await globex.createConversation()).id;
    const second = (await globex.createConversation()).id;
    const run1 = (await globex.openRun(first, { approvalPolicy: "never" })).id;
    const run2 = (await globex.openRun(second, { approvalPolicy: "never" })).id;
    expect((await globex.callTool(run1, "exec", { command: "echo one" })).isError).toBe(false);
    const refused = await outcome(globex.callTool(run2, "exec", { command: "echo two" }));
    expect(refused.code).toBe("quota_exceeded");
    expect(refused.message).toContain("hostAgents");
    // Another tenant is not held by it.
    const mine = (await acme.createConversation()).id;
    expect((await acme.callTool((await acme.openRun(mine, { approvalPolicy: "never" })).id, "exec", { command: "echo acme" })).isError).toBe(false);
    // Its first conversation's agent still serves it; once that conversation goes, the other may start one.
    expect((await globex.callTool(run1, "exec", { command: "echo again" })).isError).toBe(false);
    await globex.deleteConversation(first);
    expect((await globex.callTool(run2, "exec", { command: "echo two" })).isError).toBe(false);
  }, 120_000);
});

describe("dev container builds", () => {
  it("are refused for a plain tenant with a stable code, until an operator turns them on for it", async () => {
    const id = (await acme.createConversation()).id;
    const workspace = fx.cp.getConversation(conversationKey("acme", id)).workspacePath;
    mkdirSync(join(workspace, ".devcontainer"));
    writeFileSync(join(workspace, ".devcontainer", "devcontainer.json"), JSON.stringify({ build: { dockerfile: "Dockerfile" } }));
    // Enclave's own image: a base any tenant may name.
    writeFileSync(join(workspace, ".devcontainer", "Dockerfile"), `FROM ${imageTags().runtime}\nRUN echo built > /tmp/built\n`);
    const refused = await outcome(acme.startEnclosure(id, { devcontainer: true }));
    expect(refused.code).toBe("devcontainer_build_refused");
    expect(await consoleStart("acme", id, { devcontainer: true })).toBe("devcontainer_build_refused");
    expect((await acme.getConversation(id)).placement).toBe("host");
    setQuota(fx.tokensFile, "acme", "devcontainerBuilds", 1);
    try {
      const started = await acme.startEnclosure(id, { devcontainer: true });
      expect(started.placement).toBe("enclosure");
      await acme.stopEnclosure(id);
    } finally {
      setQuota(fx.tokensFile, "acme", "devcontainerBuilds", 0);
    }
  }, 300_000);
});

describe("host agents quota with spares", () => {
  let spared: TenantService<"acme" | "globex" | "ops">;
  beforeAll(async () => {
    spared = await startTenantService({
      tenants: ["acme", "globex"],
      operators: ["ops"],
      transport: "unix",
      quotas: { globex: { hostAgents: 1 }, acme: { kernels: 1 } },
      config: (c) => void (c.hostSandbox.spares = 2),
    });
  }, 120_000);
  afterAll(async () => {
    await spared?.close();
  });

  it("a new conversation takes no spare host agent past the tenant's quota", async () => {
    const g = spared.client("globex");
    const first = (await g.createConversation()).id;
    const run1 = (await g.openRun(first, { approvalPolicy: "never" })).id;
    expect((await g.callTool(run1, "exec", { command: "echo one" })).isError).toBe(false);
    // Spares are refilled one at a time: one must be ready to be taken.
    await until(() => spared.cp.hostAgents.spareCount() > 0, "a spare host agent ready");
    const second = (await g.createConversation()).id;
    expect(spared.cp.hostAgentPid(conversationKey("globex", second))).toBeUndefined();
    const run2 = (await g.openRun(second, { approvalPolicy: "never" })).id;
    expect((await outcome(g.callTool(run2, "exec", { command: "echo two" }))).code).toBe("quota_exceeded");
  }, 120_000);

  it("a new conversation takes no spare past the tenant's kernel quota (a spare brings its Python kernel)", async () => {
    const a = spared.client("acme");
    await until(() => spared.cp.hostAgents.spareCount() > 0, "a spare host agent ready");
    const first = (await a.createConversation()).id;
    const key = conversationKey("acme", first);
    // Taken with its kernel, which is the tenant's one.
    expect(spared.cp.hostAgentPid(key)).toBeDefined();
    await eventually(async () => (await spared.cp.liveKernels(key)).includes("python"), "the spare's kernel alive");
    await until(() => spared.cp.hostAgents.spareCount() > 0, "a spare host agent ready");
    const second = (await a.createConversation()).id;
    expect(spared.cp.hostAgentPid(conversationKey("acme", second))).toBeUndefined();
  }, 120_000);
});
