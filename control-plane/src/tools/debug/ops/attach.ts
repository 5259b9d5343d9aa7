// attach: to a program already running in the same placement. debugpy and delve by the loopback
// port their DAP server listens on (`python3 -m debugpy --listen 127.0.0.1:PORT --wait-for-client
// prog.py`, `dlv debug --headless --listen 127.0.0.1:PORT`); lldb by the program's pid.
import { z } from "zod";
import { EnclaveError } from "../../../errors.js";
import { formatStatus } from "../debug-format.js";
import { defineOp } from "../debug-op.js";
import { SESSION_OP_DETAILS, sessionDetails } from "../debug-details.js";

export const attachOp = defineOp({
  op: "attach",
  details: SESSION_OP_DETAILS,
  args: z.strictObject({
    op: z.literal("attach"),
    port: z
      .number()
      .int()
      .min(1)
      .max(65535)
      .optional()
      .describe("the port an adapter's DAP server listens on, on 127.0.0.1 where the conversation's code runs (the adapters op marks which attach by port)"),
    pid: z.number().int().min(2).optional().describe("the pid of the running program, as exec reports it, for an adapter that attaches by pid (lldb)"),
    adapter: z.string().min(1).optional().describe("an adapter id from the adapters op; default debugpy with a port, lldb with a pid"),
  }),
  async run(args, ctx) {
    if ((args.port === undefined) === (args.pid === undefined)) {
      throw new EnclaveError("invalid_arguments", "attach needs exactly one of `port` (debugpy, delve) or `pid` (lldb)");
    }
    // Which adapter attaches how is the agent's to know: it picks the default and refuses a mismatch.
    const adapter = args.adapter ?? "";
    const s = await ctx.agent.attach({ sessionKey: ctx.sessionKey, port: args.port ?? 0, pid: args.pid ?? 0, adapter, ttlMs: ctx.sessionTtlMs, waitMs: 0 });
    return { parts: [{ type: "text", text: `attached.\n${formatStatus(s)}` }], details: { op: "attach" as const, session: sessionDetails(s) } };
  },
});
