// Two token tenants' host sandboxes share nothing the kernel keeps per uid or per namespace, through
// the real API over TLS: each conversation runs as a host uid of its own, the seccomp filter refuses
// the kernel keyrings and nested namespaces (ptrace stays: see test/integration's debug-host suite),
// one tenant's inotify instances, processes, SysV IPC, abstract sockets and /tmp do not reach the
// other's, each sandbox is bounded by a cgroup of its own (a fork bomb and a 3 GiB allocation fail
// inside while the other tenant is served), the audit reads every process of the cgroup, and nothing
// a tenant reads names a host folder.
import { spawn } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ControlPlaneClient, resultText } from "@enclave/client/control-plane-client.js";
import { ControlPlane } from "@enclave/control-plane/control-plane.js";
import { conversationKey } from "@enclave/control-plane/conversations/conversation-keys.js";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";
import { startTenantService, type TenantService } from "../helpers/tenant-service.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";
import { alive, until } from "../helpers/wait.js";
import { holdAllInotify } from "../helpers/exhaust-inotify.js";

/** Small bounds, set by the test as an operator would, so that crossing them is cheap. */
const LIMITS = { pidsMax: 96, memoryBytes: 256 * 1024 ** 2, cpuShares: 512 };

let svc: TenantService<"acme" | "globex" | "ops">;
let cp: ControlPlane;
const tenants: Record<"acme" | "globex" | "ops", { client: ControlPlaneClient; run: string }> = {} as never;
const strays: number[] = [];

beforeAll(async () => {
  svc = await startTenantService({
    tenants: ["acme", "globex"],
    operators: ["ops"],
    config: (c) => void (c.hostSandbox.limits = { ...LIMITS }),
    prefix: "enclave-host-tenants-",
  });
  cp = svc.cp;
  for (const name of ["acme", "globex", "ops"] as const) {
    const client = svc.client(name);
    await client.createConversation("x");
    tenants[name] = { client, run: (await client.openRun("x", { approvalPolicy: "never" })).id };
  }
}, 120_000);

afterAll(async () => {
  for (const pid of strays) if (alive(pid)) process.kill(pid, "SIGKILL");
  await svc?.close();
});

async function sh(tenant: "acme" | "globex", command: string): Promise<string> {
  const { client, run } = tenants[tenant];
  const r = await client.callTool(run, "exec", { command });
  // The result's last line is the tool's own (exit code and time).
  return resultText(r).replace(/\n?\[exit code [^\n]*\]\s*$/, "");
}

/** A Python program run in the tenant's sandbox, its output. */
function py(tenant: "acme" | "globex", program: string): Promise<string> {
  return sh(tenant, `python3 - <<'EOF'\n${program}\nEOF`);
}

/** What the audit reads about the tenant's running sandbox, from the host. */
function target(tenant: "acme" | "globex") {
  const t = cp.hostAgents.auditTarget(conversationKey(tenant, "x"));
  if (!t) throw new Error(`no host agent runs for ${tenant}`);
  return t;
}

const KEYS = `
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
def call(nr, *args):
    r = libc.syscall(nr, *args)
    return r, ctypes.get_errno()
`;

