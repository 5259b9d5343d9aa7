// terminate: ends the session and kills the adapter (and the program with it).
import { z } from "zod";
import { formatStatus } from "../debug-format.js";
import { defineOp } from "../debug-op.js";
import { SESSION_OP_DETAILS, sessionDetails } from "../debug-details.js";

export const terminateOp = defineOp({
  op: "terminate",
  args: z.strictObject({ op: z.literal("terminate") }),
  details: SESSION_OP_DETAILS,
  async run(_args, ctx) {
    const s = await ctx.agent.terminate(ctx.sessionKey);
    return { parts: [{ type: "text", text: formatStatus(s) }], details: { op: "terminate" as const, session: sessionDetails(s) } };
  },
});
