// GET /conversations/ID/audit: the newest events matching the filter, with the filter form.
import type { AuditEvent } from "../../audit/audit-log.js";
import type { ControlPlaneApi } from "../../control-plane-api.js";
import { type AuditFilter, matchesAuditFilter, NO_FILTER, parseAuditFilter } from "../audit-filter.js";
import { AUDIT_PAGE_LIMITS, auditPage as auditView } from "../views/audit-view.js";
import { page, requireConversation, type Route } from "./route.js";

/** The audit log is read newest first in chunks of this many events. */
export const SCAN_CHUNK = 1000;

/** The newest `limit` events of a conversation matching the filter, newest first, scanning the whole log. */
export function newestMatching(cp: ControlPlaneApi, id: string, filter: AuditFilter, limit: number): { events: AuditEvent[]; more: boolean } {
  const events: AuditEvent[] = [];
  let before: number | undefined;
  for (;;) {
    const chunk = cp.auditPage({ conversationId: id, beforeSeq: before, limit: SCAN_CHUNK, newestFirst: true });
    for (const e of chunk) {
      if (!matchesAuditFilter(e, filter)) continue;
      if (events.length === limit) return { events, more: true };
      events.push(e);
    }
    if (chunk.length < SCAN_CHUNK) return { events, more: false };
    before = chunk[chunk.length - 1]?.seq;
  }
}

export function auditPage(cp: ControlPlaneApi): Route {
  return {
    method: "GET",
    pattern: /^\/conversations\/([^/]+)\/audit$/,
    handle: (ctx) => {
      const id = requireConversation(cp, ctx);
      const parsed = parseAuditFilter(ctx.url.searchParams);
      const filter = parsed.ok ? parsed.filter : NO_FILTER;
      const wanted = Number(ctx.url.searchParams.get("limit"));
      const limit = (AUDIT_PAGE_LIMITS as readonly number[]).includes(wanted) ? wanted : AUDIT_PAGE_LIMITS[0];
      const { events, more } = parsed.ok ? newestMatching(cp, id, filter, limit) : { events: [], more: false };
      const events$ = new URLSearchParams({ audit: id, rows: "1" });
      for (const [k, v] of Object.entries(filter)) if (v) events$.set(k, v);
      const body = auditView({ conversationId: id, filter, limit, events, more, toolNames: cp.toolNames(), error: parsed.ok ? undefined : parsed.error });
      return page(cp, ctx, `Audit · ${id}`, "conversation", `/events?${events$}`, body);
    },
  };
}
