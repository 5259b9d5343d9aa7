// The inside half of the egress audit: what this process can see of its own confinement, read from
// /proc and the cgroup files rather than from what the container was asked to be.
import { readFile, stat, statfs } from "node:fs/promises";
import type { SelfAuditResponse } from "@enclave/proto/gen/enclave/agent/v1/info.js";

async function read(path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch {
    return "";
  }
}

/** "0100007F:1F90" → "127.0.0.1:8080" (IPv4) or the hex address for IPv6, which is clear enough. */
function endpoint(hex: string): string {
  const [addr = "", port = "0"] = hex.split(":");
  const p = Number.parseInt(port, 16);
  if (addr.length !== 8) return `[${addr}]:${p}`;
  const bytes = (addr.match(/../g) ?? []).map((b) => Number.parseInt(b, 16)).reverse();
  return `${bytes.join(".")}:${p}`;
}

/** TCP sockets in LISTEN (state 0A) and every UDP socket, which is bound to receive. */
export async function listeningSockets(): Promise<string[]> {
  const found: string[] = [];
  for (const proto of ["tcp", "tcp6", "udp", "udp6"]) {
    for (const line of (await read(`/proc/net/${proto}`)).split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 4) continue;
      if (proto.startsWith("tcp") && cols[3] !== "0A") continue;
      found.push(`${proto} ${endpoint(cols[1] ?? "")}`);
    }
  }
  return found;
}

/** TCP connections established (state 01) inside: a gVisor checkpoint cannot save them. */
export async function establishedTcp(): Promise<string[]> {
  const found: string[] = [];
  for (const proto of ["tcp", "tcp6"]) {
    for (const line of (await read(`/proc/net/${proto}`)).split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 4 || cols[3] !== "01") continue;
      found.push(`${proto} ${endpoint(cols[1] ?? "")} ${endpoint(cols[2] ?? "")}`);
    }
  }
  return found;
}

async function routes(): Promise<string[]> {
  const v4 = (await read("/proc/net/route"))
    .split("\n")
    .slice(1)
    .map((l) => l.trim().split(/\s+/))
    .filter((c) => c.length > 2 && c[0] !== "lo")
    .map((c) => `${c[0]} ${c[1]}`);
  const v6 = (await read("/proc/net/ipv6_route"))
    .split("\n")
    .map((l) => l.trim().split(/\s+/))
    .filter((c) => c.length >= 10 && c[9] !== "lo")
    .map((c) => `${c[9]} ${c[0]}/${Number.parseInt(c[1] ?? "0", 16)}`);
  return [...v4, ...v6];
}

function statusField(status: string, name: string): string {
  return status.match(new RegExp(`^${name}:\\s*(.*)$`, "m"))?.[1]?.trim() ?? "";
}

async function number(path: string): Promise<number | undefined> {
  const t = (await read(path)).trim();
  if (!t || t === "max") return undefined;
  const n = Number(t.split(/\s+/)[0]);
  return Number.isFinite(n) ? n : undefined;
}

async function cgroupLimits(): Promise<Pick<SelfAuditResponse, "cgroupVersion" | "pidsMax" | "memoryMaxBytes" | "cpus">> {
  const v2 = (await read("/sys/fs/cgroup/cgroup.controllers")) !== "";
  if (v2) {
    const [quota, period] = (await read("/sys/fs/cgroup/cpu.max")).trim().split(/\s+/);
    const q = Number(quota);
    return {
      cgroupVersion: "v2",
      pidsMax: (await number("/sys/fs/cgroup/pids.max")) ?? -1,
      memoryMaxBytes: (await number("/sys/fs/cgroup/memory.max")) ?? -1,
      cpus: quota && quota !== "max" && Number(period) > 0 ? q / Number(period) : 0,
    };
  }
  const memory = (await number("/sys/fs/cgroup/memory/memory.limit_in_bytes")) ?? -1;
  const quota = (await number("/sys/fs/cgroup/cpu/cpu.cfs_quota_us")) ?? -1;
  const period = (await number("/sys/fs/cgroup/cpu/cpu.cfs_period_us")) ?? 0;
  return {
    cgroupVersion: "v1",
    pidsMax: (await number("/sys/fs/cgroup/pids/pids.max")) ?? -1,
    // v1 reports "no limit" as a huge page-aligned number.
    memoryMaxBytes: memory >= 2 ** 62 ? -1 : memory,
    cpus: quota > 0 && period > 0 ? quota / period : 0,
  };
}

const FS_TYPES: Record<number, string> = { 0xef53: "ext4", 0x794c7630: "overlay", 0x01021994: "tmpfs", 0x58465342: "xfs", 0x9123683e: "btrfs" };

/** What bounds the workspace from inside: its filesystem's type and size (a copy-mode volume is its own). */
async function workspaceFs(root: string): Promise<Pick<SelfAuditResponse, "workspaceFsType" | "workspaceFsTotalBytes" | "workspaceFsFreeBytes">> {
  try {
    const fs = await statfs(root);
    return {
      workspaceFsType: FS_TYPES[fs.type] ?? `0x${fs.type.toString(16)}`,
      workspaceFsTotalBytes: fs.blocks * fs.bsize,
      workspaceFsFreeBytes: fs.bavail * fs.bsize,
    };
  } catch {
    return { workspaceFsType: "", workspaceFsTotalBytes: -1, workspaceFsFreeBytes: -1 };
  }
}

export async function selfAudit(socketPath: string, workspaceRoot: string): Promise<SelfAuditResponse> {
  const status = await read("/proc/self/status");
  const rootMount = (await read("/proc/self/mounts")).split("\n").find((l) => l.split(" ")[1] === "/") ?? "";
  // Overlay's lowerdir/upperdir paths say nothing about confinement and run to kilobytes.
  const rootOptions = (rootMount.split(" ")[3] ?? "")
    .split(",")
    .filter((o) => !/dir=/.test(o))
    .join(",");
  const sock = await stat(socketPath).catch(() => undefined);
  return {
    interfaces: (await read("/proc/net/dev"))
      .split("\n")
      .slice(2)
      .map((l) => l.split(":")[0]?.trim() ?? "")
      .filter(Boolean),
    routes: await routes(),
    listeningSockets: await listeningSockets(),
    capEff: statusField(status, "CapEff"),
    capPrm: statusField(status, "CapPrm"),
    capBnd: statusField(status, "CapBnd"),
    noNewPrivs: statusField(status, "NoNewPrivs") === "1",
    noNewPrivsShown: /^NoNewPrivs:/m.test(status),
    seccompMode: Number(statusField(status, "Seccomp") || 0),
    seccompFilters: Number(statusField(status, "Seccomp_filters") || 0),
    rootReadOnly: rootOptions.split(",").includes("ro"),
    rootMountOptions: rootOptions,
    uid: process.getuid?.() ?? -1,
    gid: process.getgid?.() ?? -1,
    ...(await cgroupLimits()),
    socketPath,
    socketMode: sock ? (sock.mode & 0o777).toString(8) : "",
    socketUid: sock?.uid ?? -1,
    ...(await workspaceFs(workspaceRoot)),
  };
}
