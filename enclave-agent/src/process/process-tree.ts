// Stopping what the agent started, and everything that started: every child is spawned as the leader
// of its own process group, so a signal to the group reaches its usual descendants; a descendant that
// made a group or session of its own (setsid, a daemonizing server) is found through /proc's parent
// links. This is the agent's one way to signal or kill a process tree.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** A process as /proc shows it: its parent, its group and its start time (which tells a reused pid apart). */
interface ProcEntry {
  pid: number;
  ppid: number;
  pgrp: number;
  start: string;
}

function procEntry(pid: number): ProcEntry | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name may hold spaces and parentheses: fields resume after the last ')', at field 3.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { pid, ppid: Number(fields[1]), pgrp: Number(fields[2]), start: fields[19] ?? "" };
  } catch {
    return undefined;
  }
}

/** Every process this agent can see, as they are now (one that exits while read is left out). */
function processTable(): ProcEntry[] {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return [];
  }
  const out: ProcEntry[] = [];
  for (const n of names) {
    if (!/^\d+$/.test(n)) continue;
    const entry = procEntry(Number(n));
    if (entry) out.push(entry);
  }
  return out;
}

/** The members of process group `pgid`. */
export function groupMembers(pgid: number): number[] {
  return processTable()
    .filter((e) => e.pgrp === pgid)
    .map((e) => e.pid);
}

/** Every process below `root` (children, their children, ...), as they are now. */
export function descendantsOf(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const { pid, ppid } of processTable()) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  const out: number[] = [];
  const queue = [root];
  while (queue.length) {
    const next = children.get(queue.shift() as number) ?? [];
    out.push(...next);
    queue.push(...next);
  }
  return out;
}

/** What a process's descriptor refers to, as /proc names it (`pipe:[12]`, `socket:[34]`, a path). */
function descriptorTarget(pid: number, fd: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/fd/${fd}`);
  } catch {
    return undefined;
  }
}

/**
 * The processes whose environment carries `name=value` (a mark set when a command was started, which
 * its descendants inherit however far they wander from its process group), optionally only those
 * whose stdout or stderr is still a pipe or socket (not redirected to a file: a deliberately
 * detached server is not something a command "left holding its output").
 */
export function markedProcesses(name: string, value: string, opts: { holdingOutput?: boolean } = {}): number[] {
  const needle = Buffer.from(`${name}=${value}\0`);
  const out: number[] = [];
  for (const { pid } of processTable()) {
    if (pid === process.pid) continue;
    let env: Buffer;
    try {
      env = readFileSync(`/proc/${pid}/environ`);
    } catch {
      continue;
    }
    if (!env.includes(needle)) continue;
    if (opts.holdingOutput && ![1, 2].some((fd) => /^(pipe|socket):/.test(descriptorTarget(pid, fd) ?? ""))) continue;
    out.push(pid);
  }
  return out;
}

/** The processes one signalling reached, kept so a later escalation reaches them even once their
 * parent is gone (an orphan is re-parented and no longer found below it). */
export interface TreeSnapshot {
  readonly pids: ReadonlyMap<number, string>;
}

/** Whether the signal was delivered (false: the process is gone already). */
function send(target: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(target, signal);
    return true;
  } catch {
    return false;
  }
}

/** A signal to the process's group only: what a user's Ctrl-C or a kernel interrupt means. */
export function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid !== undefined && pid > 0) send(-pid, signal);
}

/**
 * A signal to the process, its group and every descendant, including those that left the group.
 * With `earlier` (what a previous call returned), the processes it reached are signalled too when
 * they are still the same processes (same start time), so SIGTERM-then-SIGKILL misses no orphan.
 */
export function signalTree(pid: number | undefined, signal: NodeJS.Signals = "SIGKILL", earlier?: TreeSnapshot): TreeSnapshot {
  const pids = new Map<number, string>();
  if (pid === undefined || pid <= 0) return { pids };
  for (const p of [pid, ...descendantsOf(pid)]) {
    const entry = procEntry(p);
    if (entry) pids.set(p, entry.start);
  }
  for (const [p, start] of earlier?.pids ?? []) {
    if (!pids.has(p) && procEntry(p)?.start === start) pids.set(p, start);
  }
  // The group first: its members stop at once, before any of them can fork past the sweep.
  send(-pid, signal);
  for (const p of pids.keys()) send(p, signal);
  return { pids };
}

/** Kills these processes (those found holding something of ours, say); how many were still there. */
export function killPids(pids: readonly number[]): number {
  let killed = 0;
  for (const p of pids) if (p > 0 && p !== process.pid && send(p, "SIGKILL")) killed++;
  return killed;
}

/** Kills the process and everything below it. */
export function killProcessTree(pid: number | undefined, earlier?: TreeSnapshot): void {
  signalTree(pid, "SIGKILL", earlier);
}
