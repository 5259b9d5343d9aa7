// Conversations: the overview table, and one conversation's live placement (enclosure with image,
// limits and uptime, or host), runs, live resources, what its placement can run, and the enclosure
// controls.
import type { Component } from "@enclave/proto/gen/enclave/agent/v1/info.js";
import type { ConversationView } from "../../control-plane.js";
import type { Run } from "../../model/run.js";
import { html, join, type SafeHtml } from "../html.js";
import type { LiveStatusItem } from "../../status/live-status.js";
import { formatBytes, formatDuration, formatTime, shortId } from "./format.js";
import { lifecycleFacts } from "./lifecycle-view.js";

export interface ConversationSummary {
  conv: ConversationView;
  hostAgentPid: number | undefined;
  openCards: number;
  runningWorkers: number;
}

export interface LiveSection {
  id: string;
  title: string;
  empty: string;
  items: LiveStatusItem[];
  error?: string;
}

const link = (id: string, suffix = ""): string => `/conversations/${encodeURIComponent(id)}${suffix}`;

function since(ms: number, now: number): SafeHtml {
  return html`<span class="since" data-since="${ms}">${formatDuration(Math.max(0, now - ms))}</span>`;
}

function placementSummary(s: ConversationSummary, now: number): SafeHtml {
  const enc = s.conv.enclosure;
  const asleep = s.conv.lifecycle?.sleep;
  if (asleep)
    return html`<span class="placement-tag ${asleep.placement}">${asleep.placement}</span> <span class="muted" data-asleep="${asleep.reason}">asleep (${asleep.reason})</span>`;
  if (!enc) {
    return html`<span class="placement-tag host">host</span> ${s.hostAgentPid ? html`agent pid ${s.hostAgentPid}` : html`<span class="muted">agent idle</span>`}`;
  }
  return html`<span class="placement-tag enclosure state-${enc.state}">enclosure · ${enc.state}</span> <code title="${enc.image}">${enc.image}</code> <span class="muted">${formatBytes(enc.limits.memoryBytes)}, ${enc.limits.cpus} CPU, ${enc.limits.pids} pids</span>${
    enc.state === "running" ? html` · up ${since(enc.startedAtMs, now)}` : ""
  }`;
}

export function overviewTable({ rows, total }: { rows: readonly ConversationSummary[]; total: number }, now = Date.now()): SafeHtml {
  if (!rows.length)
    return html`<p class="empty-note">No conversations yet. Create one with <code>enclave conversations create ID</code> (or through the API).</p>`;
  return html`<table class="grid conversations"><thead><tr><th>conversation</th><th>placement</th><th>runs</th><th>workers</th><th>open cards</th><th></th></tr></thead><tbody>${rows.map(
    (s) =>
      html`<tr data-conversation="${s.conv.id}"><td><a href="${link(s.conv.id)}">${s.conv.id}</a><div class="muted small">${s.conv.workspacePath}</div></td><td>${placementSummary(s, now)}</td><td>${s.conv.openRuns.length}</td><td>${s.runningWorkers}</td><td>${
        s.openCards ? html`<span class="badge hot">${s.openCards}</span>` : "0"
      }</td><td><a href="${link(s.conv.id, "/audit")}">audit</a></td></tr>`,
  )}</tbody></table>${
    total > rows.length
      ? html`<p class="muted small" data-shown="${rows.length}" data-total="${total}">The newest ${rows.length} of ${total} conversations; every one: <code>enclave conversations list</code>.</p>`
      : ""
  }`;
}

