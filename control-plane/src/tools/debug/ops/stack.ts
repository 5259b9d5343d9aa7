// stack: the frames of a thread, capped at 30, each with the frame_id scopes and evaluate take.
import type { DebugProtocol } from "@vscode/debugprotocol";
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
    const r = await ctx.agent.inspect({
      sessionKey: ctx.sessionKey,
      command: "stackTrace",
      argumentsJson: JSON.stringify({ threadId: args.thread_id ?? 0, startFrame: 0, levels: cap }),
    });
    const body = JSON.parse(r.bodyJson) as DebugProtocol.StackTraceResponse["body"];
    const frames = (body.stackFrames ?? []).slice(0, cap);
    const lines = frames.map((f, i) => {
      const where = f.source?.path ?? f.source?.name ?? "no source";
      return `#${i} ${f.name} at ${where}:${f.line}  (frame_id ${f.id})`;
    });
    const total = body.totalFrames ?? frames.length;
    if (total > frames.length || frames.length === cap) {
      lines.push(`[showing ${frames.length} frames${total > frames.length ? ` of ${total}` : ""}: capped at ${cap}]`);
    }
    // Stopped on an exception: say which, above the frames.
    const { exception } = await ctx.agent.status(ctx.sessionKey);
    const head = exception ? `${formatException(exception)}\nframes:\n` : "";
    return text(`${head}${lines.join("\n") || "no frames"}`);
  },
});
