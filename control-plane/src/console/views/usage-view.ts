// What a conversation costs, as a small table on its page: one row per figure, with where it came
// from and when it was read; a part that could not be measured says why.
import type { ConversationUsage } from "../../model/usage.js";
import { html, type SafeHtml } from "../html.js";
import { formatBytes, formatTime } from "./format.js";

const bytes = (n: number, none = "n/a"): string => (n < 0 ? none : formatBytes(n));
const secs = (s: number): string => (s < 0 ? "n/a" : `${s.toFixed(2)} s`);

export function usageView(u: ConversationUsage): SafeHtml {
  const rows: Array<[string, string, string, number | undefined]> = [];
  const c = u.cgroup;
  if (c) {
    rows.push(["CPU time", `${secs(c.cpuUserSeconds)} user, ${secs(c.cpuSystemSeconds)} system`, c.source, c.measuredAtMs]);
    rows.push([
      "memory",
      `${bytes(c.memoryBytes)} now, ${bytes(c.memoryPeakBytes)} peak, limit ${bytes(c.memoryLimitBytes, "none")}`,
      c.source,
      c.measuredAtMs,
    ]);
    rows.push(["tasks", c.pids < 0 ? "n/a" : String(c.pids), c.source, c.measuredAtMs]);
  } else rows.push(["CPU and memory", "—", u.cgroupUnavailable, undefined]);
  const e = u.engine;
  if (e) {
    const pct = e.cpuPercent >= 0 ? ` (${e.cpuPercent.toFixed(1)}%)` : "";
    rows.push([
      "engine",
      `CPU ${secs(e.cpuTotalSeconds)}${pct}; memory ${bytes(e.memoryUsageBytes)} of ${bytes(e.memoryLimitBytes, "no limit")}; ${e.pids < 0 ? "n/a" : e.pids} tasks`,
      `docker stats (engine ${e.engine})`,
      e.measuredAtMs,
    ]);
  } else rows.push(["engine", "—", u.engineUnavailable, undefined]);
  const w = u.workspace;
  if (w) {
    const what = w.source === "walk" ? `walk of the workspace folder (${w.entries} entries)` : "copy mode's workspace volume";
    rows.push(["workspace disk", `${w.capped ? "at least " : ""}${bytes(w.bytes)}`, [what, w.note].filter(Boolean).join("; "), w.measuredAtMs]);
  } else rows.push(["workspace disk", "—", u.workspaceUnavailable, undefined]);
  return html`<table class="grid usage"><thead><tr><th>figure</th><th>value</th><th>from</th><th>measured (UTC)</th></tr></thead><tbody>${rows.map(
    ([what, value, from, at]) =>
      html`<tr><td>${what}</td><td>${value}</td><td class="muted">${from}</td><td>${at === undefined ? "" : formatTime(at)}</td></tr>`,
  )}</tbody></table>`;
}