function placementDetails(conv: ConversationView, hostAgentPid: number | undefined, now: number): SafeHtml {
  const enc = conv.enclosure;
  if (!enc) {
    return html`<dl class="facts" data-placement="host"><dt>Placement</dt><dd><span class="placement-tag host">host</span> no enclosure: tools run on this machine, in the workspace</dd>
<dt>Host agent</dt><dd>${hostAgentPid ? html`running, pid ${hostAgentPid}` : "not running (it starts on the first tool call)"}</dd>
<dt>Workspace</dt><dd><code>${conv.workspacePath}</code></dd></dl>`;
  }
  return html`<dl class="facts" data-placement="enclosure"><dt>Placement</dt><dd><span class="placement-tag enclosure state-${enc.state}">enclosure · ${enc.state}</span>${enc.detail ? html` <span class="warn">${enc.detail}</span>` : ""}</dd>
<dt>Image</dt><dd><code>${enc.image}</code></dd>
<dt>Container</dt><dd><code title="${enc.containerId}">${shortId(enc.containerId)}</code>, user ${enc.user}</dd>
<dt>Origin</dt><dd data-origin="${enc.pool ? "pool" : "cold"}">${enc.pool ? html`warm pool <span class="muted">(pre-started ${formatTime(enc.pool.createdAtMs)}, claimed ${formatTime(enc.pool.claimedAtMs)}; never used before)</span>` : "started for this conversation"}</dd>
<dt>Limits</dt><dd>memory ${formatBytes(enc.limits.memoryBytes)} · ${enc.limits.cpus} CPU · ${enc.limits.pids} pids</dd>
<dt>Uptime</dt><dd>${enc.state === "running" ? since(enc.startedAtMs, now) : "—"} <span class="muted">(started ${formatTime(enc.startedAtMs)})</span></dd>
<dt>Workspace</dt><dd>${enc.workspaceMode} · <code>${conv.workspacePath}</code></dd>
<dt>Relaxations</dt><dd>${enc.relaxations.length ? html`<span class="warn">${enc.relaxations.join("; ")}</span>` : "none (fully hardened)"}</dd>${
    enc.notes?.length ? html`\n<dt>Notes</dt><dd><ul class="notes">${enc.notes.map((n) => html`<li>${n}</li>`)}</ul></dd>` : ""
  }</dl>`;
}

function runsTable(runs: readonly Run[], now: number): SafeHtml {
  if (!runs.length) return html`<p class="empty-note">No open runs.</p>`;
  return html`<table class="grid runs"><thead><tr><th>run</th><th>surface</th><th>approval</th><th>resources</th><th>cards go to</th><th>open for</th></tr></thead><tbody>${runs.map(
    (r) =>
      html`<tr><td><code>${r.id}</code>${r.cli ? html` <span class="badge" title="kept for the command line across calls; closes when idle">cli</span>` : ""}${r.vibeMode ? html` <span class="badge">vibe</span>` : ""}</td><td>${r.surface}</td><td>${r.approvalPolicy}</td><td class="wrap">${r.resources.join(", ")}</td><td>${r.targetSpace}</td><td>${since(r.openedAtMs, now)}</td></tr>`,
  )}</tbody></table>`;
}

function liveSection(s: LiveSection, now: number): SafeHtml {
  const body = s.error
    ? html`<p class="warn">${s.error}</p>`
    : s.items.length
      ? html`<ul class="live-items">${s.items.map(
          (i) =>
            html`<li><span class="item-name">${i.name}</span> <span class="state state-${i.state}">${i.state}</span>${i.sinceMs ? html` for ${since(i.sinceMs, now)}` : ""}${
              i.detail ? html`<div class="muted small">${i.detail}</div>` : ""
            }</li>`,
        )}</ul>`
      : html`<p class="empty-note">${s.empty}</p>`;
  return html`<section class="live-source" id="live-${s.id}"><h3>${s.title}</h3>${body}</section>`;
}

/** The part of the conversation page that the script refreshes (placement, runs, live resources). */
export function conversationLive(
  conv: ConversationView,
  hostAgentPid: number | undefined,
  runs: readonly Run[],
  sections: readonly LiveSection[],
  now = Date.now(),
): SafeHtml {
  const state = conv.enclosure ? conv.enclosure.state : "none";
  return html`<div class="live-root" data-enclosure-state="${state}">
<section><h2>Placement</h2>${placementDetails(conv, hostAgentPid, now)}${lifecycleFacts(conv)}</section>
<section><h2>Runs</h2>${runsTable(runs, now)}</section>
<section class="live-sources"><h2>Running here</h2>${join(sections.map((s) => liveSection(s, now)))}</section>
</div>`;
}

