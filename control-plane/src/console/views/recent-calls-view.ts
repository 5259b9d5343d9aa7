// A conversation's recent tool calls, newest first: tool, where the call came from, a digest of its
// arguments (never the arguments), outcome and duration. The page renders the last few; the event
// stream pushes each new call's row as it is recorded.
import type { AuditEvent } from "../../audit/audit-log.js";
import { html, type SafeHtml } from "../html.js";
import { outcomeClass } from "./audit-view.js";
import { formatTime } from "./format.js";

/** How many calls the section shows (the script drops older rows past it). */
export const RECENT_CALLS = 20;

export function recentCallRow(e: AuditEvent): SafeHtml {
  const digest = e.argumentsDigest.replace(/^sha256:/, "");
  return html`<tr data-call-seq="${e.seq}" class="${e.origin === "bridge" ? "origin-bridge" : ""}"><td class="time">${formatTime(e.timeMs)}</td><td><code class="call-tool">${e.tool}</code></td><td><span class="origin origin-${e.origin === "bridge" ? "bridge" : "model"}">${e.origin}</span></td><td class="digest small" title="${e.argumentsDigest}">${digest ? html`<code>${digest.slice(0, 12)}</code>` : html`<span class="muted">—</span>`}</td><td><span class="outcome call-outcome ${outcomeClass(e.outcome)}">${e.outcome}</span></td><td class="num call-duration">${e.durationMs} ms</td></tr>`;
}

export function recentCallsSection(conversationId: string, calls: readonly AuditEvent[]): SafeHtml {
  return html`<section class="recent-calls"><h2>Recent tool calls</h2>
<table class="grid calls"><thead><tr><th>time (UTC)</th><th>tool</th><th>origin</th><th>arguments</th><th>outcome</th><th>took</th></tr></thead>
<tbody data-calls="${conversationId}" data-calls-max="${RECENT_CALLS}">${calls.slice(0, RECENT_CALLS).map(recentCallRow)}</tbody></table>
${calls.length ? "" : html`<p class="empty-note" data-calls-empty>No tool call yet; calls appear here as they finish.</p>`}</section>`;
}
