// threads: ids and names.
import type { DebugProtocol } from "@vscode/debugprotocol";
import { z } from "zod";
import { text } from "../../tool.js";
import { defineOp } from "../debug-op.js";

export const threadsOp = defineOp({
  op: "threads",
  args: z.strictObject({ op: z.literal("threads") }),
  async run(_args, ctx) {
    const r = await ctx.agent.inspect({ sessionKey: ctx.sessionKey, command: "threads", argumentsJson: "{}" });
    const body = JSON.parse(r.bodyJson) as DebugProtocol.ThreadsResponse["body"];
    const threads = body.threads ?? [];
    return text(threads.length ? threads.map((t) => `thread ${t.id}: ${t.name}`).join("\n") : "no threads");
  },
});
