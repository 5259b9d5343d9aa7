// evaluate: an expression in a frame's own scope (default the top frame of the stopped thread).
import { z } from "zod";
import { text } from "../../tool.js";
import { cutValue } from "../debug-format.js";
import { defineOp } from "../debug-op.js";

export const evaluateOp = defineOp({
  op: "evaluate",
  args: z.strictObject({
    op: z.literal("evaluate"),
    expression: z.string().min(1).max(10_000),
    frame_id: z.number().int().optional().describe("a frame_id from stack; default the top frame where it stopped"),
  }),
  async run(args, ctx) {
    const v = await ctx.agent.evaluate({ sessionKey: ctx.sessionKey, expression: args.expression, frameId: args.frame_id });
    const type = v.type ? ` (${v.type})` : "";
    const ref = v.reference > 0 ? `\n[reference ${v.reference}: its children with variables]` : "";
    return text(`${cutValue(v.result)}${type}${ref}`);
  },
});
