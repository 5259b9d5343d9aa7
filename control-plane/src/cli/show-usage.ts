// A conversation's usage for `enclave conversations get|show`: one line per part, each with where it
// came from, or why it is missing.
import type { ConversationUsage } from "@enclave/proto/gen/enclave/control/v1/control.js";

const MIB = 1024 ** 2;

/** Bytes as MiB with one decimal; -1 (not offered by the kernel) as "n/a", and "unlimited" where a limit is -1. */
export function mib(bytes: number, none = "n/a"): string {
  return bytes < 0 ? none : `${(bytes / MIB).toFixed(1)} MiB`;
}

const seconds = (s: number): string => (s < 0 ? "n/a" : `${s.toFixed(2)} s`);
const at = (ms: number): string => new Date(ms).toISOString();

export function showUsage(u: ConversationUsage): string[] {
  const lines = [`usage (measured ${at(u.measuredAtMs)}):`];
  const c = u.cgroup;
  lines.push(
    c
      ? `  cgroup:    cpu ${seconds(c.cpuUserSeconds)} user + ${seconds(c.cpuSystemSeconds)} system; memory ${mib(c.memoryBytes)} now, ${mib(c.memoryPeakBytes)} peak, ` +
          `limit ${mib(c.memoryLimitBytes, "unlimited")}; ${c.pids < 0 ? "n/a" : c.pids} tasks  [${c.source}]`
      : `  cgroup:    none: ${u.cgroupUnavailable}`,
  );
  const e = u.engine;
  lines.push(
    e
      ? `  engine:    cpu ${seconds(e.cpuTotalSeconds)}${e.cpuPercent >= 0 ? ` (${e.cpuPercent.toFixed(1)}%)` : ""}; memory ${mib(e.memoryUsageBytes)} of ${mib(e.memoryLimitBytes, "unlimited")}; ` +
          `${e.pids < 0 ? "n/a" : e.pids} tasks  [docker stats, engine ${e.engine}]`
      : `  engine:    none: ${u.engineUnavailable}`,
  );
  const w = u.workspace;
  lines.push(
    w
      ? `  workspace: ${mib(w.bytes)} on disk${w.source === "walk" ? ` in ${w.entries} entries` : ""}${w.capped ? " (capped: at least this)" : ""}  ` +
          `[${w.source === "walk" ? "walk of the folder" : "copy mode's volume"}, measured ${at(w.measuredAtMs)}]${w.note ? `; ${w.note}` : ""}`
      : `  workspace: none: ${u.workspaceUnavailable}`,
  );
  return lines;
}
