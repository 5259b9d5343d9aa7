// vibe_spawn (tier read): starts a background worker on a worker host and returns its id at once.
import { z } from "zod";
import { defineTool } from "../tool.js";
import { WORKER_DETAILS, workerDetails } from "./worker-details.js";
import type { VibeRoster } from "../../vibe/vibe-roster.js";
import { VIBE_TIERS } from "../../vibe/worker.js";

export const VIBE_SPAWN_DETAILS = z.object({ worker: WORKER_DETAILS.describe("the worker started, running") });

export function vibeSpawnTool(roster: VibeRoster, workspaceOf: (conversationId: string) => string) {
  return defineTool({
    name: "vibe_spawn",
    tier: "read",
    resource: "vibe",
    description:
      "Start a background worker on a brief; returns its id at once while it keeps running. tier `fast` for mechanical work with a clear spec, " +
      "`good` for design, judgement, or reviewing a fast worker's output.",
    parallelSafe: true,
    args: z.strictObject({
      brief: z
        .string()
        .trim()
        .min(1)
        .max(256 * 1024)
        .describe("everything the worker needs to know: goal, files, constraints, what to report"),
      label: z.string().trim().min(1).max(80).describe("a few words naming the job, shown in vibe_list"),
      tier: z.enum(VIBE_TIERS).optional().describe("fast (default) or good"),
    }),
    details: VIBE_SPAWN_DETAILS,
    async run(args, ctx) {
      const w = roster.spawn(ctx.run.conversationId, workspaceOf(ctx.run.conversationId), { brief: args.brief, label: args.label, tier: args.tier ?? "fast" });
      const started =
        `Started worker ${w.id} "${w.label}" (${w.tier}) on host \`${w.host.name}\`. It runs in the background: ` +
        `vibe_wait ${w.id} for its result, vibe_send to add instructions, vibe_kill to stop it.`;
      return { parts: [{ type: "text", text: started }], details: { worker: workerDetails(w) } };
    },
  });
}
