// launch: starts the program under its adapter, stopped at its breakpoints. One session per
// conversation: a second launch is refused, naming the running one.
import { z } from "zod";
import { LIMITS } from "../../../limits.js";
import { formatStatus } from "../debug-format.js";
import { defineOp } from "../debug-op.js";
import { SESSION_OP_DETAILS, sessionDetails } from "../debug-details.js";
import { recordedWorkspacePrefixes } from "../recorded-workspace-prefix.js";
import { IN_SANDBOX } from "../../../model/host-sandbox.js";

export const launchOp = defineOp({
  op: "launch",
  details: SESSION_OP_DETAILS,
  args: z.strictObject({
    op: z.literal("launch"),
    program: z.string().min(1).describe("workspace-relative program: a .py script, a Go package folder or .go file, a compiled executable"),
    args: z.array(z.string()).max(1000).optional().describe("command-line arguments of the program"),
    adapter: z.string().min(1).optional().describe("an adapter id from the adapters op; picked from the program when omitted"),
    stdin: z
      .string()
      .max(LIMITS.debugStdinChars)
      .optional()
      .describe("text for the program's standard input, then end-of-file; without it stdin is not connected (a read gets end-of-file at once)"),
    exceptions: z
      .enum(["uncaught", "raised", "none"])
      .optional()
      .describe("which exceptions stop the program: uncaught (default), raised (every raise, even one caught later), none"),
  }),
  async run(args, ctx) {
    const recorded = ctx.hostWorkspace ? await recordedWorkspacePrefixes(ctx.hostWorkspace, args.program) : [];
    const s = await ctx.agent.launch({
      sessionKey: ctx.sessionKey,
      program: args.program,
      args: args.args ?? [],
      adapter: args.adapter ?? "",
      ttlMs: ctx.sessionTtlMs,
      waitMs: 0,
      stdin: args.stdin,
      exceptions: args.exceptions ?? "",
      sourcePrefixes: recorded.map((r) => ({ recorded: r, here: IN_SANDBOX.workspace })),
    });
    return { parts: [{ type: "text", text: `launched.\n${formatStatus(s)}` }], details: { op: "launch" as const, session: sessionDetails(s) } };
  },
});
