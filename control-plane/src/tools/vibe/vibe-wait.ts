// vibe_wait (tier read): blocks until a worker settles (done, failed, killed) or, when one is given,
// the timeout passes, streaming its output meanwhile, then reports its state and result. A timeout is
// not an error: the worker keeps running. Without a timeout the wait ends when the worker settles or
// the call is cancelled.
import { z } from "zod";
import { LIMITS } from "../../limits.js";
import { defineTool } from "../tool.js";
import { WORKER_DETAILS, workerDetails } from "./worker-details.js";
import { workerReport } from "../../vibe/worker-report.js";
import type { VibeRoster } from "../../vibe/vibe-roster.js";

export const VIBE_WAIT_DETAILS = z.object({
  worker: WORKER_DETAILS,
  settled: z.boolean().describe("it settled (done, failed, killed); false when timeout_seconds passed first and it keeps running"),
  output_tail: z.string().nullable().describe(`while it runs: its most recent output (at most ${LIMITS.vibeOutputTailChars} characters); null once settled`),
});

export function vibeWaitTool(roster: VibeRoster) {
  return defineTool({
    name: "vibe_wait",
    tier: "read",
    resource: "vibe",
    description:
      "Wait for a worker to finish, then report its state and result. Without timeout_seconds it waits until the worker settles (cancelling the call ends the wait); " +
      "with one, on timeout the worker keeps running: wait again or kill it.",
    parallelSafe: true,
    args: z.strictObject({
      worker_id: z.string().min(1).describe("the id vibe_spawn returned, e.g. w1"),
      timeout_seconds: z
        .number()
        .positive()
        .max(LIMITS.vibeWaitMaxSeconds)
        .optional()
        .describe("how long to wait at most; omit to wait until the worker settles"),
    }),
    details: VIBE_WAIT_DETAILS,
    async run(args, ctx) {
      const w = roster.get(ctx.run.conversationId, args.worker_id);
      const timeoutSeconds = args.timeout_seconds;
      const settled = await roster.wait(w, timeoutSeconds === undefined ? undefined : timeoutSeconds * 1000, ctx.signal, (t) =>
        ctx.emit({ kind: "output", stream: "stdout", data: Buffer.from(t, "utf8") }),
      );
      const report = workerReport(w);
      const said = settled ? report : `Waited ${timeoutSeconds} s: ${report}\nCall vibe_wait again to keep waiting, or vibe_kill to stop it.`;
      const details = { worker: workerDetails(w), settled, output_tail: w.state === "running" ? w.outputTail : null };
      return { parts: [{ type: "text", text: said }], details };
    },
  });
}
