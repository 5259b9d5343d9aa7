// What each host sandbox of one control plane takes, read from the kernel: the sandboxes are the
// control plane's descendant processes grouped by the memory cgroup each host sandbox is given (below
// the control plane's own, in enclave-host/), so a sandbox's processes are found without asking the
// control plane, and other control planes on the same machine are not counted.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseMountinfo } from "@enclave/control-plane/procfs/proc-tables.js";

const MiB = 1024 ** 2;

function read(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** Every descendant of `root` (children, their children, …) as host pids. */
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = read(`/proc/${name}/stat`);
    if (!stat) continue;
    // Fields after the command (which may hold spaces) start past the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    const list = children.get(ppid) ?? [];
    list.push(Number(name));
    children.set(ppid, list);
  }
  const out: number[] = [];
  const queue = [...(children.get(root) ?? [])];
  while (queue.length) {
    const pid = queue.shift() as number;
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** The memory controller's mount point and the root it shows (cgroup v1). */
function memoryMount(): { mountPoint: string; root: string } | undefined {
  const m = parseMountinfo(readFileSync("/proc/self/mountinfo", "utf8")).find((e) => e.fsType === "cgroup" && e.superOptions.includes("memory"));
  return m ? { mountPoint: m.mountPoint, root: m.root } : undefined;
}

/** The process's memory cgroup path (cgroup v1), as /proc/PID/cgroup names it. */
function memoryCgroupOf(pid: number): string | undefined {
  for (const line of (read(`/proc/${pid}/cgroup`) ?? "").split("\n")) {
    const m = /^\d+:([^:]*):(.*)$/.exec(line.trim());
    if (m && (m[1] ?? "").split(",").includes("memory")) return m[2];
  }
  return undefined;
}

export function pssKiB(pid: number): number {
  return Number(/^Pss:\s+(\d+) kB/m.exec(read(`/proc/${pid}/smaps_rollup`) ?? "")?.[1] ?? 0);
}

export function rssMiB(pid: number): number {
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(read(`/proc/${pid}/status`) ?? "")?.[1] ?? 0) / 1024;
}

/** The cgroup's charge less its reclaimable file cache (what `docker stats` shows), in MiB. */
function chargeMiB(folder: string): number {
  const stat = new Map(
    (read(join(folder, "memory.stat")) ?? "")
      .trim()
      .split("\n")
      .map((l) => l.split(" ") as [string, string]),
  );
  const usage = Number(read(join(folder, "memory.usage_in_bytes")) ?? Number.NaN);
  return (usage - Number(stat.get("total_inactive_file") ?? 0)) / MiB;
}

/** The host uid a process runs as (its real uid). */
function uidOf(pid: number): number {
  return Number(/^Uid:\s+(\d+)/m.exec(read(`/proc/${pid}/status`) ?? "")?.[1] ?? -1);
}

export interface SandboxMemory {
  /** PSS of every process in the sandbox, summed, per sandbox (MiB), in the order of their uids. */
  pss: number[];
  /** The sandbox's memory cgroup charge less inactive file cache, per sandbox (MiB); empty without memory cgroups. */
  charge: number[];
  /**
   * Each sandbox's uid (the highest its processes run as): host sandboxes get theirs from a range in
   * turn, so in a control plane that deletes none, the order of the uids is the order they were made.
   */
  uids: number[];
  /** Processes counted. */
  processes: number;
}

/**
 * The host sandboxes of the control plane `controlPlanePid`, one figure each. Without memory cgroups
 * (ENCLAVE_HOST_CGROUPS=off) a sandbox is its bubblewrap (a direct child of the control plane) and
 * what runs below it, and there is no charge.
 */
export function sandboxMemory(controlPlanePid: number): SandboxMemory {
  const mount = memoryMount();
  const bySandbox = new Map<string, number[]>();
  const procs = descendants(controlPlanePid);
  for (const pid of procs) {
    const cg = memoryCgroupOf(pid);
    if (cg?.includes("/enclave-host/")) bySandbox.set(cg, [...(bySandbox.get(cg) ?? []), pid]);
  }
  const found: { pids: number[]; folder?: string }[] = [];
  if (bySandbox.size === 0) {
    // No cgroups: the control plane's children that are bubblewraps, each with its descendants.
    for (const pid of procs) {
      if (/^bwrap\b/.test((read(`/proc/${pid}/cmdline`) ?? "").replace(/\0/g, " "))) found.push({ pids: [pid, ...descendants(pid)] });
    }
  }
  for (const [cg, pids] of bySandbox) {
    const below = !mount ? undefined : mount.root === "/" ? cg : cg.startsWith(mount.root) ? cg.slice(mount.root.length) : undefined;
    found.push({ pids, folder: below === undefined ? undefined : join(mount?.mountPoint ?? "", below) });
  }
  const sandboxes = found
    .map(({ pids, folder }) => ({
      uid: Math.max(...pids.map(uidOf)),
      pss: pids.reduce((kb, p) => kb + pssKiB(p), 0) / 1024,
      charge: folder === undefined ? undefined : chargeMiB(folder),
      processes: pids.length,
    }))
    .sort((a, b) => a.uid - b.uid);
  return {
    pss: sandboxes.map((s) => s.pss),
    charge: sandboxes.flatMap((s) => (s.charge === undefined ? [] : [s.charge])),
    uids: sandboxes.map((s) => s.uid),
    processes: sandboxes.reduce((n, s) => n + s.processes, 0),
  };
}

/** MemAvailable, in MiB. */
export function availableMiB(): number {
  return Number(/^MemAvailable:\s+(\d+) kB/m.exec(readFileSync("/proc/meminfo", "utf8"))?.[1] ?? 0) / 1024;
}
