// GET /fragments/conversations/ID/capabilities: what the conversation's agent can run, asked only of an
// agent that runs already: reading a page starts nothing (the host-agent start POST does).
import type { ControlPlaneApi } from "../../control-plane-api.js";
import { html } from "../html.js";
import { capabilitiesView } from "../views/conversation-views.js";
import { DESCRIBE_TIMEOUT_MS, requireConversation, type Route, withTimeout } from "./route.js";

export function capabilitiesFragment(cp: ControlPlaneApi): Route {
  return {
    method: "GET",
    pattern: /^\/fragments\/conversations\/([^/]+)\/capabilities$/,
    handle: async (ctx) => {
      const id = requireConversation(cp, ctx);
      const conv = cp.getConversation(id);
      try {
        const d = await withTimeout(cp.describeRunningPlacement(id), DESCRIBE_TIMEOUT_MS, "the agent");
        if (!d) return { html: html`<p class="muted">${conv.enclosure ? "The enclosure is not running." : "The host agent is not running."}</p>`.value };
        const where = conv.enclosure ? `enclosure, agent ${d.agentVersion}` : `host, agent ${d.agentVersion}`;
        return { html: capabilitiesView(d.components, where).value };
      } catch (err) {
        return { html: html`<p class="warn">Could not ask the agent: ${(err as Error).message}</p>`.value };
      }
    },
  };
}