describe("two tenants' host sandboxes", () => {
  it("run as host uids of their own, from the reserved range; each workspace is its sandbox's", async () => {
    const [a, g] = [Number((await sh("acme", "id -u")).trim()), Number((await sh("globex", "id -u")).trim())];
    expect(a).not.toBe(g);
    const { base, count } = cp.config.hostSandbox.uids;
    for (const uid of [a, g]) {
      expect(uid).toBeGreaterThanOrEqual(base);
      expect(uid).toBeLessThan(base + count);
    }
    expect(target("acme").identity.uid).toBe(a);
    expect(statSync(cp.getConversation(conversationKey("acme", "x")).workspacePath).uid).toBe(a);
    expect(statSync(cp.getConversation(conversationKey("globex", "x")).workspacePath).uid).toBe(g);
    // Tools that ask who they are get an answer.
    expect((await sh("acme", "whoami")).trim()).toBe("enclave");
  });

  it("cannot use the kernel keyrings: add_key and keyctl are refused, and nothing one adds reaches the other", async () => {
    const added = await py("acme", `${KEYS}\nprint("add_key", *call(248, b"user", b"enclave-test", b"acme-secret", 11, -4))`);
    const read = await py(
      "globex",
      `${KEYS}\nkid, err = call(250, 10, -4, b"user", b"enclave-test", 0)\nprint("search", kid, err)\nbuf = ctypes.create_string_buffer(64)\nif kid > 0:\n    print("read", call(250, 11, kid, buf, 64), buf.value)`,
    );
    expect(read).not.toContain("acme-secret");
    expect(added).toMatch(/^add_key -1 1$/m); // EPERM
    expect(read).toMatch(/^search -1 1$/m);
  });

  it("refuses nested namespaces: unshare -Urnm fails, clone with CLONE_NEWUSER too", async () => {
    const r = await sh("acme", "unshare -Urnm id 2>&1; echo exit=$?");
    expect(r).not.toMatch(/uid=0/);
    expect(r).toMatch(/exit=[1-9]/);
    const clone = await py("acme", `${KEYS}\nprint("unshare", *call(272, 0x10000000))`);
    expect(clone.trim()).toBe("unshare -1 1");
  });

  it("keep inotify instances per sandbox: one tenant holding all of its own leaves the other's", async () => {
    await sh("acme", holdAllInotify(300));
    expect(Number((await sh("acme", "cat /tmp/inotify-held")).trim())).toBeGreaterThan(0);
    const own = await py("acme", "import ctypes\nprint('acme inotify', ctypes.CDLL(None).inotify_init() >= 0)");
    expect(own.trim()).toBe("acme inotify False"); // the positive control: acme's are all held
    const other = await py("globex", "import ctypes\nprint('globex inotify', ctypes.CDLL(None).inotify_init() >= 0)");
    expect(other.trim()).toBe("globex inotify True");
  });

  it("count RLIMIT_NPROC per sandbox: one tenant's processes do not use up the other's", async () => {
    await sh("globex", "for i in $(seq 50); do setsid -f sleep 300 >/dev/null 2>&1; done; echo started");
    // acme allows itself 25 tasks more than it sees of its own uid (room for threads its agent starts
    // meanwhile, fewer than globex's 50): only another's processes would be in the way.
    const r = await py(
      "acme",
      `import os, resource
mine = sum(len(os.listdir(f"/proc/{p}/task")) for p in os.listdir("/proc") if p.isdigit() and os.stat(f"/proc/{p}").st_uid == os.getuid())
resource.setrlimit(resource.RLIMIT_NPROC, (mine + 25, mine + 25))
try:
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    print("forked")
except OSError as e:
    print("refused", e.errno)`,
    );
    expect(r.trim()).toBe("forked");
  });

  it("keep SysV IPC, abstract unix sockets and /tmp per sandbox", async () => {
    const made = await sh(
      "acme",
      `ipcmk -M 4096 >/dev/null && ipcs -m | grep -c '^0x'; echo acme > /tmp/acme-only.txt; setsid -f python3 -c '
import socket, time
s = socket.socket(socket.AF_UNIX); s.bind("\\0enclave-abstract-test"); s.listen(1); time.sleep(300)' >/dev/null 2>&1; sleep 0.5; echo made`,
    );
    expect(made).toMatch(/^1$/m);
    const seen = await sh(
      "globex",
      `ipcs -m | grep -c '^0x'; ls /tmp; python3 -c '
import socket
s = socket.socket(socket.AF_UNIX)
try:
    s.connect("\\0enclave-abstract-test"); print("connected")
except OSError as e:
    print("unreachable", e.errno)'`,
    );
    expect(seen).toMatch(/^0$/m);
    expect(seen).not.toContain("acme-only.txt");
    expect(seen).toMatch(/^unreachable \d+$/m);
    // The positive control: acme reaches its own socket.
    expect(
      await sh("acme", `python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect("\\0enclave-abstract-test"); print("connected")'`),
    ).toContain("connected");
  });
});

