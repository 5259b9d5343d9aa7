// Promise: each conversation says what it costs, from where the figures are kept: a host
// conversation's sandbox cgroup counts a cell's memory (peak included) and CPU time; an enclosure
// (under each test runtime) shows the engine's figures and its container's cgroup; the workspace's size follows what is
// written (a walk of the folder, or copy mode's volume); a hostile workspace (a tree past the walk's
// depth, links that loop) is measured quickly and said to be capped. A tenant sees only its own
// conversations' figures; the metrics endpoint sums them per tenant, never naming a conversation.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ControlPlaneClient } from "@enclave/client/control-plane-client.js";
import { resultText } from "@enclave/client/control-plane-client.js";
import { serveConsole } from "@enclave/control-plane/console/console-server.js";
import { serveMetrics, type ServingMetrics } from "@enclave/control-plane/server/metrics-server.js";
import { TokenFileAuth } from "@enclave/control-plane/tenants/caller-auth.js";
import { startTenantService, type TenantService } from "../helpers/tenant-service.js";
import { TEST_RUNTIMES } from "../helpers/runtimes.js";
import { eventually } from "../helpers/wait.js";

const MIB = 1024 ** 2;

describe("what a conversation costs", () => {
  let svc: TenantService<"acme" | "beta">;
  let acme: ControlPlaneClient;
  let beta: ControlPlaneClient;
  let metrics: ServingMetrics;

  beforeAll(async () => {
    svc = await startTenantService({ tenants: ["acme", "beta"], transport: "unix", prefix: "enclave-usage-" });
    acme = svc.client("acme");
    beta = svc.client("beta");
    metrics = await serveMetrics(svc.cp.metrics, { host: "127.0.0.1", port: 0 });
  });
  afterAll(async () => {
    await metrics?.close();
    await svc?.close();
  });

  it("says nothing runs, rather than a figure, for a host conversation with no agent yet", async () => {
    await acme.createConversation("idle");
    const u = (await acme.getConversation("idle")).usage;
    expect(u?.cgroup).toBeUndefined();
    expect(u?.cgroupUnavailable).toMatch(/no host agent runs/);
    expect(u?.engine).toBeUndefined();
    expect(u?.workspace?.source).toBe("walk");
    expect(u?.workspace?.capped).toBe(false);
  });

  it("counts a host cell's 200 MB and its CPU time in the sandbox's cgroup, and a written file in the workspace", async () => {
    await acme.createConversation("cost");
    const run = (await acme.openRun("cost", { approvalPolicy: "never", resources: ["workspace", "shell", "kernel"] })).id;
    const cell = await acme.callTool(run, "eval", {
      description: "hold 200 MB and burn a second of CPU",
      code: "import time\nblob = b'x' * (200 * 1024 * 1024)\nt = time.process_time()\nwhile time.process_time() - t < 1.0: pass\nlen(blob)",
    });
    expect(resultText(cell)).toBe(String(200 * MIB));
    const wrote = await acme.callTool(run, "exec", { command: "head -c 8388608 /dev/urandom > big.bin && echo ok" });
    expect(resultText(wrote)).toMatch(/^ok$/m);
    const conv = await acme.getConversation("cost");
    const u = conv.usage;
    const c = u?.cgroup;
    expect(c, u?.cgroupUnavailable).toBeDefined();
    expect(c?.source).toMatch(/host sandbox/);
    expect(c?.memoryPeakBytes).toBeGreaterThanOrEqual(200 * MIB);
    // The kernel still holds the bytes.
    expect(c?.memoryBytes).toBeGreaterThanOrEqual(200 * MIB);
    expect((c?.cpuUserSeconds ?? 0) + (c?.cpuSystemSeconds ?? 0)).toBeGreaterThan(0.9);
    expect(c?.memoryLimitBytes).toBe(svc.config.hostSandbox.limits.memoryBytes);
    expect(c?.pids).toBeGreaterThan(0);
    expect(u?.engineUnavailable).toMatch(/host placement/);
    expect(u?.workspace?.bytes).toBeGreaterThanOrEqual(8 * MIB);
    expect(u?.workspace?.capped).toBe(false);
    // ListConversations leaves usage out (measuring every workspace on each list would cost more than the list).
    expect((await acme.listConversations()).find((x) => x.id === "cost")?.usage).toBeUndefined();
  });

  it("shows another tenant's conversation's figures to no one but its tenant (API and console)", async () => {
    await expect(beta.getConversation("cost")).rejects.toMatchObject({ code: "not_found" });
    const operators = new TokenFileAuth(svc.tokensFile);
    const web = await serveConsole(svc.cp, { host: "127.0.0.1", port: 0, token: "", tokenGenerated: false, operators });
    try {
      const get = async (path: string, token: string) => {
        const r = await fetch(`http://127.0.0.1:${web.port}${path}`, { headers: { authorization: `Bearer ${token}`, accept: "text/html" } });
        return { status: r.status, body: await r.text() };
      };
      const own = await get("/fragments/conversations/acme.cost/usage", svc.tokens.acme);
      expect(own.status).toBe(200);
      expect(own.body).toMatch(/cgroup v1 of the host sandbox/);
      // A tenant's console is told no host path, even in a measure's words.
      expect(own.body).not.toContain(svc.config.dataDir);
      const foreign = await get("/fragments/conversations/acme.cost/usage", svc.tokens.beta);
      const missing = await get("/fragments/conversations/beta.never-made/usage", svc.tokens.beta);
      expect(foreign.status).toBe(404);
      expect(foreign.body.split("cost").join("<ID>")).toBe(missing.body.split("never-made").join("<ID>"));
    } finally {
      await web.close();
      operators.close();
    }
  });

  it("measures a hostile workspace (a tree past the walk's depth, links that loop) quickly and says it is capped", async () => {
    await acme.createConversation("hostile");
    const run = (await acme.openRun("hostile", { approvalPolicy: "never", resources: ["workspace", "shell"] })).id;
    const made = await acme.callTool(run, "exec", {
      command:
        "python3 -c \"import os\np='deep'\nfor i in range(200): p=os.path.join(p,'d')\nos.makedirs(p)\nos.symlink('..', 'deep/up')\nos.symlink('.', 'self')\nfor i in range(20000): open('f%d' % i, 'w').close()\nprint('made')\"",
    });
    expect(resultText(made)).toMatch(/^made$/m);
    const started = Date.now();
    const w = (await acme.getConversation("hostile")).usage?.workspace;
    expect(Date.now() - started).toBeLessThan(5000);
    expect(w?.capped).toBe(true);
    expect(w?.note).toMatch(/deeper than 128 levels not entered/);
    expect(w?.entries).toBeGreaterThan(20_000);
  });

  it("serves per-tenant series on the metrics endpoint, never a conversation", async () => {
    const lines = await eventually(async () => {
      const text = await (await fetch(metrics.url)).text();
      const ls = text.split("\n").filter((l) => l.startsWith("enclave_tenant_"));
      const disk = Number(/^enclave_tenant_workspace_bytes\{tenant="acme"\} (\S+)$/m.exec(text)?.[1] ?? 0);
      return disk >= 8 * MIB ? ls : undefined;
    }, "the tenant's workspace bytes in the metrics");
    const value = (name: string, labels: string): number => Number(lines.find((l) => l.startsWith(`${name}{${labels}} `))?.split(" ")[1] ?? NaN);
    expect(value("enclave_tenant_memory_bytes", 'tenant="acme"')).toBeGreaterThanOrEqual(200 * MIB);
    expect(value("enclave_tenant_cpu_seconds", 'tenant="acme"')).toBeGreaterThan(0.9);
    expect(value("enclave_tenant_conversations", 'tenant="acme",placement="host"')).toBe(3);
    expect(value("enclave_tenant_conversations", 'tenant="acme",placement="enclosure"')).toBe(0);
    // Labels are tenant and placement only: no conversation's id appears anywhere in them.
    for (const l of lines) {
      const labels = /\{([^}]*)\}/.exec(l)?.[1] ?? "";
      for (const kv of labels.split(",")) expect(["tenant", "placement"]).toContain(kv.split("=")[0]);
      expect(labels).not.toMatch(/cost|hostile|idle/);
    }
  });
});

