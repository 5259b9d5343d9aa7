// A conversation's idle policy on its page: awake or asleep (why, since when, what was kept), its
// idle timeout and maximum lifetime; and the operator's tenants table with their pause buttons.
import type { ConversationView } from "../../control-plane.js";
import type { TenantPause } from "../../tenants/tenant-pauses.js";
import { html, type SafeHtml } from "../html.js";
import { formatTime } from "./format.js";

function seconds(n: number, none: string): string {
  return n > 0 ? `${n} s` : none;
}

export function lifecycleFacts(conv: ConversationView): SafeHtml {
  const sleep = conv.lifecycle?.sleep;
  const policy = html`idle timeout ${seconds(conv.policy.idleTimeoutSeconds, "never")} · maximum lifetime ${seconds(conv.policy.maxLifetimeSeconds, "none")}`;
  if (!sleep)
    return html`<dl class="facts" data-lifecycle-state="active"><dt>Lifecycle</dt><dd><span class="state state-active">active</span> ${policy}</dd></dl>`;
  const what = sleep.enclosure ? html`enclosure <code>${sleep.enclosure.image}</code> (${sleep.enclosure.runtime})` : html`host agent`;
  return html`<dl class="facts" data-lifecycle-state="sleeping"><dt>Lifecycle</dt><dd><span class="state state-sleeping">sleeping</span> since ${formatTime(sleep.atMs)} <span data-sleep-reason="${sleep.reason}">(${sleep.reason})</span> · ${policy}</dd>
<dt>Asleep</dt><dd>${what} ${sleep.mechanism === "stop" ? "stopped" : "checkpointed"}; memory <strong data-memory-kept="${sleep.memoryKept ? "yes" : "no"}">${sleep.memoryKept ? "kept" : "not kept"}</strong>. The next call wakes it; the workspace stays.</dd></dl>`;
}

export interface TenantRow {
  name: string;
  conversations: number;
  sleeping: number;
  pause?: TenantPause;
}

/** The tenants that own conversations, each with its pause or resume form; nothing without token tenants (a control plane without tokens has none). */
export function tenantsTable(rows: readonly TenantRow[], csrf: string): SafeHtml {
  if (!rows.length) return html``;
  return html`<h2>Tenants</h2><table class="grid tenants"><thead><tr><th>tenant</th><th>conversations</th><th>asleep</th><th>state</th><th></th></tr></thead><tbody>${rows.map(
    (t) => {
      const action = `/tenants/${encodeURIComponent(t.name)}/${t.pause ? "resume" : "pause"}`;
      const state = t.pause
        ? html`<span class="state state-paused">paused</span> <span class="muted small">since ${formatTime(t.pause.pausedAtMs)} by ${t.pause.pausedBy}${t.pause.reason ? html` — ${t.pause.reason}` : ""}</span>`
        : html`<span class="state state-active">active</span>`;
      const form = t.pause
        ? html`<form class="inline-form" method="post" action="${action}" data-async="tenant"><input type="hidden" name="_csrf" value="${csrf}"><button type="submit" data-busy="resuming…">Resume tenant</button><p class="form-error" role="alert" hidden></p></form>`
        : html`<form class="inline-form" method="post" action="${action}" data-async="tenant"><input type="hidden" name="_csrf" value="${csrf}"><label>reason <input type="text" name="reason" size="16" maxlength="1000"></label><button type="submit" class="danger" data-confirm="Pause tenant ${t.name}? Its calls are refused and its conversations put to sleep until it is resumed." data-busy="pausing…">Pause tenant</button><p class="form-error" role="alert" hidden></p></form>`;
      return html`<tr data-tenant="${t.name}" data-paused="${t.pause ? "yes" : "no"}"><td>${t.name}</td><td>${t.conversations}</td><td>${t.sleeping}</td><td>${state}</td><td>${form}</td></tr>`;
    },
  )}</tbody></table>`;
}
