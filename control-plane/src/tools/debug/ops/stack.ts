// stack: the frames of a thread, capped at 30, each with the frame_id scopes and evaluate take.
import { z } from "zod";
import { LIMITS } from "../../../limits.js";
import { formatException } from "../debug-format.js";
import { EXCEPTION_DETAILS, exceptionDetails } from "../debug-details.js";
import { workspaceRelative } from "../../details-paths.js";
import { defineOp } from "../debug-op.js";

export const STACK_DETAILS = z.object({
  op: z.literal("stack"),
  frames: z
    .array(
      z.object({
        id: z.number().int().describe("the frame_id scopes and evaluate take (valid until the program resumes)"),
        name: z.string().describe("the function"),
        path: z.string().nullable().describe("workspace-relative source file; null when outside the workspace or without source"),
        line: z.number().int().describe("1-based line"),
      }),
    )
    .describe(`innermost first, at most ${LIMITS.debugStackFrames}`),
  total: z.number().int().describe("frames the thread has, as the adapter counts them (at least the frames listed)"),
  truncated: z.boolean().describe(`the thread has more frames than listed (capped at ${LIMITS.debugStackFrames})`),
  exception: EXCEPTION_DETAILS.nullable().describe("the exception it is stopped on, if any"),
});

export const stackOp = defineOp({
  op: "stack",
  args: z.strictObject({
    op: z.literal("stack"),
    thread_id: z.number().int().min(1).optional().describe("default the thread that stopped"),
  }),
  details: STACK_DETAILS,
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
    const details = {
      op: "stack" as const,
      frames: frames.map((f) => ({ id: Number(f.id), name: f.name, path: workspaceRelative(f.file), line: f.line })),
      total: Math.max(total, frames.length),
      truncated: total > frames.length,
      exception: exceptionDetails(r.exception),
    };
    return { parts: [{ type: "text", text: `${head}${lines.join("\n") || "no frames"}` }], details };
  },
});
