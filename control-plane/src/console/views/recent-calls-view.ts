// A conversation's recent tool calls, newest first: tool, where the call came from, a digest of its
// arguments (never the arguments), outcome and duration. The page renders the last few from the
// audit log; the event stream pushes a row when a call starts (running, with a live duration) and
// the same row, keyed by the call, when it finishes.
import type { AuditEvent } from "../../audit/audit-log.js";
import type { CallStarted } from "../../tools/call-feed.js";
import { html, type SafeHtml } from "../html.js";
import { outcomeClass } from "./audit-view.js";
import { formatTime } from "./format.js";

/** How many calls the section shows (the script drops older rows past it). */
export const RECENT_CALLS = 20;

/** A finished call's row; callKey ties it to the running row it replaces. */
export function recentCallRow(e: AuditEvent, callKey = 0): SafeHtml {
  const digest = e.argumentsDigest.replace(/^sha256:/, "");
  return html`<tr data-call-seq="${e.seq}" data-call-key="${callKey || ""}" class="${e.origin === "bridge" ? "origin-bridge" : ""}"><td class="time">${formatTime(e.timeMs)}</td><td><code class="call-tool">${e.tool}</code></td><td><span class="origin origin-${e.origin === "bridge" ? "bridge" : "model"}">${e.origin}</span></td><td class="digest small" title="${e.argumentsDigest}">${digest ? html`<code>${digest.slice(0, 12)}</code>` : html`<span class="muted">—</span>`}</td><td><span class="outcome call-outcome ${outcomeClass(e.outcome)}">${e.outcome}</span></td><td class="num call-duration">${e.durationMs} ms</td></tr>`;
}

/** A call that has started and not finished: its arguments are not checked yet, so no digest. */
export function runningCallRow(c: CallStarted): SafeHtml {
  return html`<tr data-call-key="${c.callId}" class="call-running${c.origin === "bridge" ? " origin-bridge" : ""}"><td class="time">${formatTime(c.startedAtMs)}</td><td><code class="call-tool">${c.tool}</code></td><td><span class="origin origin-${c.origin === "bridge" ? "bridge" : "model"}">${c.origin}</span></td><td class="digest small"><span class="muted">—</span></td><td><span class="outcome call-outcome outcome-running">running</span></td><td class="num call-duration"><span class="since" data-since="${c.startedAtMs}">0.0 s</span></td></tr>`;
}

export function recentCallsSection(conversationId: string, calls: readonly AuditEvent[]): SafeHtml {
  return html`<section class="recent-calls"><h2>Recent tool calls</h2>
<table class="grid calls"><thead><tr><th>time (UTC)</th><th>tool</th><th>origin</th><th>arguments</th><th>outcome</th><th>took</th></tr></thead>
<tbody data-calls="${conversationId}" data-calls-max="${RECENT_CALLS}">${calls.slice(0, RECENT_CALLS).map(recentCallRow)}</tbody></table>
${calls.length ? "" : html`<p class="empty-note" data-calls-empty>No tool call yet; calls appear here as they finish.</p>`}</section>`;
}
