// Host placement runs each host agent in its own pid namespace (bubblewrap): the pids its tools report
// are the sandbox's. These find a sandbox's processes from the host through the kernel's /proc (never
// a file the sandbox can write): for the audit, and for tests that map sandbox pids to host pids.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

export interface SandboxProcess {
  hostPid: number;
  /** The pid as the sandbox sees it. */
  innerPid: number;
  cmdline: string;
}

function hostPids(): number[] {
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .map(Number);
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** The pid namespace of the sandbox whose bubblewrap is `bwrapPid` (its children live in it). */
export function sandboxNamespace(bwrapPid: number): string {
  for (const pid of hostPids()) {
    const stat = read(`/proc/${pid}/stat`);
    const ppid = stat ? Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) : -1;
    if (ppid === bwrapPid) return readlinkSync(`/proc/${pid}/ns/pid`);
  }
  throw new Error(`no process of the sandbox ${bwrapPid} found`);
}

/** Every process in the namespace, with its host and inner pids. */
export function sandboxProcesses(namespace: string): SandboxProcess[] {
  const out: SandboxProcess[] = [];
  for (const pid of hostPids()) {
    let ns: string;
    try {
      ns = readlinkSync(`/proc/${pid}/ns/pid`);
    } catch {
      continue;
    }
    if (ns !== namespace) continue;
    const nspid =
      /^NSpid:\s+(.*)$/m
        .exec(read(`/proc/${pid}/status`) ?? "")?.[1]
        ?.trim()
        .split(/\s+/)
        .map(Number) ?? [];
    out.push({ hostPid: pid, innerPid: nspid.at(-1) ?? pid, cmdline: (read(`/proc/${pid}/cmdline`) ?? "").replace(/\0/g, " ").trim() });
  }
  return out;
}

/** The host pid of the sandbox's process `innerPid`. */
export function hostPidOf(bwrapPid: number, innerPid: number): number {
  const found = sandboxProcesses(sandboxNamespace(bwrapPid)).find((p) => p.innerPid === innerPid);
  if (!found) throw new Error(`no process ${innerPid} in the sandbox ${bwrapPid}`);
  return found.hostPid;
}

/** The sandbox's agent: bubblewrap's init is the namespace's pid 1, and the first process it starts,
 * the agent, is pid 2 (a process can rename itself, but not take another's pid). */
export function sandboxAgentPid(bwrapPid: number): number | undefined {
  try {
    return sandboxProcesses(sandboxNamespace(bwrapPid)).find((p) => p.innerPid === 2)?.hostPid;
  } catch {
    return undefined;
  }
}
