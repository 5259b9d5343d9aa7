// A second Docker engine for tests, "remote" in every way that matters to the control plane: its own
// dockerd (data root, exec root, pidfile, its own managed containerd, its own cgroup parent), inside a
// network namespace made here, reached only over TCP with TLS (certificates made here with openssl)
// at the namespace's own address on a veth pair. dockerd is entered into the namespace with nsenter
// --net only: `ip netns exec` also remounts /sys, which hides the cgroup hierarchies dockerd needs.
// Everything is torn down by what it is (pids read from our own pidfile and cgroups, mounts under our
// own folder), never by name.
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Docker from "dockerode";
import type { EngineConfig } from "@enclave/control-plane/placement/engines.js";
import { dockerFor } from "@enclave/control-plane/placement/engines.js";

export interface RemoteEngine {
  name: string;
  /** tcp://ADDRESS:2376 inside the namespace. */
  host: string;
  config: EngineConfig;
  docker: Docker;
  /** dockerd's pid. */
  pid: number;
  /** dockerd's log. */
  logFile: string;
  /** Kills dockerd with SIGKILL, as a crash or a lost machine would (its containers are left behind). */
  kill(): void;
  /** Stops everything it started and removes its namespace and files. */
  teardown(): Promise<void>;
}

function have(cmd: string): boolean {
  return ["/usr/sbin", "/usr/bin", "/sbin", "/bin"].some((d) => existsSync(join(d, cmd)));
}

/** Why a second engine cannot run here, or "" when it can. */
export function remoteEngineUnsupported(): string {
  if (process.getuid?.() !== 0) return "a second dockerd in a network namespace needs root";
  const missing = ["dockerd", "ip", "nsenter", "openssl"].filter((c) => !have(c));
  if (missing.length) return `missing ${missing.join(", ")}`;
  return "";
}

function run(cmd: string, args: string[], cwd?: string): string {
  return execFileSync(cmd, args, { cwd, stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 }).toString();
}

/** A CA, the engine's server pair (valid for its address) and the control plane's client pair. */
function makeCerts(dir: string, address: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const ssl = (...args: string[]): string => run("openssl", args, dir);
  ssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca-key.pem", "-out", "ca.pem", "-days", "1", "-subj", "/CN=enclave-test-ca");
  writeFileSync(join(dir, "server.ext"), `subjectAltName=IP:${address}\nextendedKeyUsage=serverAuth\n`);
  writeFileSync(join(dir, "client.ext"), "extendedKeyUsage=clientAuth\n");
  for (const [who, ext] of [
    ["server", "server.ext"],
    ["client", "client.ext"],
  ] as const) {
    ssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", `${who}-key.pem`, "-out", `${who}.csr`, "-subj", `/CN=enclave-test-${who}`);
    ssl(
      "x509",
      "-req",
      "-in",
      `${who}.csr`,
      "-CA",
      "ca.pem",
      "-CAkey",
      "ca-key.pem",
      "-CAcreateserial",
      "-out",
      `${who}-cert.pem`,
      "-days",
      "1",
      "-extfile",
      ext,
    );
  }
}

function killPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Gone already.
  }
}

/** Pids whose command line names our own folder (our containerd and its shims). */
function pidsNaming(marker: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(marker)) out.push(Number(entry));
    } catch {
      // Exited meanwhile.
    }
  }
  return out;
}

/** Every cgroup folder of ours (one per v1 controller, or the one v2 folder). */
function ourCgroups(parent: string): string[] {
  const roots = existsSync("/sys/fs/cgroup/cgroup.controllers") ? ["/sys/fs/cgroup"] : readdirSync("/sys/fs/cgroup").map((c) => join("/sys/fs/cgroup", c));
  return roots.map((r) => join(r, parent)).filter((d) => existsSync(d));
}

function cgroupPids(dir: string): number[] {
  const out: number[] = [];
  const walk = (d: string): void => {
    try {
      for (const line of readFileSync(join(d, "cgroup.procs"), "utf8").split("\n")) if (line) out.push(Number(line));
      for (const e of readdirSync(d, { withFileTypes: true })) if (e.isDirectory()) walk(join(d, e.name));
    } catch {
      // Removed meanwhile.
    }
  };
  walk(dir);
  return out;
}

function removeCgroupTree(dir: string): void {
  try {
    for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) removeCgroupTree(join(dir, e.name));
    execFileSync("rmdir", [dir], { stdio: "ignore" });
  } catch {
    // Busy or gone: best effort.
  }
}

/** Unmounts everything mounted under our folder, deepest first. */
function unmountUnder(dir: string): void {
  const points = readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .map((l) => l.split(" ")[4] ?? "")
    .filter((p) => p.startsWith(`${dir}/`))
    .sort((a, b) => b.length - a.length);
  for (const p of points) {
    try {
      execFileSync("umount", ["-l", p], { stdio: "ignore" });
    } catch {
      // Already gone.
    }
  }
}

