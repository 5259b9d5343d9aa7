// GET /: every conversation, and the open cards of all of them.
import type { ControlPlaneApi } from "../../control-plane-api.js";
import { fillPage } from "../page-template.js";
import { cardsSection } from "../views/cards-view.js";
import { overviewTable } from "../views/conversation-views.js";
import { summaries } from "./conversation-status.js";
import { page, type Route } from "./route.js";
import { tenantsSection } from "./tenants-control.js";

export function overviewPage(cp: ControlPlaneApi): Route {
  return {
    method: "GET",
    pattern: /^\/$/,
    handle: (ctx) =>
      page(
        cp,
        ctx,
        "Conversations",
        "conversations",
        "/events?audit=*",
        fillPage("overview", {
          overview: overviewTable(summaries(cp)),
          cards: cardsSection(cp.cards(undefined, false), "", ctx.session.csrf, "/"),
          tenants: tenantsSection(cp, ctx.session),
        }),
      ),
  };
}
