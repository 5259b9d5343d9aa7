// status: whether a session is running, and where it stopped.
import { z } from "zod";
import { formatStatus } from "../debug-format.js";
import { defineOp } from "../debug-op.js";
import { SESSION_OP_DETAILS, sessionDetails } from "../debug-details.js";

export const statusOp = defineOp({
  op: "status",
  args: z.strictObject({ op: z.literal("status") }),
  details: SESSION_OP_DETAILS,
  async run(_args, ctx) {
    const s = await ctx.agent.status(ctx.sessionKey);
    return { parts: [{ type: "text", text: formatStatus(s) }], details: { op: "status" as const, session: sessionDetails(s) } };
  },
});
