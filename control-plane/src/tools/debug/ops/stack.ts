// stack: the frames of a thread, capped at 30, each with the frame_id scopes and evaluate take.
import { z } from "zod";
import { LIMITS } from "../../../limits.js";
import { text } from "../../tool.js";
import { formatException } from "../debug-format.js";
import { defineOp } from "../debug-op.js";

export const stackOp = defineOp({
  op: "stack",
  args: z.strictObject({
    op: z.literal("stack"),
    thread_id: z.number().int().min(1).optional().describe("default the thread that stopped"),
  }),
  async run(args, ctx) {
    const cap = LIMITS.debugStackFrames;
    const r = await ctx.agent.stack({ sessionKey: ctx.sessionKey, threadId: args.thread_id ?? 0, levels: cap });
    const frames = r.frames.slice(0, cap);
    const lines = frames.map((f, i) => `#${i} ${f.name} at ${f.file || "no source"}:${f.line}  (frame_id ${f.id})`);
    const total = r.total || frames.length;
    if (total > frames.length || frames.length === cap) {
      lines.push(`[showing ${frames.length} frames${total > frames.length ? ` of ${total}` : ""}: capped at ${cap}]`);
    }
    // Stopped on an exception: say which, above the frames (the same answer: the same stop).
    const head = r.exception ? `${formatException(r.exception)}\nframes:\n` : "";
    return text(`${head}${lines.join("\n") || "no frames"}`);
  },
});
