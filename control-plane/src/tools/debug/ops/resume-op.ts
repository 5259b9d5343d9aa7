// continue and the three steps share one shape: resume a thread, answer where it stopped next.
import { z } from "zod";
import { text } from "../../tool.js";
import { formatStatus } from "../debug-format.js";
import { type DebugOp, defineOp } from "../debug-op.js";

export function resumeOp(op: string, action: "continue" | "next" | "stepIn" | "stepOut", what: string): DebugOp {
  return defineOp({
    op,
    args: z.strictObject({
      op: z.literal(op),
      thread_id: z.number().int().min(1).optional().describe("thread to resume; default the one that stopped"),
    }),
    async run(args, ctx) {
      const s = await ctx.agent.resume({ sessionKey: ctx.sessionKey, action, threadId: args.thread_id ?? 0, waitMs: 0 });
      return text(`${what}.\n${formatStatus(s)}`);
    },
  });
}
