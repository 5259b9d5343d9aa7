// GET /conversations/ID: the conversation's placement, runs and live status, its enclosure controls,
// what its agent can run (asked only of a running agent), and its open cards.
import type { ControlPlaneApi } from "../../control-plane-api.js";
import { html } from "../html.js";
import { fillPage } from "../page-template.js";
import { cardsSection } from "../views/cards-view.js";
import { enclosureControls } from "../views/conversation-views.js";
import { formatTime } from "../views/format.js";
import { RECENT_CALLS, recentCallsSection } from "../views/recent-calls-view.js";
import { liveFragment } from "./conversation-status.js";
import { page, requireConversation, type Route } from "./route.js";

/** The newest tool calls of the conversation, newest first (read from the newest audit events). */
function recentCalls(cp: ControlPlaneApi, id: string) {
  return cp
    .auditPage({ conversationId: id, limit: RECENT_CALLS * 10, newestFirst: true })
    .filter((e) => e.kind === "tool_call")
    .slice(0, RECENT_CALLS);
}

export function conversationPage(cp: ControlPlaneApi): Route {
  return {
    method: "GET",
    pattern: /^\/conversations\/([^/]+)$/,
    handle: async (ctx) => {
      const id = requireConversation(cp, ctx);
      const conv = cp.getConversation(id);
      const here = `/conversations/${encodeURIComponent(id)}`;
      const agentUp = cp.agentRunning(id);
      const capabilities = `/fragments${here}/capabilities`;
      const csrf = ctx.session.csrf;
      // Starting the host agent is a POST with the page's CSRF token; the script then loads the capabilities fragment.
      const notRunning = conv.enclosure ? html`<p class="muted">The enclosure is not running.</p>` : fillPage("start-host-agent", { here, capabilities, csrf });
      return page(
        cp,
        ctx,
        id,
        "conversation",
        `/events?audit=${encodeURIComponent(id)}`,
        fillPage("conversation", {
          id,
          created: formatTime(conv.createdAtMs),
          here,
          live: await liveFragment(cp, id, ctx.session),
          recent_calls: recentCallsSection(id, recentCalls(cp, id)),
          enclosure_controls: enclosureControls(conv, csrf, cp.enclosureDefaults()),
          capabilities_attributes: agentUp ? html`data-fragment="${capabilities}" aria-busy="true"` : "",
          capabilities: agentUp ? html`<p class="muted">asking the agent…</p>` : notRunning,
          cards: cardsSection(cp.cards(id, false), id, csrf, here),
        }),
      );
    },
  };
}
