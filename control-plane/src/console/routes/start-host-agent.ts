// POST /conversations/ID/host-agent/start: starts the conversation's host agent, an explicit operator action.
import type { ControlPlaneApi } from "../../control-plane-api.js";
import { DESCRIBE_TIMEOUT_MS, requireConversation, type Route, withTimeout } from "./route.js";

export function startHostAgent(cp: ControlPlaneApi): Route {
  return {
    method: "POST",
    pattern: /^\/conversations\/([^/]+)\/host-agent\/start$/,
    handle: async (ctx) => {
      const id = requireConversation(cp, ctx);
      const pid = await withTimeout(cp.startHostAgent(id), DESCRIBE_TIMEOUT_MS, "the host agent");
      return { json: { ok: true, pid: pid ?? 0 }, redirect: `/conversations/${encodeURIComponent(id)}` };
    },
  };
}
