// threads: ids and names.
import { z } from "zod";
import { defineOp } from "../debug-op.js";

export const THREADS_DETAILS = z.object({ op: z.literal("threads"), threads: z.array(z.object({ id: z.number().int(), name: z.string() })) });

export const threadsOp = defineOp({
  op: "threads",
  args: z.strictObject({ op: z.literal("threads") }),
  details: THREADS_DETAILS,
  async run(_args, ctx) {
    const { threads } = await ctx.agent.threads(ctx.sessionKey);
    const details = { op: "threads" as const, threads: threads.map((t) => ({ id: Number(t.id), name: t.name })) };
    return { parts: [{ type: "text", text: threads.length ? threads.map((t) => `thread ${t.id}: ${t.name}`).join("\n") : "no threads" }], details };
  },
});
