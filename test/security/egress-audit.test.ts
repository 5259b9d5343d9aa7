// Promise: `enclave audit ID` (and AuditEnclosure over gRPC) proves every hardening item of a running
// enclosure from outside — the engine, and the kernel's own tables read by the control plane on the
// host (gVisor's kernel under runsc) — with the agent's report beside it, and says FAIL when one does
// not hold, so a signature means something: even when code inside has replaced the agent with one
// that lies. Bridge calls recorded for the conversation are listed with their digests. Runs under
// every runtime in ENCLAVE_TEST_RUNTIMES.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@enclave/control-plane/config.js";
import { resultText } from "@enclave/client/control-plane-client.js";
import type { AuditCheck, EnclosureAudit } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { TEST_RUNTIMES } from "../helpers/runtimes.js";
import { eventually } from "../helpers/wait.js";

const cli = join(import.meta.dirname, "..", "..", "bin", "enclave");
/** `enclave audit ID`: its exit code and what it printed. */
const auditCli = (id: string, address: string): Promise<{ code: number; stdout: string }> =>
  promisify(execFile)(cli, ["audit", id, "--address", address]).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (err: { code: number; stdout: string }) => ({ code: err.code, stdout: err.stdout }),
  );

const check = (r: EnclosureAudit, item: string): AuditCheck => {
  const c = r.checks.find((x) => x.item === item);
  if (!c) throw new Error(`no check \`${item}\` in ${r.checks.map((x) => x.item).join(", ")}`);
  return c;
};

// What code in the enclosure can do to the agent (from a session of its own, which outlives the exec
// call that started it): serve the agent's socket itself with the agent's own program, preloaded with
// a hook that makes /proc/net's socket tables read empty — every answer real, except that nothing
// ever listens — then stop the supervisor and kill the real agent, so every new connection reaches
// the liar. Then it opens a listener on loopback.
const LIE_HOOK = `
const fsp = require("node:fs/promises");
const realReadFile = fsp.readFile;
fsp.readFile = async (path, ...rest) =>
  /^\\/proc\\/net\\/(tcp|tcp6|udp|udp6)$/.test(String(path)) ? "  sl  local_address rem_address   st\\n" : realReadFile(path, ...rest);
require("node:module").syncBuiltinESMExports();
`;
const HIJACK = `
import os, signal, socket, subprocess, time
time.sleep(1)  # let the exec call that started this one finish first

def processes():
    for d in os.listdir('/proc'):
        if d.isdigit():
            try:
                yield int(d), open(f'/proc/{d}/cmdline', 'rb').read().split(b'\\0')
            except OSError:
                pass

real = [pid for pid, argv in processes() if any(a.endswith(b'enclave-agent.mjs') for a in argv)]
log = open('/tmp/liar.log', 'w')
subprocess.Popen(['node', '--require', '/workspace/lie-hook.cjs', '/opt/enclave/agent/enclave-agent.mjs',
                  '--socket', '/run/enclave/agent.sock', '--workspace', '/workspace', '--placement', 'enclosure'],
                 stdin=subprocess.DEVNULL, stdout=log, stderr=log)
while 'serving' not in open('/tmp/liar.log').read():
    time.sleep(0.1)
# The liar holds the socket path now; the real agent goes, and its supervisor is stopped first so
# that nothing takes the path back.
for pid, argv in processes():
    if any(a.endswith(b'supervise.sh') for a in argv):
        os.kill(pid, signal.SIGSTOP)
for pid in real:
    os.kill(pid, signal.SIGKILL)
listener = socket.socket()
listener.bind(('127.0.0.1', 8766))
listener.listen()
time.sleep(300)
`;

