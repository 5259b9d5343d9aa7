// vibe_send (tier read): appends a message to a worker's brief and re-runs it.
import { z } from "zod";
import { defineTool } from "../tool.js";
import { WORKER_DETAILS, workerDetails } from "./worker-details.js";
import type { VibeRoster } from "../../vibe/vibe-roster.js";

export const VIBE_SEND_DETAILS = z.object({
  worker: WORKER_DETAILS.describe("the worker, re-running its new attempt"),
  messages: z.number().int().describe("messages appended to its brief so far"),
});

export function vibeSendTool(roster: VibeRoster) {
  return defineTool({
    name: "vibe_send",
    tier: "read",
    resource: "vibe",
    description: "Append a message to a worker's brief and re-run it (a running attempt is stopped and restarted with the longer brief).",
    parallelSafe: true,
    args: z.strictObject({
      worker_id: z.string().min(1).describe("the id vibe_spawn returned, e.g. w1"),
      message: z
        .string()
        .trim()
        .min(1)
        .max(64 * 1024)
        .describe("what to add to the brief"),
    }),
    details: VIBE_SEND_DETAILS,
    async run(args, ctx) {
      const w = await roster.send(ctx.run.conversationId, args.worker_id, args.message);
      const said = `Re-running ${w.id} "${w.label}" (attempt ${w.attempt}, host \`${w.host.name}\`) with ${w.messages.length} appended message${w.messages.length > 1 ? "s" : ""}.`;
      return { parts: [{ type: "text", text: said }], details: { worker: workerDetails(w), messages: w.messages.length } };
    },
  });
}
