// A conversation's audit log: filter form (kind, tool, origin, outcome), export links, and the
// events newest first; rows for new events are pushed by the event stream.
import type { AuditEvent } from "../../audit/audit-log.js";
import { AUDIT_KINDS, AUDIT_ORIGINS, AUDIT_OUTCOMES, type AuditFilter, filterQuery, isFiltered } from "../audit-filter.js";
import { html, type SafeHtml } from "../html.js";
import { formatTime } from "./format.js";

export function outcomeClass(outcome: string): string {
  const head = outcome.split(":")[0] ?? "";
  return /^[a-z_]+$/.test(head) ? `outcome-${head}` : "outcome-other";
}

export function auditRow(e: AuditEvent): SafeHtml {
  return html`<tr data-seq="${e.seq}" class="kind-${e.kind}${e.origin === "bridge" ? " origin-bridge" : ""}"><td class="num">${e.seq}</td><td class="time">${formatTime(e.timeMs)}</td><td>${e.kind}</td><td>${e.tool ? html`<code>${e.tool}</code>` : ""}${e.tier ? html` <span class="muted small">${e.tier}</span>` : ""}</td><td>${
    e.origin ? html`<span class="origin origin-${e.origin === "bridge" ? "bridge" : "model"}">${e.origin}</span>` : ""
  }</td><td>${e.outcome ? html`<span class="outcome ${outcomeClass(e.outcome)}">${e.outcome}</span>` : ""}</td><td class="num">${e.durationMs ? `${e.durationMs} ms` : ""}</td><td class="small">${e.runId}</td><td class="small wrap">${e.placement}</td><td class="wrap detail">${e.detail}${
    e.argumentsDigest ? html`<div class="digest muted small" title="${e.argumentsDigest}">args ${e.argumentsDigest.slice(0, 19)}…</div>` : ""
  }${e.kernelId ? html`<div class="muted small">from kernel ${e.kernelId}</div>` : ""}</td></tr>`;
}

function select(name: string, value: string, options: readonly string[]): SafeHtml {
  const all = value && !options.includes(value) ? [...options, value] : options;
  return html`<select name="${name}"><option value="">any</option>${all.map((o) => html`<option value="${o}" ${o === value ? html`selected` : ""}>${o}</option>`)}</select>`;
}

export interface AuditPageData {
  conversationId: string;
  filter: AuditFilter;
  limit: number;
  events: readonly AuditEvent[];
  /** True when more matching events exist than shown. */
  more: boolean;
  toolNames: readonly string[];
  error?: string;
}

export const AUDIT_PAGE_LIMITS = [100, 500, 2000] as const;

export function auditPage(d: AuditPageData): SafeHtml {
  const base = `/conversations/${encodeURIComponent(d.conversationId)}/audit`;
  const q = filterQuery(d.filter).toString();
  const exportLink = (fmt: string) => `${base}.${fmt}${q ? `?${q}` : ""}`;
  return html`<h1>Audit log · <a href="/conversations/${encodeURIComponent(d.conversationId)}">${d.conversationId}</a></h1>
<form class="filters" method="get" action="${base}">
<label>kind ${select("kind", d.filter.kind, AUDIT_KINDS)}</label>
<label>tool <input name="tool" value="${d.filter.tool}" list="tool-names" placeholder="any" size="14"></label>
<datalist id="tool-names">${d.toolNames.map((t) => html`<option value="${t}">`)}</datalist>
<label>origin ${select("origin", d.filter.origin, AUDIT_ORIGINS)}</label>
<label>outcome ${select("outcome", d.filter.outcome, AUDIT_OUTCOMES)}</label>
<label>show ${html`<select name="limit">${AUDIT_PAGE_LIMITS.map((n) => html`<option value="${n}" ${n === d.limit ? html`selected` : ""}>${n}</option>`)}</select>`}</label>
<button type="submit">Filter</button>
${isFiltered(d.filter) ? html`<a href="${base}">clear</a>` : ""}
<span class="exports">export${isFiltered(d.filter) ? " (filtered)" : ""}: <a href="${exportLink("jsonl")}" download>JSON lines</a> · <a href="${exportLink("csv")}" download>CSV</a></span>
</form>
${d.error ? html`<p class="warn" role="alert">${d.error}</p>` : ""}
<p class="muted small">Newest first; ${d.events.length} event${d.events.length === 1 ? "" : "s"} shown${d.more ? html` (more match: raise “show” or export them all)` : ""}. New events appear as they are recorded.</p>
<table class="grid audit"><thead><tr><th>seq</th><th>time (UTC)</th><th>kind</th><th>tool</th><th>origin</th><th>outcome</th><th>took</th><th>run</th><th>placement</th><th>detail</th></tr></thead>
<tbody data-audit-rows>${d.events.map(auditRow)}</tbody></table>
${d.events.length ? "" : html`<p class="empty-note" data-audit-empty>No event${isFiltered(d.filter) ? " matches these filters" : " recorded yet"}.</p>`}`;
}
