// output: the debuggee's stdout and stderr, from a bounded buffer (the newest text is kept).
import { z } from "zod";
import { defineOp } from "../debug-op.js";

export const OUTPUT_DETAILS = z.object({
  op: z.literal("output"),
  session_id: z.string(),
  text: z.string().describe("the program's stdout and stderr as they came, the newest kept"),
  dropped_bytes: z.number().int().describe("earlier bytes the bounded buffer dropped"),
  total_bytes: z.number().int().describe("bytes the program wrote in all"),
});

export const outputOp = defineOp({
  op: "output",
  args: z.strictObject({ op: z.literal("output") }),
  details: OUTPUT_DETAILS,
  async run(_args, ctx) {
    const o = await ctx.agent.output(ctx.sessionKey);
    const dropped = o.droppedBytes ? `[${o.droppedBytes} earlier bytes dropped: the buffer keeps the newest]\n` : "";
    const details = { op: "output" as const, session_id: o.sessionId, text: o.text, dropped_bytes: Number(o.droppedBytes), total_bytes: Number(o.totalBytes) };
    return { parts: [{ type: "text", text: o.text || dropped ? `${dropped}${o.text}` : `(session ${o.sessionId} has written no output)` }], details };
  },
});
