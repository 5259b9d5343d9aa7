// The console's routes: pages, the fragments the script refreshes, the event stream, audit exports,
// and the POSTs (answer a card; start or stop an enclosure; start the host agent). No GET starts or
// changes anything. Access, CSRF and errors are handled by the server before and after these.
import type { IncomingMessage, ServerResponse } from "node:http";
import { orTimeout } from "../../../enclave-agent/src/time/wait.js";
import type { CardAnswer } from "../../../proto/gen/enclave/control/v1/control.js";
import type { AuditEvent } from "../audit/audit-log.js";
import type { ControlPlane } from "../control-plane.js";
import { EnclaveError } from "../errors.js";
import { type AuditFilter, matchesAuditFilter, NO_FILTER, parseAuditFilter } from "./audit-filter.js";
import { csvHeader, csvRow, EXPORT_TYPES, type ExportFormat, exportFileName, jsonLine } from "./audit-export.js";
import type { Session } from "./access.js";
import { openEventStream } from "./events.js";
import { html, type SafeHtml } from "./html.js";
import { AUDIT_PAGE_LIMITS, auditPage } from "./views/audit-view.js";
import { cardsSection, closedCardsTable } from "./views/cards-view.js";
import { capabilitiesView, type ConversationSummary, conversationLive, enclosureControls, type LiveSection, overviewTable } from "./views/conversation-views.js";
import { formatTime } from "./views/format.js";
import { layout, type NavItem } from "./views/layout.js";

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: string[];
  session: Session;
  /** The form of a POST (urlencoded). */
  form: URLSearchParams;
}

/** A POST answers JSON to the script, or redirects a form sent without it. */
export type Reply = { status?: number; html: string } | { status?: number; json: unknown; redirect?: string } | "streamed";

export interface Route {
  method: "GET" | "POST";
  pattern: RegExp;
  handle(ctx: RouteContext): Promise<Reply> | Reply;
}

/** Pages of the audit log are read newest first in chunks of this many events. */
const SCAN_CHUNK = 1000;
const DESCRIBE_TIMEOUT_MS = 15_000;
const SOURCE_TIMEOUT_MS = 5_000;

function openCardCount(cp: ControlPlane): number {
  return cp.questions.list(undefined, false).length;
}

function page(cp: ControlPlane, ctx: RouteContext, title: string, nav: NavItem, events: string, body: SafeHtml): Reply {
  return { html: layout({ title, nav, csrf: ctx.session.csrf, events, openCards: openCardCount(cp), body }) };
}

function summaries(cp: ControlPlane): ConversationSummary[] {
  const open = cp.questions.list(undefined, false);
  return cp.listConversations().map((conv) => ({
    conv,
    hostAgentPid: cp.hostAgents.pid(conv.id),
    openCards: open.filter((c) => c.conversationId === conv.id).length,
    runningWorkers: cp.vibe.list(conv.id).filter((w) => w.state === "running").length,
  }));
}

async function liveSections(cp: ControlPlane, conversationId: string): Promise<LiveSection[]> {
  return Promise.all(
    cp.liveStatus.all().map(async (s) => {
      try {
        // A slow source (an agent that does not answer) must not hold the page.
        return { id: s.id, title: s.title, empty: s.empty, items: await withTimeout(Promise.resolve(s.list(conversationId)), SOURCE_TIMEOUT_MS, s.title) };
      } catch (err) {
        return { id: s.id, title: s.title, empty: s.empty, items: [], error: `could not read: ${(err as Error).message}` };
      }
    }),
  );
}

async function liveFragment(cp: ControlPlane, id: string): Promise<SafeHtml> {
  const conv = cp.getConversation(id);
  return conversationLive(conv, cp.hostAgents.pid(id), cp.runs.forConversation(id), await liveSections(cp, id));
}

function conversationId(ctx: RouteContext): string {
  return decodeURIComponent(ctx.params[0] ?? "");
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return orTimeout(p, ms, () => new EnclaveError("timeout", `${what} did not answer within ${ms / 1000} s`));
}

