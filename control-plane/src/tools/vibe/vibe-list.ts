// vibe_list (tier read): every worker of the conversation with tier, state, elapsed time and last result.
import { z } from "zod";
import { defineTool } from "../tool.js";
import { WORKER_DETAILS, workerDetails } from "./worker-details.js";
import { workerLine } from "../../vibe/worker-report.js";
import type { VibeRoster } from "../../vibe/vibe-roster.js";

export const VIBE_LIST_DETAILS = z.object({
  workers: z.array(WORKER_DETAILS).describe("every worker the conversation keeps, oldest first"),
  hosts: z.array(z.string()).describe("the worker hosts this conversation may use"),
});

export function vibeListTool(roster: VibeRoster) {
  return defineTool({
    name: "vibe_list",
    tier: "read",
    resource: "vibe",
    description: "List this conversation's workers: id, tier, state, elapsed time, label and last result.",
    parallelSafe: true,
    args: z.strictObject({}),
    details: VIBE_LIST_DETAILS,
    async run(_args, ctx) {
      const workers = roster.list(ctx.run.conversationId);
      const hosts = roster.hostNames(ctx.run.conversationId);
      const details = { workers: workers.map(workerDetails), hosts };
      if (!workers.length) return { parts: [{ type: "text", text: `No workers in this conversation. Worker hosts: ${hosts.join(", ") || "none"}.` }], details };
      return { parts: [{ type: "text", text: workers.map((w) => workerLine(w)).join("\n") }], details };
    },
  });
}
