// attach: connects to a debuggee already listening on 127.0.0.1 in the same placement
// (`python3 -m debugpy --listen 127.0.0.1:PORT --wait-for-client prog.py`).
import { z } from "zod";
import { text } from "../../tool.js";
import { formatStatus } from "../debug-format.js";
import { defineOp } from "../debug-op.js";

export const attachOp = defineOp({
  op: "attach",
  args: z.strictObject({
    op: z.literal("attach"),
    port: z.number().int().min(1).max(65535).describe("the port it listens on, on 127.0.0.1 where the conversation's code runs"),
    adapter: z.string().min(1).optional().describe("what listens there: an adapter id the adapters op marks `attach by port`; default debugpy"),
  }),
  async run(args, ctx) {
    const s = await ctx.agent.attach({ sessionKey: ctx.sessionKey, port: args.port, adapter: args.adapter ?? "", ttlMs: ctx.sessionTtlMs, waitMs: 0 });
    return text(`attached.\n${formatStatus(s)}`);
  },
});
