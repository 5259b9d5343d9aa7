// output: the debuggee's stdout and stderr, from a bounded buffer (the newest text is kept).
import { z } from "zod";
import { text } from "../../tool.js";
import { defineOp } from "../debug-op.js";

export const outputOp = defineOp({
  op: "output",
  args: z.strictObject({ op: z.literal("output") }),
  async run(_args, ctx) {
    const o = await ctx.agent.output(ctx.sessionKey);
    const dropped = o.droppedBytes ? `[${o.droppedBytes} earlier bytes dropped: the buffer keeps the newest]\n` : "";
    return text(o.text || dropped ? `${dropped}${o.text}` : `(session ${o.sessionId} has written no output)`);
  },
});
