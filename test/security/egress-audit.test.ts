// Promise: `enclave audit ID` (and AuditEnclosure over gRPC) proves every hardening item of a running
// enclosure from outside and inside — and says FAIL when one does not hold, so a signature means
// something. Bridge calls recorded for the conversation are listed with their digests.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "../../control-plane/src/client/control-plane-client.js";
import type { AuditCheck, EnclosureAudit } from "../../proto/gen/enclave/control/v1/control.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";

const run = promisify(execFile);
const cli = join(import.meta.dirname, "..", "..", "bin", "enclave");
let fx: Fixture;
let report: EnclosureAudit;

beforeAll(async () => {
  fx = await startFixture();
  await fx.client.createConversation("audited");
  await fx.client.startEnclosure("audited", { memoryBytes: 768 * 1024 * 1024, cpus: 0.5, pidsLimit: 300 });
  report = await fx.client.auditEnclosure("audited");
});
afterAll(async () => fx?.close());

const check = (r: EnclosureAudit, item: string): AuditCheck => {
  const c = r.checks.find((x) => x.item === item);
  if (!c) throw new Error(`no check \`${item}\` in ${r.checks.map((x) => x.item).join(", ")}`);
  return c;
};

describe("egress audit of a hardened enclosure", () => {
  it("passes every item, each seen from outside and inside", () => {
    expect(report.placement).toBe("enclosure");
    expect(report.checks.map((c) => c.item)).toEqual([
      "network",
      "listening sockets",
      "capabilities",
      "no new privileges",
      "read-only root",
      "user",
      "pids limit",
      "memory limit",
      "CPU limit",
      "seccomp",
      "agent socket",
      "workspace disk limit",
    ]);
    for (const c of report.checks) expect(c.ok, `${c.item}: outside ${c.outside}; inside ${c.inside}`).toBe(true);
    expect(report.passed).toBe(true);
  });

  it("reports what it read, item by item", () => {
    expect(check(report, "network").outside).toBe("network mode none");
    expect(check(report, "network").inside).toBe("interfaces lo; routes none");
    expect(check(report, "listening sockets").inside).toBe("none");
    expect(check(report, "capabilities").outside).toBe("dropped ALL; added none");
    expect(check(report, "capabilities").inside).toMatch(/^CapEff 0+; CapPrm 0+; /);
    expect(check(report, "no new privileges").inside).toBe("NoNewPrivs 1");
    expect(check(report, "read-only root").inside).toMatch(/^\/ mounted ro,/);
    expect(check(report, "user").inside).toBe("uid 1000 gid 1000");
    expect(check(report, "pids limit").inside).toMatch(/^pids\.max 300 /);
    expect(check(report, "memory limit").inside).toBe(`memory limit ${768 * 1024 * 1024}`);
    expect(check(report, "CPU limit").inside).toBe("CFS quota 0.5 CPU");
    expect(check(report, "seccomp").inside).toMatch(/^Seccomp 2 \(filter\); [1-9]\d* filter/);
    expect(check(report, "agent socket").inside).toBe("/run/enclave/agent.sock mode 600 owner uid 1000");
    expect(check(report, "agent socket").outside).toBe("/run/enclave is a tmpfs; no host mount");
    expect(check(report, "agent socket").inside).toMatch(/agent\.sock mode 600 owner uid 1000$/);
    expect(check(report, "workspace disk limit").outside).toBe("bind mount of a host folder: no limit of its own");
    expect(check(report, "workspace disk limit").inside).toMatch(/^\/workspace on ext4: \d+ bytes total, \d+ free$/);
  });

  it("fails the listening-sockets item while something listens on loopback inside", async () => {
    const runId = (await fx.client.openRun("audited", { resources: ["shell"] })).id;
    const listener = fx.client.callTool(runId, "exec", {
      command: "python3 -c \"import socket,time; s=socket.socket(); s.bind(('127.0.0.1', 8765)); s.listen(); time.sleep(12)\"",
      timeout_seconds: 30,
    });
    let during: EnclosureAudit | undefined;
    for (let i = 0; i < 100; i++) {
      await new Promise((r) => setTimeout(r, 100));
      during = await fx.client.auditEnclosure("audited");
      if (!check(during, "listening sockets").ok) break;
    }
    expect(check(during!, "listening sockets")).toMatchObject({ ok: false, inside: "tcp 127.0.0.1:8765" });
    expect(during!.passed).toBe(false);
    expect(resultText(await listener)).toMatch(/exit code 0/);
  });

  it("lists the bridge calls recorded for the conversation", async () => {
    const runId = (await fx.client.openRun("audited", { resources: ["workspace", "kernel"] })).id;
    const cell = await fx.client.callTool(runId, "eval", {
      description: "write a file from a cell over the bridge",
      code: 'tool("write", {"path": "from-a-cell.txt", "content": "x"})',
    });
    expect(cell.isError, resultText(cell)).toBe(false);
    const r = await fx.client.auditEnclosure("audited");
    expect(r.bridgeCalls.map((e) => [e.tool, e.tier, e.outcome, e.origin])).toEqual([["write", "write", "ok", "bridge"]]);
    expect(r.bridgeCalls[0]?.argumentsDigest).toMatch(/^sha256:/);
    expect(r.bridgeCalls[0]?.kernelId).toMatch(/^py-/);
  });

  it("prints every item from the CLI, and exits 3 when an item fails", async () => {
    const { stdout } = await run(cli, ["audit", "audited", "--address", fx.client.address]);
    expect(stdout).toMatch(/every check passed/);
    for (const c of report.checks) expect(stdout).toContain(`ok   ${c.item}: `);
    expect(stdout).toMatch(/bridge calls recorded: 1\n .* write \(write\) sha256:[0-9a-f]{64} ok \d+ ms from kernel py-[0-9a-f]+/);

    await fx.client.createConversation("relaxed");
    await fx.client.startEnclosure("relaxed", { writableRoot: true, keepCapabilities: ["CHOWN"] });
    const failed = await run(cli, ["audit", "relaxed", "--address", fx.client.address]).then(
      () => undefined,
      (err: { code: number; stdout: string }) => err,
    );
    expect(failed?.code).toBe(3);
    expect(failed?.stdout).toMatch(/SOME CHECKS FAILED/);
    expect(failed?.stdout).toMatch(/relaxed explicitly: .*/);
    expect(failed?.stdout).toMatch(/FAIL read-only root/);
    expect(failed?.stdout).toMatch(/FAIL capabilities: .*\n\s+outside: dropped ALL; added CHOWN/);
  });

  it("audits host placement without starting its agent: says none runs", async () => {
    await fx.client.createConversation("on-host");
    const r = await fx.client.auditEnclosure("on-host");
    expect(r).toMatchObject({ placement: "host", passed: false, checks: [] });
    expect(r.text).toMatch(/host placement, and no host agent runs now/);
    expect(fx.cp.hostAgents.pid("on-host")).toBeUndefined();
  });
});
