// variables: the children of a reference, capped at 50, each value cut at 400 characters.
import { z } from "zod";
import { LIMITS } from "../../../limits.js";
import { cutValue } from "../debug-format.js";
import { VALUE_FIELDS, valueDetails } from "../debug-details.js";
import { defineOp } from "../debug-op.js";

export const VARIABLES_DETAILS = z.object({
  op: z.literal("variables"),
  variables: z
    .array(
      z.object({
        name: z.string(),
        type: z.string().describe("its type as the adapter says, or empty"),
        ...VALUE_FIELDS,
        reference: z.number().int().describe("its children's reference for variables; 0 when it has none"),
      }),
    )
    .describe(`at most ${LIMITS.debugVariables}, in the adapter's order`),
  total: z.number().int().describe("children the reference has"),
  truncated: z.boolean().describe(`more children than listed (capped at ${LIMITS.debugVariables})`),
});

export const variablesOp = defineOp({
  op: "variables",
  args: z.strictObject({
    op: z.literal("variables"),
    reference: z.number().int().min(1).describe("a reference from scopes, variables or evaluate (valid until the program resumes)"),
  }),
  details: VARIABLES_DETAILS,
  async run(args, ctx) {
    const { variables: all } = await ctx.agent.variables(ctx.sessionKey, args.reference);
    const cap = LIMITS.debugVariables;
    const shown = all.slice(0, cap);
    const lines = shown.map((v) => {
      const type = v.type ? ` (${v.type})` : "";
      const ref = v.reference > 0 ? `  [reference ${v.reference}]` : "";
      return `${v.name}${type} = ${cutValue(v.value)}${ref}`;
    });
    if (all.length > cap) lines.push(`[${all.length - cap} more not shown: capped at ${cap} children]`);
    const details = {
      op: "variables" as const,
      variables: shown.map((v) => ({ name: v.name, type: v.type, ...valueDetails(v.value), reference: Number(v.reference) })),
      total: all.length,
      truncated: all.length > cap,
    };
    return { parts: [{ type: "text", text: lines.join("\n") || "no variables" }], details };
  },
});
