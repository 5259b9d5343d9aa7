// variables: the children of a reference, capped at 50, each value cut at 400 characters.
import type { DebugProtocol } from "@vscode/debugprotocol";
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
    const r = await ctx.agent.inspect({ sessionKey: ctx.sessionKey, command: "variables", argumentsJson: JSON.stringify({ variablesReference: args.reference }) });
    const body = JSON.parse(r.bodyJson) as DebugProtocol.VariablesResponse["body"];
    const all = body.variables ?? [];
    const cap = LIMITS.debugVariables;
    const lines = all.slice(0, cap).map((v) => {
      const type = v.type ? ` (${v.type})` : "";
      const ref = v.variablesReference > 0 ? `  [reference ${v.variablesReference}]` : "";
      return `${v.name}${type} = ${cutValue(v.value)}${ref}`;
    });
    if (all.length > cap) lines.push(`[${all.length - cap} more not shown: capped at ${cap} children]`);
    return text(lines.join("\n") || "no variables");
  },
});
