// scopes: the scopes of a frame, each with the reference variables takes.
import type { DebugProtocol } from "@vscode/debugprotocol";
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
    const r = await ctx.agent.inspect({ sessionKey: ctx.sessionKey, command: "scopes", argumentsJson: JSON.stringify({ frameId: args.frame_id }) });
    const body = JSON.parse(r.bodyJson) as DebugProtocol.ScopesResponse["body"];
    const lines = (body.scopes ?? []).map((s) => `${s.name}: reference ${s.variablesReference}${s.expensive ? " (expensive)" : ""}`);
    return text(lines.join("\n") || "no scopes");
  },
});
