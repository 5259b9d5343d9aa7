// terminate: ends the session and kills the adapter (and the program with it).
import { z } from "zod";
import { text } from "../../tool.js";
import { formatStatus } from "../debug-format.js";
import { defineOp } from "../debug-op.js";

export const terminateOp = defineOp({
  op: "terminate",
  args: z.strictObject({ op: z.literal("terminate") }),
  async run(_args, ctx) {
    return text(formatStatus(await ctx.agent.terminate(ctx.sessionKey)));
  },
});
