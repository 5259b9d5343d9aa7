// A conversation's "Actions" section: what may be ended by hand, each a POST form with the session's
// CSRF token. Closing a run and deleting the conversation are shown to whoever sees the conversation
// (a tenant may do both to its own, as through the API); cancelling a call, stopping a kernel or the
// host agent and forcing an enclosure's stop are an operator's and shown only to one (the server
// refuses them to anyone else whatever the page shows).
import type { ConversationView } from "../../control-plane.js";
import type { Run } from "../../model/run.js";
import type { CallStarted } from "../../tools/call-feed.js";
import { html, type SafeHtml } from "../html.js";
import { formatTime } from "./format.js";

export interface HandsState {
  conv: ConversationView;
  runs: readonly Run[];
  /** Undefined when the viewer is not an operator (nothing of it is shown). */
  operator?: {
    calls: readonly CallStarted[];
    /** The languages of the kernels alive in the conversation's running agent. */
    kernels: readonly string[];
    hostAgentPid: number | undefined;
  };
}

const base = (id: string): string => `/conversations/${encodeURIComponent(id)}`;

function actionForm(action: string, csrf: string, label: string, confirm: string, busy: string, extra: SafeHtml | string = ""): SafeHtml {
  return html`<form class="inline-form hand" method="post" action="${action}" data-async="hands">
<input type="hidden" name="_csrf" value="${csrf}">${extra}<button type="submit" class="danger" data-confirm="${confirm}" data-busy="${busy}">${label}</button>
<p class="form-error" role="alert" hidden></p>
</form>`;
}

function callsTable(s: HandsState, calls: readonly CallStarted[], csrf: string): SafeHtml {
  if (!calls.length) return html`<p class="empty-note" data-hands-calls="0">No tool call in flight.</p>`;
  return html`<table class="grid calls-in-flight" data-hands-calls="${calls.length}"><thead><tr><th>call</th><th>tool</th><th>run</th><th>origin</th><th>started (UTC)</th><th></th></tr></thead><tbody>${calls.map(
    (c) =>
      html`<tr data-call-id="${c.callId}"><td><code>${c.callId}</code></td><td><code>${c.tool}</code></td><td><code>${c.runId}</code></td><td>${c.origin}</td><td>${formatTime(c.startedAtMs)}</td><td>${actionForm(
        `${base(s.conv.id)}/calls/${c.callId}/cancel`,
        csrf,
        "Cancel call",
        `Cancel call ${c.callId} (${c.tool})? What it started is killed and its caller told.`,
        "cancelling…",
      )}</td></tr>`,
  )}</tbody></table>`;
}

export function handsSection(s: HandsState, csrf: string): SafeHtml {
  const id = s.conv.id;
  const op = s.operator;
  const runs = s.runs.length
    ? html`<ul class="hands-runs">${s.runs.map(
        (r) =>
          html`<li data-run-id="${r.id}"><code>${r.id}</code> <span class="muted">${r.surface}</span> ${actionForm(
            `${base(id)}/runs/${encodeURIComponent(r.id)}/close`,
            csrf,
            "Close run",
            `Close run ${r.id}? Its open cards are withdrawn and its staged changes dropped.`,
            "closing…",
          )}</li>`,
      )}</ul>`
    : html`<p class="empty-note">No open run to close.</p>`;
  const kernels = op
    ? op.kernels.length
      ? html`<ul class="hands-kernels">${op.kernels.map(
          (language) =>
            html`<li data-kernel="${language}">${language} kernel ${actionForm(
              `${base(id)}/kernels/${language}/stop`,
              csrf,
              `Stop ${language} kernel`,
              `Stop the ${language} kernel of ${id}? Its variables are lost; the next cell starts a fresh one.`,
              "stopping…",
            )}</li>`,
        )}</ul>`
      : html`<p class="empty-note">No kernel alive.</p>`
    : "";
  const hostAgent =
    op && !s.conv.enclosure && op.hostAgentPid !== undefined
      ? html`<div class="hands-host-agent">Host agent pid ${op.hostAgentPid} ${actionForm(
          `${base(id)}/host-agent/stop`,
          csrf,
          "Stop host agent",
          `Stop the host agent of ${id}? Its kernels, language servers and debug sessions end.`,
          "stopping…",
        )}</div>`
      : "";
  const forceStop =
    op && s.conv.enclosure
      ? html`<div class="hands-force-stop">${actionForm(
          `${base(id)}/enclosure/force-stop`,
          csrf,
          "Force-stop (no copy back)",
          `Force-stop the enclosure of ${id}? It is removed without copying /workspace back.`,
          "stopping…",
        )}</div>`
      : "";
  return html`<section class="operator-hands" data-operator="${op ? "yes" : "no"}"><h2>Actions</h2>
${op ? html`<h3>Calls in flight</h3>${callsTable(s, op.calls, csrf)}<h3>Kernels</h3>${kernels}${hostAgent}${forceStop}` : ""}
<h3>Runs</h3>${runs}
<div class="hands-delete">${actionForm(
    `${base(id)}/delete`,
    csrf,
    "Delete conversation",
    `Delete conversation ${id}? Everything running in it ends${s.conv.ownsWorkspace ? " and its workspace is removed" : ""}.`,
    "deleting…",
  )}</div>
</section>`;
}