describe("each host sandbox's cgroup", () => {
  it("holds the operator's limits, and the sandbox's processes", () => {
    const t = target("acme");
    expect(t.cgroup?.current()).toEqual(LIMITS);
    expect(t.cgroup?.members()).toContain(t.agentPid);
    expect(target("globex").cgroup?.folders.get("pids")).not.toBe(t.cgroup?.folders.get("pids"));
  });

  it("goes with the sandbox: deleting the conversation removes it", async () => {
    const { client } = tenants.globex;
    await client.createConversation("short-lived");
    const run = (await client.openRun("short-lived", { approvalPolicy: "never" })).id;
    expect((await client.callTool(run, "exec", { command: "setsid -f sleep 300 >/dev/null 2>&1; echo ok" })).isError).toBe(false);
    const folders = [...(cp.hostAgents.auditTarget(conversationKey("globex", "short-lived"))?.cgroup?.folders.values() ?? [])];
    expect(folders).toHaveLength(3);
    expect(folders.every((f) => existsSync(f))).toBe(true);
    await client.deleteConversation("short-lived");
    await until(() => folders.every((f) => !existsSync(f)), "the sandbox's cgroup to be removed", 10_000);
  });

  it("a fork bomb fails inside with the kernel's error, and the other tenant is served meanwhile", async () => {
    const bomb = py(
      "acme",
      `import os, signal, time
kids = []
err = ""
for i in range(1500):
    try:
        pid = os.fork()
    except OSError as e:
        err = os.strerror(e.errno)
        break
    if pid == 0:
        time.sleep(30)
        os._exit(0)
    kids.append(pid)
print("forked", len(kids), "then", err or "nothing refused")
for k in kids:
    os.kill(k, signal.SIGKILL)
for k in kids:
    os.waitpid(k, 0)`,
    );
    const other = await sh("globex", "echo served");
    const r = await bomb;
    expect(other.trim()).toBe("served");
    expect(r).toMatch(/^forked \d+ then Resource temporarily unavailable$/m);
    expect(Number(/forked (\d+)/.exec(r)?.[1])).toBeLessThan(LIMITS.pidsMax);
    expect((await sh("acme", "echo still-here")).trim()).toBe("still-here");
  });

  it("a process that touches 3 GiB is killed by the kernel inside the sandbox; both tenants go on", async () => {
    const r = await sh("acme", `python3 -c "x = b'x' * (3 * 1024 ** 3); print('allocated', len(x))"; echo exit=$?`);
    expect(r).not.toContain("allocated");
    expect(r).toMatch(/exit=(137|1)\b/); // SIGKILL by the OOM killer, or MemoryError
    expect((await sh("acme", "echo still-here")).trim()).toBe("still-here");
    expect((await sh("globex", "echo served")).trim()).toBe("served");
  });
});