/** The newest `limit` events of a conversation matching the filter, newest first, scanning the whole log. */
export function newestMatching(cp: ControlPlane, id: string, filter: AuditFilter, limit: number): { events: AuditEvent[]; more: boolean } {
  const events: AuditEvent[] = [];
  let before: number | undefined;
  for (;;) {
    const chunk = cp.audit.page({ conversationId: id, beforeSeq: before, limit: SCAN_CHUNK, newestFirst: true });
    for (const e of chunk) {
      if (!matchesAuditFilter(e, filter)) continue;
      if (events.length === limit) return { events, more: true };
      events.push(e);
    }
    if (chunk.length < SCAN_CHUNK) return { events, more: false };
    before = chunk[chunk.length - 1]?.seq;
  }
}

/** Streams every matching event, oldest first, in chunks, waiting for the socket to drain. */
async function streamExport(cp: ControlPlane, ctx: RouteContext, id: string, filter: AuditFilter, format: ExportFormat): Promise<void> {
  const { res } = ctx;
  res.writeHead(200, {
    "Content-Type": EXPORT_TYPES[format],
    "Content-Disposition": `attachment; filename="${exportFileName(id, format)}"`,
    "Cache-Control": "no-store",
  });
  const write = (s: string): Promise<void> => (res.write(s) ? Promise.resolve() : new Promise((r) => res.once("drain", () => r())));
  if (format === "csv") await write(csvHeader());
  let after = 0;
  for (;;) {
    if (res.destroyed) return;
    const chunk = cp.audit.page({ conversationId: id, afterSeq: after, limit: SCAN_CHUNK });
    const text = chunk
      .filter((e) => matchesAuditFilter(e, filter))
      .map(format === "csv" ? csvRow : jsonLine)
      .join("");
    if (text) await write(text);
    if (chunk.length < SCAN_CHUNK) break;
    after = chunk[chunk.length - 1]?.seq ?? after;
  }
  res.end();
}

function answerFromForm(form: URLSearchParams): CardAnswer {
  if (form.has("skip")) return { selected: [], freeText: "", skip: true };
  const choice = form.get("choice");
  const selected = choice !== null ? [choice] : form.getAll("selected");
  return { selected, freeText: form.get("free_text") ?? "", skip: false };
}

function optionalNumber(form: URLSearchParams, name: string, what: string): number | undefined {
  const raw = (form.get(name) ?? "").trim();
  if (raw === "") return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new EnclaveError("invalid_arguments", `${what} \`${raw}\` is not a positive number`);
  return n;
}

/** A download name made of safe characters only (a conversation id is already restricted; this is belt and braces). */
function cardArgumentsFileName(space: string, number: number): string {
  return `card-${space.replace(/[^A-Za-z0-9_-]/g, "_")}-${number}-arguments.json`;
}

/** Where to go back to after a form without script: a path on this console only. */
function returnTo(form: URLSearchParams, fallback: string): string {
  const to = form.get("return_to") ?? "";
  return to.startsWith("/") && !to.startsWith("//") && !to.startsWith("/\\") ? to : fallback;
}

/** Starting the host agent is a POST with the page's CSRF token; the script then loads the capabilities fragment. */
function startHostAgentForm(here: string, capabilities: string, csrf: string): SafeHtml {
  return html`<form method="post" action="${here}/host-agent/start" data-async="start" data-fragment-target="capabilities" data-fragment-src="${capabilities}">
<input type="hidden" name="_csrf" value="${csrf}">
<p class="muted">The host agent is not running. <button type="submit" data-busy="starting…">Start it and ask</button> which language servers, debug adapters, kernels and grammars resolve here.</p>
<p class="form-error" role="alert" hidden></p>
</form>`;
}

