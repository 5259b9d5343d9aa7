// GET /fragments/overview: the conversations table, refreshed by the script.
import type { ControlPlaneApi } from "../../control-plane-api.js";
import { overviewTable } from "../views/conversation-views.js";
import { summaries } from "./conversation-status.js";
import type { Route } from "./route.js";

export function overviewFragment(cp: ControlPlaneApi): Route {
  return { method: "GET", pattern: /^\/fragments\/overview$/, handle: () => ({ html: overviewTable(summaries(cp)).value }) };
}
