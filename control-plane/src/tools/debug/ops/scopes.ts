// scopes: the scopes of a frame, each with the reference variables takes.
import { z } from "zod";
import { text } from "../../tool.js";
import { defineOp } from "../debug-op.js";

export const scopesOp = defineOp({
  op: "scopes",
  args: z.strictObject({
    op: z.literal("scopes"),
    frame_id: z.number().int().describe("a frame_id from stack (valid until the program resumes)"),
  }),
  async run(args, ctx) {
    const { scopes } = await ctx.agent.scopes(ctx.sessionKey, args.frame_id);
    const lines = scopes.map((s) => `${s.name}: reference ${s.reference}${s.expensive ? " (expensive)" : ""}`);
    return text(lines.join("\n") || "no scopes");
  },
});
