// evaluate: an expression in a frame's own scope (default the top frame of the stopped thread).
import type { DebugProtocol } from "@vscode/debugprotocol";
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
    const dapArgs: DebugProtocol.EvaluateArguments = { expression: args.expression, context: "repl", ...(args.frame_id === undefined ? {} : { frameId: args.frame_id }) };
    const r = await ctx.agent.inspect({ sessionKey: ctx.sessionKey, command: "evaluate", argumentsJson: JSON.stringify(dapArgs) });
    const body = JSON.parse(r.bodyJson) as DebugProtocol.EvaluateResponse["body"];
    const type = body.type ? ` (${body.type})` : "";
    const ref = body.variablesReference > 0 ? `\n[reference ${body.variablesReference}: its children with variables]` : "";
    return text(`${cutValue(body.result)}${type}${ref}`);
  },
});
