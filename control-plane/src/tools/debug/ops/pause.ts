// pause: stop the program where it is.
import { z } from "zod";
import { formatStatus } from "../debug-format.js";
import { defineOp } from "../debug-op.js";
import { SESSION_OP_DETAILS, sessionDetails } from "../debug-details.js";

export const pauseOp = defineOp({
  op: "pause",
  details: SESSION_OP_DETAILS,
  args: z.strictObject({
    op: z.literal("pause"),
    thread_id: z.number().int().min(1).optional().describe("thread to pause; default the first"),
  }),
  async run(args, ctx) {
    const s = await ctx.agent.pause({ sessionKey: ctx.sessionKey, threadId: args.thread_id ?? 0, waitMs: 0 });
    return { parts: [{ type: "text", text: `paused.\n${formatStatus(s)}` }], details: { op: "pause" as const, session: sessionDetails(s) } };
  },
});
