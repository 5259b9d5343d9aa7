// threads: ids and names.
import { z } from "zod";
import { text } from "../../tool.js";
import { defineOp } from "../debug-op.js";

export const threadsOp = defineOp({
  op: "threads",
  args: z.strictObject({ op: z.literal("threads") }),
  async run(_args, ctx) {
    const { threads } = await ctx.agent.threads(ctx.sessionKey);
    return text(threads.length ? threads.map((t) => `thread ${t.id}: ${t.name}`).join("\n") : "no threads");
  },
});
