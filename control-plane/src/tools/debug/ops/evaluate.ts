// evaluate: an expression in a frame's own scope (default the top frame of the stopped thread).
import { z } from "zod";
import { cutValue } from "../debug-format.js";
import { VALUE_FIELDS, valueDetails } from "../debug-details.js";
import { defineOp } from "../debug-op.js";

export const EVALUATE_DETAILS = z.object({
  op: z.literal("evaluate"),
  ...VALUE_FIELDS,
  type: z.string().describe("its type as the adapter says, or empty"),
  reference: z.number().int().describe("what variables takes for its children; 0 when it has none (valid until the program resumes)"),
});

export const evaluateOp = defineOp({
  op: "evaluate",
  args: z.strictObject({
    op: z.literal("evaluate"),
    expression: z.string().min(1).max(10_000),
    frame_id: z.number().int().optional().describe("a frame_id from stack; default the top frame where it stopped"),
  }),
  details: EVALUATE_DETAILS,
  async run(args, ctx) {
    const v = await ctx.agent.evaluate({ sessionKey: ctx.sessionKey, expression: args.expression, frameId: args.frame_id });
    const type = v.type ? ` (${v.type})` : "";
    const ref = v.reference > 0 ? `\n[reference ${v.reference}: its children with variables]` : "";
    return {
      parts: [{ type: "text", text: `${cutValue(v.result)}${type}${ref}` }],
      details: { op: "evaluate" as const, ...valueDetails(v.result), type: v.type, reference: Number(v.reference) },
    };
  },
});