describe.each(TEST_RUNTIMES)("egress audit of a hardened enclosure under %s", (runtime) => {
  let fx: Fixture;
  let report: EnclosureAudit;

  beforeAll(async () => {
    fx = await startFixture();
    await fx.client.createConversation("audited");
    await fx.client.startEnclosure("audited", { runtime, memoryBytes: 768 * 1024 * 1024, cpus: 0.5, pidsLimit: 300 });
    report = await fx.client.auditEnclosure("audited");
  });
  afterAll(async () => fx?.close());

  it("passes every item, each seen from outside and inside", () => {
    expect(report.placement).toBe("enclosure");
    expect(report.runtime).toBe(runtime);
    expect(report.checks.map((c) => c.item)).toEqual([
      "runtime",
      "network",
      "listening sockets",
      "capabilities",
      "no new privileges",
      "read-only root",
      "mounts",
      "user",
      "pids limit",
      "memory limit",
      "CPU limit",
      "seccomp",
      "agent socket",
      "workspace disk limit",
      "origin",
    ]);
    for (const c of report.checks) expect(c.ok, `${c.item}: outside ${c.outside}; inside ${c.inside}`).toBe(true);
    expect(report.passed).toBe(true);
  });

  it("reports what it read, item by item, the outside from the kernel itself", () => {
    // The kernel the enclosure's processes live in: the host's under runc, gVisor's under runsc.
    const kernel = runtime === "runsc" ? "gVisor's kernel" : "host kernel";
    expect(check(report, "runtime").outside).toMatch(runtime === "runsc" ? /^engine runtime runsc \(\/\S+runsc --network=none\); host kernel: \d+ process\(es\), 1 sandbox, 1 file proxy/ : /^engine runtime runc; host kernel: \d+ process\(es\) of the enclosure$/);
    expect(check(report, "network").outside).toMatch(/^network mode none; /);
    expect(check(report, "network").outside).toContain(`${kernel}`);
    expect(check(report, "network").inside).toBe("interfaces lo; routes none");
    expect(check(report, "listening sockets").outside).toMatch(new RegExp(`^${kernel}: none; `));
    expect(check(report, "listening sockets").inside).toBe("none");
    expect(check(report, "capabilities").outside).toMatch(new RegExp(`^dropped ALL; added none; ${kernel}: all \\d+ processes with CapEff, CapPrm and CapBnd empty`));
    expect(check(report, "capabilities").inside).toMatch(/^CapEff 0+; CapPrm 0+; /);
    expect(check(report, "no new privileges").outside).toMatch(/^security options no-new-privileges:true; host kernel.*: all \d+ processes with NoNewPrivs 1/);
    expect(check(report, "read-only root").outside).toMatch(new RegExp(`^ReadonlyRootfs true; ${kernel}: / mounted ro`));
    expect(check(report, "read-only root").inside).toMatch(/^\/ mounted ro,/);
    expect(check(report, "mounts").outside).toContain(`${kernel}: /tmp tmpfs, /home/enclave tmpfs; engine sockets none`);
    // The enclosure's own uid from the reserved range (uid and gid the same number), never the image's 1000.
    const { base, count } = loadConfig().enclosure.uids;
    const uid = Number(/^user (\d+):\1; /.exec(check(report, "user").outside)?.[1]);
    expect(uid).toBeGreaterThanOrEqual(base);
    expect(uid).toBeLessThan(base + count);
    expect(check(report, "user").outside).toMatch(new RegExp(`^user ${uid}:${uid}; ${kernel}: all \\d+ processes as uid ${uid} gid ${uid}$`));
    expect(check(report, "user").inside).toBe(`uid ${uid} gid ${uid}`);
    expect(check(report, "agent socket").inside).toBe(`/run/enclave/agent.sock mode 600 owner uid ${uid}`);
    expect(check(report, "pids limit").outside).toBe(
      runtime === "runsc"
        ? // gVisor enforces the limit inside; the cgroup bounds its own host tasks (8 per process + 256).
          "nproc ulimit 300/300; PidsLimit 2656; host cgroup (v1) pids.max 2656; gVisor's kernel: a process started inside is limited to 300"
        : "PidsLimit 300; host cgroup (v1) pids.max 300",
    );
    expect(check(report, "memory limit").outside).toBe(`Memory ${768 * 1024 * 1024}; MemorySwap ${768 * 1024 * 1024}; host cgroup (v1) memory limit ${768 * 1024 * 1024}, swap beyond it 0`);
    expect(check(report, "CPU limit").outside).toBe("NanoCpus 500000000 (0.5 CPU); host cgroup (v1) CFS quota 50000/100000 µs = 0.5 CPU");
    expect(check(report, "agent socket").outside).toBe(`/run/enclave is a tmpfs; no host mount; ${kernel}: /run/enclave tmpfs`);
    expect(check(report, "workspace disk limit").outside).toBe("bind mount of a host folder: no limit of its own");
    if (runtime === "runc") {
      expect(check(report, "pids limit").inside).toMatch(/^pids\.max 300 /);
      expect(check(report, "memory limit").inside).toBe(`memory limit ${768 * 1024 * 1024}`);
      expect(check(report, "CPU limit").inside).toBe("CFS quota 0.5 CPU");
      expect(check(report, "seccomp").outside).toMatch(/^default profile \(no override\); host kernel: all \d+ processes in seccomp filter mode$/);
      expect(check(report, "seccomp").inside).toMatch(/^Seccomp 2 \(filter\); [1-9]\d* filter/);
      expect(check(report, "no new privileges").inside).toBe("NoNewPrivs 1");
      expect(check(report, "workspace disk limit").inside).toMatch(/^\/workspace on ext4: \d+ bytes total, \d+ free$/);
    } else {
      // Deliberate differences under gVisor: its /proc shows no cgroup files, no NoNewPrivs line and
      // no seccomp filter of the engine's (gVisor's kernel answers the calls; gVisor itself is filtered
      // on the host).
      expect(check(report, "pids limit").inside).toBe("pids.max not shown (gVisor has no cgroup files inside)");
      expect(check(report, "memory limit").inside).toBe("memory limit not shown (gVisor has no cgroup files inside)");
      expect(check(report, "seccomp").outside).toMatch(/^default profile \(no override\); host kernel, gVisor's processes: all \d+ processes in seccomp filter mode; gVisor's kernel: processes in seccomp mode 0$/);
      expect(check(report, "seccomp").inside).toMatch(/^Seccomp 0 /);
      expect(check(report, "no new privileges").inside).toBe("NoNewPrivs not shown (gVisor's /proc has no such line)");
      expect(check(report, "capabilities").outside).toMatch(/gVisor on the host: all \d+ processes in a user namespace mapping no host root, or the file proxy with file capabilities only$/);
    }
  });

  it("fails the listening-sockets item while something listens on loopback inside", async () => {
    const runId = (await fx.client.openRun("audited", { approvalPolicy: "never", resources: ["shell"] })).id;
    const listener = fx.client.callTool(runId, "exec", {
      command: "python3 -c \"import socket,time; s=socket.socket(); s.bind(('127.0.0.1', 8765)); s.listen(); time.sleep(12)\"",
      timeout_seconds: 30,
    });
    // Both halves see it once the listener is up (the agent's half is read a moment before the kernel's).
    const during = await eventually(async () => {
      const r = await fx.client.auditEnclosure("audited");
      return check(r, "listening sockets").inside !== "none" && r;
    }, "the audit to see the listener");
    expect(check(during, "listening sockets")).toMatchObject({ ok: false, inside: "tcp 127.0.0.1:8765" });
    expect(check(during, "listening sockets").outside).toMatch(/^(host kernel|gVisor's kernel): tcp 127\.0\.0\.1:8765;/);
    expect(during.passed).toBe(false);
    expect(resultText(await listener)).toMatch(/exit code 0/);
  });

  it("sees a listener in a network namespace of its own, where the runtime lets a process make one", async () => {
    const runId = (await fx.client.openRun("audited", { approvalPolicy: "never", resources: ["shell"] })).id;
    const listener = fx.client.callTool(runId, "exec", {
      command: "unshare -Urn python3 -c \"import socket,time; s=socket.socket(); s.bind(('127.0.0.1', 8767)); s.listen(); time.sleep(12)\"",
      timeout_seconds: 30,
    });
    if (runtime === "runc") {
      // The engine's seccomp profile refuses an unprivileged user namespace under runc.
      expect(resultText(await listener)).toMatch(/unshare failed: Operation not permitted/);
      return;
    }
    // gVisor does not apply that profile, so the namespace is made; its listener is in every
    // process's own tables, which the outside half reads.
    const during = await eventually(async () => {
      const r = await fx.client.auditEnclosure("audited");
      return check(r, "listening sockets").outside.includes("tcp 127.0.0.1:8767") && r;
    }, "the audit to see the listener in its own network namespace");
    expect(check(during, "listening sockets").ok).toBe(false);
    expect(during.passed).toBe(false);
    expect(resultText(await listener)).toMatch(/exit code 0/);
  });

  it("lists the bridge calls recorded for the conversation", async () => {
    const runId = (await fx.client.openRun("audited", { approvalPolicy: "never", resources: ["workspace", "kernel"] })).id;
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
    const { code, stdout } = await auditCli("audited", fx.client.address);
    expect(code, stdout).toBe(0);
    expect(stdout).toMatch(new RegExp(`runtime ${runtime}\\) — every check passed`));
    for (const c of report.checks) expect(stdout).toContain(`ok   ${c.item}: `);
    expect(stdout).toContain("inside (reported by the agent): ");
    expect(stdout).toMatch(/bridge calls recorded: 1\n .* write \(write\) sha256:[0-9a-f]{64} ok \d+ ms from kernel py-[0-9a-f]+/);

    await fx.client.createConversation("relaxed");
    await fx.client.startEnclosure("relaxed", { runtime, writableRoot: true, keepCapabilities: ["CHOWN"] });
    const failed = await auditCli("relaxed", fx.client.address);
    expect(failed.code, failed.stdout).toBe(3);
    expect(failed.stdout).toMatch(/SOME CHECKS FAILED/);
    expect(failed.stdout).toMatch(/relaxed explicitly: .*/);
    expect(failed.stdout).toMatch(/FAIL read-only root/);
    expect(failed.stdout).toMatch(/FAIL capabilities: .*\n\s+outside: dropped ALL; added CHOWN/);
    await fx.client.deleteConversation("relaxed");
  });

  it("still fails while a listener is open when code inside has replaced the agent with one that lies", async () => {
    await fx.client.createConversation("forged");
    await fx.client.startEnclosure("forged", { runtime });
    const runId = (await fx.client.openRun("forged", { approvalPolicy: "never", resources: ["workspace", "shell"] })).id;
    for (const [path, content] of [["lie-hook.cjs", LIE_HOOK], ["hijack.py", HIJACK]] as const) {
      const w = await fx.client.callTool(runId, "write", { path, content });
      expect(w.isError, resultText(w)).toBe(false);
    }
    const started = await fx.client.callTool(runId, "exec", { command: "setsid -f python3 /workspace/hijack.py </dev/null >/tmp/hijack.log 2>&1" });
    expect(started.isError, resultText(started)).toBe(false);

    // The liar answers once the real agent is gone: its inside half then says nothing listens while
    // the listener is open — and the kernel's tables, read from outside, say otherwise.
    let last = "";
    const forged = await eventually(
      async () => {
        const r = await fx.client.auditEnclosure("forged").catch((err: Error) => void (last = err.message));
        if (r) last = r.text;
        const c = r && check(r, "listening sockets");
        return !!c && c.inside === "none" && c.outside.includes("tcp 127.0.0.1:8766") && r;
      },
      "the lying agent to answer while the listener is open",
      150_000,
    ).catch((err: Error) => {
      throw new Error(`${err.message}; the last audit said: ${last}`);
    });
    const sockets = check(forged, "listening sockets");
    expect(sockets.ok).toBe(false);
    expect(sockets.outside).toMatch(/^(host kernel|gVisor's kernel): tcp 127\.0\.0\.1:8766;/);
    expect(forged.passed).toBe(false);
    // The lie was told by the agent's own program, not by a broken one: the kernel-read items agree.
    // (Under gVisor the killed agent's socket file may go with it, which "agent socket" then reports.
    // The replacement was never told the conversation, which "origin" reports.)
    const failing = forged.checks.filter((c) => !c.ok).map((c) => c.item);
    expect(failing.filter((item) => item !== "agent socket"), forged.text).toEqual(["listening sockets", "origin"]);

    const cliRun = await auditCli("forged", fx.client.address);
    expect(cliRun.code, cliRun.stdout).toBe(3);
    expect(cliRun.stdout).toMatch(/FAIL listening sockets: .*\n\s+outside: .*tcp 127\.0\.0\.1:8766.*\n\s+inside \(reported by the agent\): none/);
  }, 240_000);
});

describe("egress audit without an enclosure", () => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await startFixture();
  });
  afterAll(async () => fx?.close());

  it("says a host-placement conversation with no agent running has nothing to audit yet", async () => {
    await fx.client.createConversation("on-host");
    const r = await fx.client.auditEnclosure("on-host");
    expect(r).toMatchObject({ placement: "host", passed: false, checks: [] });
    expect(r.text).toMatch(/host placement, and no host agent runs now .*start an enclosure with `enclave enclosure start on-host`/);
    expect(fx.cp.hostAgents.pid("on-host")).toBeUndefined();
  });
});
