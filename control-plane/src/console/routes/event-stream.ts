// GET /events: the page's push channel (cards, and audit events of the page's scope).
import type { ControlPlaneApi } from "../../control-plane-api.js";
import { parseAuditFilter } from "../audit-filter.js";
import { openEventStream } from "../events.js";
import type { Route } from "./route.js";

export function eventStream(cp: ControlPlaneApi): Route {
  return {
    method: "GET",
    pattern: /^\/events$/,
    handle: (ctx) => {
      const q = ctx.url.searchParams;
      const audit = q.get("audit") ?? "";
      if (audit && audit !== "*") cp.getConversation(audit);
      const parsed = parseAuditFilter(q);
      const rows = q.get("rows") === "1" && parsed.ok ? parsed.filter : undefined;
      openEventStream(cp, ctx.res, ctx.session, { audit, rows });
      return "streamed";
    },
  };
}
