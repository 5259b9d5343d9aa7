// launch: starts the program under its adapter, stopped at its breakpoints. One session per
// conversation: a second launch is refused, naming the running one.
import { z } from "zod";
import { text } from "../../tool.js";
import { formatStatus } from "../debug-format.js";
import { defineOp } from "../debug-op.js";

export const launchOp = defineOp({
  op: "launch",
  args: z.strictObject({
    op: z.literal("launch"),
    program: z.string().min(1).describe("workspace-relative program: a .py script, a Go package folder or .go file, a compiled executable"),
    args: z.array(z.string()).max(1000).optional().describe("command-line arguments of the program"),
    adapter: z.enum(["debugpy", "lldb", "delve", "dart"]).optional().describe("adapter id; picked from the program when omitted"),
  }),
  async run(args, ctx) {
    const s = await ctx.agent.launch({
      sessionKey: ctx.sessionKey,
      program: args.program,
      args: args.args ?? [],
      adapter: args.adapter ?? "",
      ttlMs: ctx.sessionTtlMs,
      waitMs: 0,
    });
    return text(`launched.\n${formatStatus(s)}`);
  },
});
