// variables: the children of a reference, capped at 50, each value cut at 400 characters.
import { z } from "zod";
import { LIMITS } from "../../../limits.js";
import { text } from "../../tool.js";
import { cutValue } from "../debug-format.js";
import { defineOp } from "../debug-op.js";

export const variablesOp = defineOp({
  op: "variables",
  args: z.strictObject({
    op: z.literal("variables"),
    reference: z.number().int().min(1).describe("a reference from scopes, variables or evaluate (valid until the program resumes)"),
  }),
  async run(args, ctx) {
    const { variables: all } = await ctx.agent.variables(ctx.sessionKey, args.reference);
    const cap = LIMITS.debugVariables;
    const lines = all.slice(0, cap).map((v) => {
      const type = v.type ? ` (${v.type})` : "";
      const ref = v.reference > 0 ? `  [reference ${v.reference}]` : "";
      return `${v.name}${type} = ${cutValue(v.value)}${ref}`;
    });
    if (all.length > cap) lines.push(`[${all.length - cap} more not shown: capped at ${cap} children]`);
    return text(lines.join("\n") || "no variables");
  },
});
