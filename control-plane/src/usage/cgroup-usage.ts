// CPU and memory figures from a cgroup's own files, which the kernel keeps: cgroup v1's cpuacct,
// memory and pids controllers, or cgroup v2's unified folder. A file the kernel does not offer gives
// -1 (memory.peak arrived in Linux 5.19; cpuacct may be unmounted), never a guess.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { CgroupUsage } from "../model/usage.js";
import { cgroupNumber, parseMountinfo } from "../procfs/proc-tables.js";

export type CgroupFolders =
  | { version: "v1"; cpuacct?: string; memory?: string; pids?: string }
  | {
      version: "v2";
      unified: string;
    };

const readOr = (path: string): Promise<string> => readFile(path, "utf8").catch(() => "");

/** A number file, -1 when missing or unreadable; "max" (v2) and v1's near-2^63 "no limit" read as -1. */
async function num(folder: string | undefined, file: string): Promise<number> {
  if (folder === undefined) return -1;
  const text = (await readOr(join(folder, file))).trim();
  if (text === "") return -1;
  return cgroupNumber(text) ?? -1;
}

/** "key value" lines (cpu.stat, cpuacct.stat) as a map. */
async function keyed(folder: string | undefined, file: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (folder === undefined) return out;
  for (const line of (await readOr(join(folder, file))).split("\n")) {
    const [k, v] = line.trim().split(/\s+/);
    if (k && v !== undefined && /^\d+$/.test(v)) out.set(k, Number(v));
  }
  return out;
}

/** Linux's USER_HZ (the unit of cpuacct.stat): 100 on every architecture Enclave runs on. */
const USER_HZ = 100;

export async function readCgroupUsage(folders: CgroupFolders, source: string, now = Date.now()): Promise<CgroupUsage> {
  if (folders.version === "v2") {
    const dir = folders.unified;
    const cpu = await keyed(dir, "cpu.stat");
    const usec = (k: string): number => (cpu.has(k) ? (cpu.get(k) ?? 0) / 1e6 : -1);
    return {
      source,
      cpuUserSeconds: usec("user_usec"),
      cpuSystemSeconds: usec("system_usec"),
      memoryBytes: await num(dir, "memory.current"),
      memoryPeakBytes: await num(dir, "memory.peak"),
      memoryLimitBytes: await num(dir, "memory.max"),
      pids: await num(dir, "pids.current"),
      measuredAtMs: now,
    };
  }
  let user = await num(folders.cpuacct, "cpuacct.usage_user");
  let system = await num(folders.cpuacct, "cpuacct.usage_sys");
  if (user >= 0 && system >= 0) {
    user /= 1e9;
    system /= 1e9;
  } else {
    // Older kernels: only the tick counts of cpuacct.stat.
    const stat = await keyed(folders.cpuacct, "cpuacct.stat");
    user = stat.has("user") ? (stat.get("user") ?? 0) / USER_HZ : -1;
    system = stat.has("system") ? (stat.get("system") ?? 0) / USER_HZ : -1;
  }
  return {
    source,
    cpuUserSeconds: user,
    cpuSystemSeconds: system,
    memoryBytes: await num(folders.memory, "memory.usage_in_bytes"),
    memoryPeakBytes: await num(folders.memory, "memory.max_usage_in_bytes"),
    memoryLimitBytes: await num(folders.memory, "memory.limit_in_bytes"),
    pids: await num(folders.pids, "pids.current"),
    measuredAtMs: now,
  };
}

/** A cgroup path as /proc/PID/cgroup shows it, refused unless plainly a path below the root. */
function safeCgroupPath(path: string): boolean {
  return /^\/[\w.:@/-]*$/.test(path) && !path.split("/").some((seg) => seg === ".." || seg === ".");
}

/**
 * The cgroup folders of a container's first process on this host, refused unless the path the
 * kernel reports names the container (a process that left it, or a reused pid, is not the container).
 */
export async function containerCgroupFolders(containerId: string, pid: number): Promise<CgroupFolders> {
  if (!(pid > 0)) throw new Error("the engine reports no running process for the container");
  const byController = new Map<string, string>();
  for (const line of (await readFile(`/proc/${pid}/cgroup`, "utf8")).split("\n")) {
    const m = /^\d+:([^:]*):(.*)$/.exec(line.trim());
    if (m) for (const c of (m[1] ?? "").split(",")) byController.set(c, m[2] ?? "");
  }
  const mounts = parseMountinfo(await readFile("/proc/self/mountinfo", "utf8"));
  const folderOf = (controller: string): string | undefined => {
    const path = byController.get(controller);
    const mount = mounts.find((m) => (controller === "" ? m.fsType === "cgroup2" : m.fsType === "cgroup" && m.superOptions.includes(controller)));
    if (path === undefined || !mount) return undefined;
    if (!safeCgroupPath(path) || !path.includes(containerId)) throw new Error(`process ${pid} is in cgroup \`${path}\`, which is not the container's`);
    const below = mount.root === "/" ? path : path.startsWith(`${mount.root}/`) ? path.slice(mount.root.length) : undefined;
    return below === undefined ? undefined : join(mount.mountPoint, below);
  };
  if (byController.has("memory")) return { version: "v1", cpuacct: folderOf("cpuacct"), memory: folderOf("memory"), pids: folderOf("pids") };
  const unified = folderOf("");
  if (!unified) throw new Error(`no cgroup of process ${pid} is mounted here`);
  return { version: "v2", unified };
}