describe("the host audit", () => {
  it("reads every process of the sandbox's cgroup, and fails on one with capabilities", async () => {
    await sh("acme", "setsid -f sleep 300 >/dev/null 2>&1; echo ok");
    const before = await tenants.acme.client.auditEnclosure("x");
    const items = Object.fromEntries(before.checks.map((c) => [c.item, c]));
    expect(items["sandbox processes"]?.ok, items["sandbox processes"]?.outside).toBe(true);
    expect(items.cgroup?.ok, items.cgroup?.outside).toBe(true);
    expect(before.passed).toBe(true);
    // A root process with every capability, put into the sandbox's cgroup from the host.
    const intruder = spawn("sleep", ["300"], { stdio: "ignore" });
    strays.push(intruder.pid ?? 0);
    for (const file of target("acme").cgroup?.procsFiles() ?? []) writeFileSync(file, String(intruder.pid));
    const after = await tenants.acme.client.auditEnclosure("x");
    const failed = Object.fromEntries(after.checks.map((c) => [c.item, c]));
    expect(failed["sandbox processes"]?.ok).toBe(false);
    expect(failed["sandbox processes"]?.outside).toContain(`${intruder.pid} (sleep 300)`);
    expect(failed.cgroup?.ok).toBe(false);
    expect(after.passed).toBe(false);
    intruder.kill("SIGKILL");
    await until(() => !alive(intruder.pid ?? 0), "the intruder to go");
  });

  it("fails on a process of the sandbox that is outside its cgroup", async () => {
    const t = target("acme");
    const sleeper = t.cgroup?.members().find((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8") === "sleep\u0000300\u0000");
    expect(sleeper).toBeGreaterThan(0);
    // Moved to the cgroup above (the parent of every sandbox's), as a process that left would be.
    for (const folder of t.cgroup?.folders.values() ?? []) writeFileSync(join(folder, "..", "cgroup.procs"), String(sleeper));
    const report = await tenants.acme.client.auditEnclosure("x");
    const cgroup = report.checks.find((c) => c.item === "cgroup");
    expect(cgroup?.ok).toBe(false);
    expect(cgroup?.outside).toContain(String(sleeper));
    // Which process is outside, as the item says it (the pid masked), recorded.
    await expectTranscript(cgroup?.outside ?? "", "transcripts/host-tenants/cgroup-outside.txt", [
      [new RegExp(`\\b${sleeper}\\b`, "g"), "<moved pid>"],
      [/\/sys\/fs\/cgroup\/\S+/g, "<cgroup>"],
    ]);
    expect(report.passed).toBe(false);
    process.kill(sleeper ?? 0, "SIGKILL");
  });
});

describe("host paths", () => {
  it("the sandbox's pid 1 names no host folder; its mount table only the folders bound into it, by names that say nothing of the tenant", async () => {
    const conv = cp.getConversation(conversationKey("acme", "x"));
    const r = await sh("acme", "tr '\\0' ' ' < /proc/1/cmdline; echo; cat /proc/self/mountinfo");
    const [cmdline = "", ...mounts] = r.split("\n");
    expect(cmdline).toMatch(/bwrap --args \d+ -- /);
    for (const hostPath of [cp.config.dataDir, conv.workspacePath, repoRoot, cp.config.agentBundleDir, "/sys/fs/cgroup"])
      expect(cmdline).not.toContain(hostPath);
    // A bind mount's root field is its folder's path on the host's file system, as the kernel shows
    // any bind mount: the workspace, the state folder and the agent bundle (SECURITY.md says so).
    const roots = mounts
      .map((l) => l.split(" "))
      .filter(
        (f) =>
          f.length > 4 &&
          f[3]?.startsWith("/") &&
          !["/", "/usr", "/etc", "/newroot"].includes(f[3]) &&
          !f.includes("proc") &&
          !f.includes("devtmpfs") &&
          !f.includes("tmpfs"),
      );
    // (and the host's npm language servers, read-only, where `make host-servers` installed them)
    expect(
      roots
        .map((f) => f[4])
        .filter((m) => m !== "/opt/enclave/host-tools")
        .sort(),
    ).toEqual(["/opt/enclave/agent", "/run/enclave/state", "/workspace"]);
    // Their names on the host say nothing of the tenant or the conversation.
    for (const f of roots) expect(f[3]).not.toMatch(/acme|\/x$/);
  });

  it("a token tenant is told no workspace path (its folders are the data folder's); an operator is", async () => {
    expect((await tenants.acme.client.getConversation("x")).workspacePath).toBe("");
    expect((await tenants.acme.client.listConversations()).map((c) => c.workspacePath)).toEqual([""]);
    expect((await tenants.ops.client.getConversation("acme.x")).workspacePath).toBe(cp.getConversation(conversationKey("acme", "x")).workspacePath);
    const details: string[] = [];
    await tenants.acme.client.subscribeAudit({ conversationId: "x", includeHistory: true, historyOnly: true }, (e) => details.push(`${e.kind} ${e.detail}`))
      .done;
    expect(details.some((d) => d.startsWith("conversation_created"))).toBe(true);
    expect(details.join("\n")).not.toContain(cp.config.dataDir);
  });
});
