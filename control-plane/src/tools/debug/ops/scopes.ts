// scopes: the scopes of a frame, each with the reference variables takes.
import { z } from "zod";
import { defineOp } from "../debug-op.js";

export const SCOPES_DETAILS = z.object({
  op: z.literal("scopes"),
  scopes: z.array(
    z.object({
      name: z.string().describe("Locals, Globals, Registers…"),
      reference: z.number().int().describe("what variables takes; 0 when it has no children"),
      expensive: z.boolean(),
    }),
  ),
});

export const scopesOp = defineOp({
  op: "scopes",
  args: z.strictObject({
    op: z.literal("scopes"),
    frame_id: z.number().int().describe("a frame_id from stack (valid until the program resumes)"),
  }),
  details: SCOPES_DETAILS,
  async run(args, ctx) {
    const { scopes } = await ctx.agent.scopes(ctx.sessionKey, args.frame_id);
    const lines = scopes.map((s) => `${s.name}: reference ${s.reference}${s.expensive ? " (expensive)" : ""}`);
    const details = { op: "scopes" as const, scopes: scopes.map((s) => ({ name: s.name, reference: Number(s.reference), expensive: s.expensive })) };
    return { parts: [{ type: "text", text: lines.join("\n") || "no scopes" }], details };
  },
});
