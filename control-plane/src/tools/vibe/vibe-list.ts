// vibe_list (tier read): every worker of the conversation with tier, state, elapsed time and last result.
import { z } from "zod";
import { defineTool, text } from "../tool.js";
import { workerLine } from "../../vibe/worker-report.js";
import type { VibeRoster } from "../../vibe/vibe-roster.js";

export function vibeListTool(roster: VibeRoster) {
  return defineTool({
    name: "vibe_list",
    tier: "read",
    resource: "vibe",
    description: "List this conversation's workers: id, tier, state, elapsed time, label and last result.",
    parallelSafe: true,
    args: z.strictObject({}),
    async run(_args, ctx) {
      const workers = roster.list(ctx.run.conversationId);
      if (!workers.length) return text(`No workers in this conversation. Worker hosts: ${roster.hostNames(ctx.run.conversationId).join(", ") || "none"}.`);
      return text(workers.map((w) => workerLine(w)).join("\n"));
    },
  });
}
