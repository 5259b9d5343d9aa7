// GET /fragments/conversations/ID/live: a conversation's placement, runs, live status and actions, refreshed by the script.
import type { ControlPlaneApi } from "../../control-plane-api.js";
import { liveFragment as renderLive } from "./conversation-status.js";
import { requireConversation, type Route } from "./route.js";

export function liveFragment(cp: ControlPlaneApi): Route {
  return {
    method: "GET",
    pattern: /^\/fragments\/conversations\/([^/]+)\/live$/,
    handle: async (ctx) => ({ html: (await renderLive(cp, requireConversation(cp, ctx), ctx.session)).value }),
  };
}