describe.each(TEST_RUNTIMES)("what an enclosure costs under %s", (runtime) => {
  let svc: TenantService<"acme">;
  let acme: ControlPlaneClient;

  beforeAll(async () => {
    svc = await startTenantService({ tenants: ["acme"], transport: "unix", prefix: "enclave-usage-enc-" });
    acme = svc.client("acme");
  });
  afterAll(async () => svc?.close());

  it("shows the engine's figures and the container's cgroup, and copy mode's volume growing with a written file", async () => {
    await acme.createConversation("boxed");
    const conv = await acme.startEnclosure("boxed", { runtime, workspaceMode: "copy", diskLimitBytes: 256 * MIB });
    const run = (await acme.openRun("boxed", { approvalPolicy: "never", resources: ["workspace", "shell"] })).id;
    const wrote = await acme.callTool(run, "exec", {
      command:
        "head -c 67108864 /dev/urandom > /workspace/big.bin && python3 -c 'import time\nt=time.process_time()\nwhile time.process_time()-t<0.5: pass' && echo ok",
    });
    expect(resultText(wrote)).toMatch(/^ok$/m);
    const u = (await acme.getConversation("boxed")).usage;
    const e = u?.engine;
    expect(e, u?.engineUnavailable).toBeDefined();
    expect(e?.engine).toBe(svc.cp.engines.names()[0]);
    expect(e?.memoryUsageBytes).toBeGreaterThan(0);
    expect(e?.memoryLimitBytes).toBe(conv.enclosure?.limits?.memoryBytes);
    expect(e?.pids).toBeGreaterThan(0);
    expect(e?.cpuTotalSeconds).toBeGreaterThan(0.4);
    const c = u?.cgroup;
    expect(c, u?.cgroupUnavailable).toBeDefined();
    expect(c?.source).toMatch(/of the container/);
    expect(c?.memoryLimitBytes).toBe(conv.enclosure?.limits?.memoryBytes);
    expect(c?.memoryPeakBytes).toBeGreaterThanOrEqual(c?.memoryBytes ?? 0);
    expect((c?.cpuUserSeconds ?? 0) + (c?.cpuSystemSeconds ?? 0)).toBeGreaterThan(0.4);
    // The volume's file system: its own metadata (a few MiB for 256 MiB) and the 64 MiB file.
    expect(u?.workspace?.source, u?.workspaceUnavailable).toBe("volume");
    expect(u?.workspace?.bytes).toBeGreaterThanOrEqual(64 * MIB);
  });
});
