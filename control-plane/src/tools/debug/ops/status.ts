// status: whether a session is running, and where it stopped.
import { z } from "zod";
import { text } from "../../tool.js";
import { formatStatus } from "../debug-format.js";
import { defineOp } from "../debug-op.js";

export const statusOp = defineOp({
  op: "status",
  args: z.strictObject({ op: z.literal("status") }),
  async run(_args, ctx) {
    return text(formatStatus(await ctx.agent.status(ctx.sessionKey)));
  },
});
