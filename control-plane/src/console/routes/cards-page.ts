// GET /cards: open cards of every conversation, and the recently closed ones.
import type { ControlPlaneApi } from "../../control-plane-api.js";
import { fillPage } from "../page-template.js";
import { cardsSection, closedCardsTable } from "../views/cards-view.js";
import { page, type Route } from "./route.js";

const CLOSED_SHOWN = 50;

export function cardsPage(cp: ControlPlaneApi): Route {
  return {
    method: "GET",
    pattern: /^\/cards$/,
    handle: (ctx) =>
      page(
        cp,
        ctx,
        "Cards",
        "cards",
        "/events",
        fillPage("cards", {
          open_cards: cardsSection(cp.cards(undefined, false), "", ctx.session.csrf, "/cards"),
          closed_cards: closedCardsTable(
            cp
              .cards(undefined, true)
              .filter((c) => c.state !== "open")
              .slice(-CLOSED_SHOWN),
          ),
        }),
      ),
  };
}
