// Promise: `enclave audit ID` (and AuditEnclosure over gRPC) proves every hardening item of a running
// enclosure from outside — the engine, and the kernel's own tables read by the control plane on the
// host (gVisor's kernel under runsc) — with the agent's report beside it, and says FAIL when one does
// not hold, so a signature means something: even when code inside has replaced the agent with one
// that lies. Bridge calls recorded for the conversation are listed with their digests. Runs under
// every runtime in ENCLAVE_TEST_RUNTIMES.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@enclave/control-plane/config.js";
import { resultText } from "@enclave/client/control-plane-client.js";
import type { AuditCheck, EnclosureAudit } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { TEST_RUNTIMES } from "../helpers/runtimes.js";
import { type Mask, expectTranscript } from "@enclave/test-kit/transcript.js";
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

/** Every check as a transcript: its verdict, then what was expected and what each half read. */
const checksText = (r: EnclosureAudit): string =>
  r.checks.map((c) => `${c.ok ? "ok" : "FAIL"} ${c.item}\n  expected: ${c.expected}\n  outside: ${c.outside}\n  inside: ${c.inside}\n`).join("");

const PROCESS_CAPS = String.raw`\d+ \([^)]+\) CapEff \w+ CapPrm \w+ CapBnd \w+`;

/**
 * What varies between runs of an audit: the enclosure's uid and container, counts and pids of its
 * processes, runsc's path, the runtime image's tag, the host disk's sizes, the engine's mount order.
 */
const reportMasks = (uid: number): Mask[] => [
  [new RegExp(`\\b${uid}\\b`, "g"), "<uid>"],
  [/\ball \d+ processes\b/g, "all <n> processes"],
  [/\b\d+ process\(es\)/g, "<n> process(es)"],
  [/\b\d+ platform stub\(s\)/g, "<n> platform stub(s)"],
  [new RegExp(String.raw`\d+ of \d+ not: ${PROCESS_CAPS}(?:; ${PROCESS_CAPS})*`, "g"), "<n> of <n> not: <processes>"],
  // The registered runsc (a wrapper of ours, or the binary itself) and the binary that runs.
  [/\(\/\S+?runsc(?: running \/\S+\/runsc)? /g, "(<runsc> "],
  [/\benclosure [0-9a-f]{12}\b/g, "enclosure <container>"],
  [/\benclave-runtime:[0-9a-f]+\b/g, "enclave-runtime:<tag>"],
  [/\bpy-[0-9a-f]+\b/g, "py-<id>"],
  [/: \d+ bytes total, \d+ free$/gm, ": <n> bytes total, <n> free"],
  [
    /engine: [^;]+;/g,
    (m) =>
      `engine: ${m
        .slice("engine: ".length, -1)
        .split(/(?<=\)), /)
        .sort()
        .join(", ")};`,
  ],
];

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
      "egress",
    ]);
    for (const c of report.checks) expect(c.ok, `${c.item}: outside ${c.outside}; inside ${c.inside}`).toBe(true);
    expect(report.passed).toBe(true);
  });

  it("reports what it read, item by item, the outside from the kernel itself", async () => {
    // The enclosure's own uid from the reserved range (uid and gid the same number), never the image's 1000.
    const { base, count } = loadConfig().enclosure.uids;
    const user = (await new Docker().getContainer(report.containerId).inspect()).Config.User;
    const uid = Number(user.split(":")[0]);
    expect(user).toBe(`${uid}:${uid}`);
    expect(uid).toBeGreaterThanOrEqual(base);
    expect(uid).toBeLessThan(base + count);
    // Every item's three halves, whole (the kernel the enclosure lives in: the host's under runc, gVisor's under runsc).
    await expectTranscript(checksText(report), `transcripts/egress-audit/report-${runtime}.txt`, reportMasks(uid));
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
    expect(check(during, "listening sockets").outside).toContain("tcp 127.0.0.1:8765");
    expect(during.passed).toBe(false);
    await expectTranscript(resultText(await listener), "transcripts/egress-audit/listener-exit.txt");
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
    await expectTranscript(resultText(await listener), "transcripts/egress-audit/listener-exit.txt");
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
    const uid = Number((await new Docker().getContainer(report.containerId).inspect()).Config.User.split(":")[0]);
    await expectTranscript(stdout, `transcripts/egress-audit/cli-passed-${runtime}.txt`, reportMasks(uid));

    await fx.client.createConversation("relaxed");
    await fx.client.startEnclosure("relaxed", { runtime, writableRoot: true, keepCapabilities: ["CHOWN"] });
    const failed = await auditCli("relaxed", fx.client.address);
    expect(failed.code, failed.stdout).toBe(3);
    const relaxed = await fx.client.auditEnclosure("relaxed");
    expect(relaxed.checks.filter((c) => !c.ok).map((c) => c.item)).toEqual(["capabilities", "read-only root"]);
    const relaxedUid = Number((await new Docker().getContainer(relaxed.containerId).inspect()).Config.User.split(":")[0]);
    await expectTranscript(failed.stdout, `transcripts/egress-audit/cli-relaxed-${runtime}.txt`, reportMasks(relaxedUid));
    await fx.client.deleteConversation("relaxed");
  });

  it("still fails while a listener is open when code inside has replaced the agent with one that lies", async () => {
    await fx.client.createConversation("forged");
    await fx.client.startEnclosure("forged", { runtime });
    const runId = (await fx.client.openRun("forged", { approvalPolicy: "never", resources: ["workspace", "shell"] })).id;
    for (const [path, content] of [
      ["lie-hook.cjs", LIE_HOOK],
      ["hijack.py", HIJACK],
    ] as const) {
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
    expect(sockets.outside).toContain("tcp 127.0.0.1:8766");
    expect(forged.passed).toBe(false);
    // The lie was told by the agent's own program, not by a broken one: the kernel-read items agree.
    // (Under gVisor the killed agent's socket file may go with it, which "agent socket" then reports.
    // The replacement was never told the conversation, which "origin" reports.)
    const failing = forged.checks.filter((c) => !c.ok).map((c) => c.item);
    expect(
      failing.filter((item) => item !== "agent socket"),
      forged.text,
    ).toEqual(["listening sockets", "origin"]);

    const cliRun = await auditCli("forged", fx.client.address);
    // The CLI prints the report's text (its form is recorded in the cli-relaxed transcript); what
    // varies here (the liar's state) leaves the exit status and the listener it names.
    expect(cliRun.code, cliRun.stdout).toBe(3);
    expect(cliRun.stdout).toContain("tcp 127.0.0.1:8766");
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
    await expectTranscript(r.text, "transcripts/egress-audit/host-nothing-to-audit.txt");
    expect(fx.cp.hostAgents.pid("on-host")).toBeUndefined();
  });
});