export function enclosureControls(conv: ConversationView, csrf: string, defaults: { memoryBytes: number; cpus: number; pids: number }): SafeHtml {
  const base = link(conv.id, "/enclosure");
  return html`<section class="enclosure-controls"><h2>Enclosure</h2>
<form class="when-no-enclosure inline-form" method="post" action="${base}/start" data-async="enclosure">
<input type="hidden" name="_csrf" value="${csrf}">
<label>workspace <select name="workspace_mode"><option value="bind">bind</option><option value="copy">copy</option></select></label>
<label>memory MiB <input type="number" name="memory_mib" min="64" step="64" placeholder="${Math.round(defaults.memoryBytes / 1024 ** 2)}"></label>
<label>CPUs <input type="number" name="cpus" min="0.1" step="0.1" placeholder="${defaults.cpus}"></label>
<label>pids <input type="number" name="pids" min="16" step="1" placeholder="${defaults.pids}"></label>
<label>image <input type="text" name="image" placeholder="enclave-runtime" size="18"></label>
<label><input type="checkbox" name="devcontainer" value="1"> dev container</label>
<button type="submit" class="primary" data-busy="starting…">Start enclosure</button>
<p class="form-error" role="alert" hidden></p>
</form>
<form class="when-enclosure-running inline-form" method="post" action="${base}/pause" data-async="enclosure">
<input type="hidden" name="_csrf" value="${csrf}">
<span class="muted">Pausing ${conv.enclosure?.runtime === "runsc" ? "keeps its memory (kernels with their variables) in a checkpoint; the next call resumes it" : "under runc cannot keep its memory: it is put to sleep (stopped, options kept), and the next call starts it again"}.</span>
<button type="submit" data-busy="pausing…">Pause</button>
<p class="form-error" role="alert" hidden></p>
</form>
<form class="when-enclosure-paused inline-form" method="post" action="${base}/resume" data-async="enclosure">
<input type="hidden" name="_csrf" value="${csrf}">
<span class="muted">Paused with its memory; a call resumes it too.</span>
<button type="submit" class="primary" data-busy="resuming…">Resume</button>
<p class="form-error" role="alert" hidden></p>
</form>
<form class="when-enclosure inline-form" method="post" action="${base}/stop" data-async="enclosure">
<input type="hidden" name="_csrf" value="${csrf}">
<span class="muted">Stopping ends everything running in the enclosure; ${conv.enclosure?.workspaceMode === "copy" ? "the workspace is copied back first" : "the workspace stays on this machine"}. Calls then run on the host.</span>
<button type="submit" class="danger" data-confirm="Stop the enclosure of ${conv.id}? Everything running in it ends." data-busy="stopping…">Stop enclosure</button>
<p class="form-error" role="alert" hidden></p>
</form>
</section>`;
}

const KIND_TITLES: Record<string, string> = {
  language_server: "Language servers",
  debug_adapter: "Debug adapters",
  kernel: "Kernels",
  grammar: "Grammars",
};

/** DescribePlacement: which servers, adapters, kernels and grammars resolve there, and why not. */
export function capabilitiesView(components: readonly Component[], where: string): SafeHtml {
  const kinds = [...new Set(components.map((c) => c.kind))];
  if (!kinds.length) return html`<p class="empty-note">The agent (${where}) reports no components.</p>`;
  return html`<p class="muted">As reported by the agent (${where}).</p><div class="capabilities">${kinds.map(
    (k) =>
      html`<div class="capability-kind"><h3>${KIND_TITLES[k] ?? k}</h3><ul>${components
        .filter((c) => c.kind === k)
        .map(
          (c) =>
            html`<li class="${c.usable ? "usable" : "unusable"}"><span class="item-name">${c.id}</span> <span class="state state-${c.usable ? "usable" : "unusable"}">${c.usable ? "usable" : "not usable"}</span><div class="muted small">${c.detail}</div></li>`,
        )}</ul></div>`,
  )}</div>`;
}