async function waitFor(what: () => Promise<boolean>, label: string, timeoutMs: number): Promise<void> {
  const started = Date.now();
  for (;;) {
    if (await what()) return;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export async function startRemoteEngine(name = "remote", cap = 0): Promise<RemoteEngine> {
  const tag = randomBytes(3).toString("hex");
  // A /30 in 10.231.0.0/16 of our own, on a veth pair whose far end is in our namespace.
  // Not a /24 some interface here already uses (another run of this test, say).
  const used = run("ip", ["-o", "-4", "addr", "show"]);
  let octet = 1 + (parseInt(tag.slice(0, 2), 16) % 250);
  while (used.includes(`10.231.${octet}.`)) octet = 1 + (octet % 250);
  const hostAddress = `10.231.${octet}.1`;
  const address = `10.231.${octet}.2`;
  const netns = `enclave-eng-${tag}`;
  const vethHost = `eh${tag}`;
  const vethNs = `en${tag}`;
  const dir = mkdtempSync(join(tmpdir(), "enclave-engine-"));
  const cgroupParent = `enclave-engine-${tag}`;
  const certs = join(dir, "certs");
  let pid = 0;
  const teardown = async (): Promise<void> => {
    if (pid) {
      killPid(pid, "SIGTERM");
      const deadline = Date.now() + 15_000;
      while (Date.now() < deadline && existsSync(`/proc/${pid}`)) await new Promise((r) => setTimeout(r, 100));
      killPid(pid, "SIGKILL");
    }
    // Our containerd and shims, then whatever still runs in our containers' cgroups.
    for (const p of pidsNaming(dir)) killPid(p, "SIGKILL");
    for (const cg of ourCgroups(cgroupParent)) for (const p of cgroupPids(cg)) killPid(p, "SIGKILL");
    await new Promise((r) => setTimeout(r, 300));
    for (const cg of ourCgroups(cgroupParent)) removeCgroupTree(cg);
    unmountUnder(dir);
    try {
      run("ip", ["netns", "del", netns]);
    } catch {
      // Not made.
    }
    try {
      run("ip", ["link", "del", vethHost]);
    } catch {
      // Went with the namespace.
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    run("ip", ["netns", "add", netns]);
    run("ip", ["link", "add", vethHost, "type", "veth", "peer", "name", vethNs]);
    run("ip", ["link", "set", vethNs, "netns", netns]);
    run("ip", ["addr", "add", `${hostAddress}/30`, "dev", vethHost]);
    run("ip", ["link", "set", vethHost, "up"]);
    for (const args of [
      ["addr", "add", `${address}/30`, "dev", vethNs],
      ["link", "set", vethNs, "up"],
      ["link", "set", "lo", "up"],
    ]) {
      run("ip", ["-n", netns, ...args]);
    }
    makeCerts(certs, address);
    writeFileSync(join(dir, "daemon.json"), "{}\n");
    // dockerd's own log, kept in our folder for a failing run to read.
    const logFd = openSync(join(dir, "dockerd.log"), "a");
    const child = spawn(
      "nsenter",
      [
        `--net=/var/run/netns/${netns}`,
        "dockerd",
        "--data-root",
        join(dir, "root"),
        "--exec-root",
        join(dir, "exec"),
        "--pidfile",
        join(dir, "dockerd.pid"),
        "--config-file",
        join(dir, "daemon.json"),
        "--cgroup-parent",
        cgroupParent,
        "-H",
        `tcp://${address}:2376`,
        "--tlsverify",
        "--tlscacert",
        join(certs, "ca.pem"),
        "--tlscert",
        join(certs, "server-cert.pem"),
        "--tlskey",
        join(certs, "server-key.pem"),
        // Enclosures run with --network none: no bridge, no iptables rules in anyone's tables.
        "--bridge",
        "none",
        "--iptables=false",
        "--ip-masq=false",
        "--ip-forward=false",
      ],
      { detached: true, stdio: ["ignore", logFd, logFd] },
    );
    closeSync(logFd);
    // nsenter execs dockerd: the same pid.
    pid = child.pid ?? 0;
    child.unref();
    const config: EngineConfig = {
      name,
      host: `tcp://${address}:2376`,
      tls: { ca: join(certs, "ca.pem"), cert: join(certs, "client-cert.pem"), key: join(certs, "client-key.pem") },
      cap,
    };
    const docker = dockerFor(config);
    await waitFor(
      () =>
        docker.ping().then(
          () => true,
          () => false,
        ),
      `the second dockerd to answer at ${config.host}`,
      60_000,
    );
    return { name, host: config.host, config, docker, pid, logFile: join(dir, "dockerd.log"), kill: () => killPid(pid, "SIGKILL"), teardown };
  } catch (err) {
    await teardown();
    throw err;
  }
}
