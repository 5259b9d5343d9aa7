// continue and the three steps share one shape: resume a thread, answer where it stopped next.
import { z } from "zod";
import type { DebugResumeKind } from "@enclave/proto/gen/enclave/agent/v1/debug.js";
import { LIMITS } from "../../../limits.js";
import { formatStatus } from "../debug-format.js";
import { type DebugOp, defineOp } from "../debug-op.js";
import { SESSION_OP_DETAILS, type SessionOp, sessionDetails } from "../debug-details.js";

export function resumeOp(op: SessionOp, kind: DebugResumeKind, what: string): DebugOp {
  return defineOp({
    op,
    details: SESSION_OP_DETAILS,
    args: z.strictObject({
      op: z.literal(op),
      thread_id: z.number().int().min(1).optional().describe("thread to resume; default the one that stopped"),
      wait_seconds: z
        .number()
        .int()
        .min(1)
        .max(600)
        .optional()
        .describe(`how long to wait for the next stop before answering that it runs (default ${LIMITS.debugStopWaitSeconds})`),
    }),
    async run(args, ctx) {
      const waitMs = (args.wait_seconds ?? LIMITS.debugStopWaitSeconds) * 1000;
      const s = await ctx.agent.resume({ sessionKey: ctx.sessionKey, kind, threadId: args.thread_id ?? 0, waitMs });
      return { parts: [{ type: "text", text: `${what}.\n${formatStatus(s)}` }], details: { op, session: sessionDetails(s) } };
    },
  });
}
