// breakpoints: replaces a file's breakpoints (empty lines clears them); before launch they wait
// and are applied at launch.
import { z } from "zod";
import { formatBreakpoints } from "../debug-format.js";
import { BREAKPOINTS_DETAILS, breakpointsDetails } from "../debug-details.js";
import { defineOp } from "../debug-op.js";

export const BREAKPOINTS_OP_DETAILS = BREAKPOINTS_DETAILS.extend({ op: z.literal("breakpoints") });

export const breakpointsOp = defineOp({
  op: "breakpoints",
  args: z.strictObject({
    op: z.literal("breakpoints"),
    file: z.string().min(1).describe("source file relative to the workspace root"),
    lines: z.array(z.number().int().min(1)).max(1000).describe("1-based lines; an empty list clears the file"),
  }),
  details: BREAKPOINTS_OP_DETAILS,
  async run(args, ctx) {
    const r = await ctx.agent.setBreakpoints({ sessionKey: ctx.sessionKey, file: args.file, lines: args.lines });
    const when = r.breakpoints.length === 0 ? "cleared" : r.applied ? "set in the running session" : "set; applied at the next launch or attach";
    return { parts: [{ type: "text", text: `${when}: ${formatBreakpoints(r)}` }], details: { op: "breakpoints" as const, ...breakpointsDetails(r) } };
  },
});