export function consoleRoutes(cp: ControlPlane): Route[] {
  const requireConversation = (ctx: RouteContext): string => {
    const id = conversationId(ctx);
    cp.conversations.get(id);
    return id;
  };
  return [
    {
      method: "GET",
      pattern: /^\/$/,
      handle: (ctx) =>
        page(
          cp,
          ctx,
          "Conversations",
          "conversations",
          "/events?audit=*",
          html`<h1>Conversations</h1>
<div data-live="/fragments/overview">${overviewTable(summaries(cp))}</div>
<h2>Open cards</h2>
${cardsSection(cp.questions.list(undefined, false), "", ctx.session.csrf, "/")}`,
        ),
    },
    {
      method: "GET",
      pattern: /^\/cards$/,
      handle: (ctx) =>
        page(
          cp,
          ctx,
          "Cards",
          "cards",
          "/events",
          html`<h1>Cards</h1>
<p class="muted">Questions (ask_user) and permission requests from every conversation. A card answered here disappears from every open console.</p>
${cardsSection(cp.questions.list(undefined, false), "", ctx.session.csrf, "/cards")}
<h2>Recently closed</h2>
${closedCardsTable(cp.questions.list(undefined, true).filter((c) => c.state !== "open").slice(-50))}`,
        ),
    },
    {
      method: "GET",
      pattern: /^\/conversations\/([^/]+)$/,
      handle: async (ctx) => {
        const id = requireConversation(ctx);
        const conv = cp.getConversation(id);
        const here = `/conversations/${encodeURIComponent(id)}`;
        const agentUp = Boolean(conv.enclosure?.state === "running" || cp.hostAgents.pid(id));
        const capabilities = `/fragments${here}/capabilities`;
        return page(
          cp,
          ctx,
          id,
          "conversation",
          `/events?audit=${encodeURIComponent(id)}`,
          html`<div class="conversation-head"><h1>Conversation <code>${id}</code></h1><span class="muted">created ${formatTime(conv.createdAtMs)}</span><span class="links"><a href="${here}/audit">audit log</a></span></div>
<div class="two-col">
<div>
<div data-live="/fragments${here}/live">${await liveFragment(cp, id)}</div>
${enclosureControls(conv, ctx.session.csrf, { memoryBytes: cp.config.enclosure.memoryBytes, cpus: cp.config.enclosure.cpus, pids: cp.config.enclosure.pidsLimit })}
<section><h2>What this placement can run</h2><div id="capabilities" ${agentUp ? html`data-fragment="${capabilities}" aria-busy="true"` : ""}>${
            agentUp ? html`<p class="muted">asking the agent…</p>` : conv.enclosure ? html`<p class="muted">The enclosure is not running.</p>` : startHostAgentForm(here, capabilities, ctx.session.csrf)
          }</div></section>
</div>
<div><h2>Open cards</h2>${cardsSection(cp.questions.list(id, false), id, ctx.session.csrf, here)}</div>
</div>`,
        );
      },
    },
    {
      method: "GET",
      pattern: /^\/conversations\/([^/]+)\/audit$/,
      handle: (ctx) => {
        const id = requireConversation(ctx);
        const parsed = parseAuditFilter(ctx.url.searchParams);
        const filter = parsed.ok ? parsed.filter : NO_FILTER;
        const wanted = Number(ctx.url.searchParams.get("limit"));
        const limit = (AUDIT_PAGE_LIMITS as readonly number[]).includes(wanted) ? wanted : AUDIT_PAGE_LIMITS[0];
        const { events, more } = parsed.ok ? newestMatching(cp, id, filter, limit) : { events: [], more: false };
        const events$ = new URLSearchParams({ audit: id, rows: "1" });
        for (const [k, v] of Object.entries(filter)) if (v) events$.set(k, v);
        const toolNames = cp.registry.all().map((t) => t.name);
        return page(cp, ctx, `Audit · ${id}`, "conversation", `/events?${events$}`, auditPage({ conversationId: id, filter, limit, events, more, toolNames, error: parsed.ok ? undefined : parsed.error }));
      },
    },
    {
      method: "GET",
      pattern: /^\/conversations\/([^/]+)\/audit\.(jsonl|csv)$/,
      handle: async (ctx): Promise<Reply> => {
        const id = requireConversation(ctx);
        const parsed = parseAuditFilter(ctx.url.searchParams);
        if (!parsed.ok) throw new EnclaveError("invalid_arguments", parsed.error);
        await streamExport(cp, ctx, id, parsed.filter, ctx.params[1] as ExportFormat);
        return "streamed";
      },
    },
    { method: "GET", pattern: /^\/fragments\/overview$/, handle: () => ({ html: overviewTable(summaries(cp)).value }) },
    {
      method: "GET",
      pattern: /^\/fragments\/conversations\/([^/]+)\/live$/,
      handle: async (ctx) => ({ html: (await liveFragment(cp, requireConversation(ctx))).value }),
    },
    {
      method: "GET",
      pattern: /^\/fragments\/conversations\/([^/]+)\/capabilities$/,
      handle: async (ctx) => {
        const id = requireConversation(ctx);
        const conv = cp.getConversation(id);
        // Asked only of an agent that runs already: reading a page starts nothing (the POST below does).
        try {
          const d = await withTimeout(cp.describeRunningPlacement(id), DESCRIBE_TIMEOUT_MS, "the agent");
          if (!d) return { html: html`<p class="muted">${conv.enclosure ? "The enclosure is not running." : "The host agent is not running."}</p>`.value };
          const where = conv.enclosure ? `enclosure, agent ${d.agentVersion}` : `host, agent ${d.agentVersion}`;
          return { html: capabilitiesView(d.components, where).value };
        } catch (err) {
          return { html: html`<p class="warn">Could not ask the agent: ${(err as Error).message}</p>`.value };
        }
      },
    },
    {
      method: "GET",
      pattern: /^\/events$/,
      handle: (ctx) => {
        const q = ctx.url.searchParams;
        const audit = q.get("audit") ?? "";
        if (audit && audit !== "*") cp.conversations.get(audit);
        const parsed = parseAuditFilter(q);
        const rows = q.get("rows") === "1" && parsed.ok ? parsed.filter : undefined;
        openEventStream(cp, ctx.res, ctx.session, { audit, rows });
        return "streamed";
      },
    },
    {
      method: "GET",
      pattern: /^\/cards\/([^/]+)\/(\d+)\/arguments\.json$/,
      handle: (ctx): Reply => {
        const space = decodeURIComponent(ctx.params[0] ?? "");
        const number = Number(ctx.params[1]);
        const { text } = cp.questions.argumentsText(space, number);
        ctx.res.writeHead(200, {
          "Content-Type": "application/json; charset=utf-8",
          "Content-Disposition": `attachment; filename="${cardArgumentsFileName(space, number)}"`,
          "Cache-Control": "no-store",
          "X-Content-Type-Options": "nosniff",
          "Content-Security-Policy": "default-src 'none'; sandbox",
        });
        ctx.res.end(text);
        return "streamed";
      },
    },
    {
      method: "POST",
      pattern: /^\/cards\/([^/]+)\/(\d+)\/answer$/,
      handle: (ctx) => {
        const space = decodeURIComponent(ctx.params[0] ?? "");
        const card = cp.questions.answer(space, Number(ctx.params[1]), answerFromForm(ctx.form));
        return { json: { ok: true, state: card.state, number: card.number }, redirect: returnTo(ctx.form, "/") };
      },
    },
    {
      method: "POST",
      pattern: /^\/conversations\/([^/]+)\/host-agent\/start$/,
      handle: async (ctx) => {
        const id = requireConversation(ctx);
        const pid = await withTimeout(cp.startHostAgent(id), DESCRIBE_TIMEOUT_MS, "the host agent");
        return { json: { ok: true, pid: pid ?? 0 }, redirect: `/conversations/${encodeURIComponent(id)}` };
      },
    },
    {
      method: "POST",
      pattern: /^\/conversations\/([^/]+)\/enclosure\/(start|stop)$/,
      handle: async (ctx) => {
        const id = requireConversation(ctx);
        const back = `/conversations/${encodeURIComponent(id)}`;
        if (ctx.params[1] === "stop") {
          const conv = await cp.stopEnclosure(id);
          return { json: { ok: true, placement: conv.placement }, redirect: back };
        }
        const memoryMib = optionalNumber(ctx.form, "memory_mib", "memory");
        const conv = await cp.startEnclosure(id, {
          workspaceMode: ctx.form.get("workspace_mode") ?? "",
          memoryBytes: memoryMib === undefined ? undefined : Math.round(memoryMib * 1024 ** 2),
          cpus: optionalNumber(ctx.form, "cpus", "cpus"),
          pidsLimit: optionalNumber(ctx.form, "pids", "pids"),
        });
        return { json: { ok: true, placement: conv.placement, image: conv.enclosure?.image ?? "" }, redirect: back };
      },
    },
  ];
}
