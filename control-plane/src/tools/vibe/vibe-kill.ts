// vibe_kill (tier read): stops a worker (the built-in host kills its whole process group).
import { z } from "zod";
import { defineTool } from "../tool.js";
import { WORKER_DETAILS, workerDetails } from "./worker-details.js";
import type { VibeRoster } from "../../vibe/vibe-roster.js";

export const VIBE_KILL_DETAILS = z.object({
  worker: WORKER_DETAILS,
  was_running: z.boolean().describe("it was running and is now killed; false when it had already settled"),
});

export function vibeKillTool(roster: VibeRoster) {
  return defineTool({
    name: "vibe_kill",
    tier: "read",
    resource: "vibe",
    description: "Stop a worker. Its last result, if any, stays in vibe_list.",
    parallelSafe: true,
    args: z.strictObject({ worker_id: z.string().min(1).describe("the id vibe_spawn returned, e.g. w1") }),
    details: VIBE_KILL_DETAILS,
    async run(args, ctx) {
      const { worker: w, wasRunning } = await roster.kill(ctx.run.conversationId, args.worker_id);
      const said = wasRunning ? `Killed ${w.id} "${w.label}".` : `${w.id} "${w.label}" had already settled (${w.state}); nothing to kill.`;
      return { parts: [{ type: "text", text: said }], details: { worker: workerDetails(w), was_running: wasRunning } };
    },
  });
}
