// GET /fragments/conversations/ID/usage: what the conversation costs now (loaded after the page, as
// measuring the workspace may take up to its walk's time bound).
import type { ControlPlaneApi } from "../../control-plane-api.js";
import { html } from "../html.js";
import { usageView } from "../views/usage-view.js";
import { requireConversation, type Route } from "./route.js";

export function usageFragment(cp: ControlPlaneApi): Route {
  return {
    method: "GET",
    pattern: /^\/fragments\/conversations\/([^/]+)\/usage$/,
    handle: async (ctx) => {
      const id = requireConversation(cp, ctx);
      try {
        return { html: usageView(await cp.conversationUsage(id)).value };
      } catch (err) {
        return { html: html`<p class="warn">Could not measure: ${(err as Error).message}</p>`.value };
      }
    },
  };
}
