// Kills a process and everything below it: its process group (servers are spawned as group leaders)
// and, for children that made groups of their own, every descendant found through /proc.
import { readdirSync, readFileSync } from "node:fs";

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name may hold spaces and parentheses: fields resume after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[1]);
  } catch {
    return undefined;
  }
}

export function descendantsOf(root: number): number[] {
  let pids: number[];
  try {
    pids = readdirSync("/proc").filter((n) => /^\d+$/.test(n)).map(Number);
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  for (const pid of pids) {
    const ppid = parentOf(pid);
    if (ppid === undefined) continue;
    children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  const out: number[] = [];
  const queue = [root];
  while (queue.length) {
    const next = children.get(queue.shift() as number) ?? [];
    out.push(...next);
    queue.push(...next);
  }
  return out;
}

export function killProcessTree(pid: number, signal: NodeJS.Signals = "SIGKILL"): void {
  const below = descendantsOf(pid);
  for (const target of [-pid, pid, ...below]) {
    try {
      process.kill(target, signal);
    } catch {
      // Already gone.
    }
  }
}
