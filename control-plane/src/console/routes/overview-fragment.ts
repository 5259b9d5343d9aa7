// GET /fragments/overview: the conversations table, refreshed by the script.
import type { ControlPlaneFacade } from "../../control-plane.js";
import { overviewTable } from "../views/conversation-views.js";
import { summaries } from "./conversation-status.js";
import type { Route } from "./route.js";

export function overviewFragment(cp: ControlPlaneFacade): Route {
  return { method: "GET", pattern: /^\/fragments\/overview$/, handle: () => ({ html: overviewTable(summaries(cp)).value }) };
}
