// A conversation's usage for `enclave conversations get|show`: one line per part, each with where it
// came from, or why it is missing.
import type { ConversationUsage } from "@enclave/proto/gen/enclave/control/v1/control.js";

/** Bytes in the largest unit that keeps a figure ≥ 1, one decimal; -1 (not offered by the kernel, or no limit) as `none`. */
export function mib(bytes: number, none = "n/a"): string {
  if (bytes < 0) return none;
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let n = bytes;
  let u = 0;
  while (n >= 1024 && u < units.length - 1) {
    n /= 1024;
    u++;
  }
  return u === 0 ? `${n} B` : `${n.toFixed(1)} ${units[u]}`;
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
