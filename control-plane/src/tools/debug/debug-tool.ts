// debug (tier exec, not parallel-safe): drives a debugger through the conversation's agent, in its
// enclosure or on the host. One session per conversation with a hard TTL; calls on one conversation
// are serialized here (and again in the agent), so a `continue` never races a `stack`.
import { z } from "zod";
import { debugServiceClient } from "../../agent-client/debug-service-client.js";
import { EnclaveError } from "../../errors.js";
import { defineTool, type Tool } from "../tool.js";
import type { DebugOp } from "./debug-op.js";
import { adaptersOp } from "./ops/adapters.js";
import { attachOp } from "./ops/attach.js";
import { breakpointsOp } from "./ops/breakpoints.js";
import { continueOp } from "./ops/continue.js";
import { evaluateOp } from "./ops/evaluate.js";
import { launchOp } from "./ops/launch.js";
import { outputOp } from "./ops/output.js";
import { pauseOp } from "./ops/pause.js";
import { scopesOp } from "./ops/scopes.js";
import { stackOp } from "./ops/stack.js";
import { statusOp } from "./ops/status.js";
import { stepInOp } from "./ops/step-in.js";
import { stepOutOp } from "./ops/step-out.js";
import { stepOverOp } from "./ops/step-over.js";
import { terminateOp } from "./ops/terminate.js";
import { threadsOp } from "./ops/threads.js";
import { variablesOp } from "./ops/variables.js";

export const DEBUG_OPS: readonly DebugOp[] = [
  adaptersOp, statusOp, breakpointsOp, launchOp, attachOp, continueOp, pauseOp, stepOverOp, stepInOp, stepOutOp,
  threadsOp, stackOp, scopesOp, variablesOp, evaluateOp, outputOp, terminateOp,
];

export interface DebugToolOptions {
  /** Hard lifetime of a session (30 minutes by default; shorter in tests). */
  sessionTtlMs: number;
}

const DESCRIPTION =
  "Drive a debugger (Debug Adapter Protocol) where the conversation's code runs: debugpy for Python, " +
  "lldb for compiled C/C++/Rust executables, delve for Go. One session per conversation (hard TTL 30 min). " +
  "Typical flow: adapters → breakpoints {file, lines} → launch {program, args} → status/stack → scopes {frame_id} → " +
  "variables {reference} / evaluate {expression, frame_id} → step_over / step_in / step_out / continue → output → terminate. " +
  "Frame ids and references die when the program resumes.";

export function createDebugTool(opts: DebugToolOptions): Tool {
  const schemas = DEBUG_OPS.map((o) => o.args) as unknown as [z.ZodObject, z.ZodObject, ...z.ZodObject[]];
  const byName = new Map(DEBUG_OPS.map((o) => [o.op, o]));
  // One queue per conversation: a session is state between calls.
  const queues = new Map<string, Promise<unknown>>();
  const serialized = <T>(key: string, fn: () => Promise<T>): Promise<T> => {
    const prev = queues.get(key) ?? Promise.resolve();
    const run = prev.then(fn);
    const tail = run.catch(() => undefined);
    queues.set(key, tail);
    void tail.then(() => {
      if (queues.get(key) === tail) queues.delete(key);
    });
    return run;
  };

  return defineTool({
    name: "debug",
    tier: "exec",
    resource: "debug",
    description: DESCRIPTION,
    parallelSafe: false,
    args: z.discriminatedUnion("op", schemas),
    async run(args, ctx) {
      const op = byName.get((args as { op: string }).op);
      if (!op) throw new EnclaveError("invalid_arguments", `unknown debug op \`${(args as { op: string }).op}\``);
      const key = ctx.run.conversationId;
      return serialized(key, async () => {
        const { client } = await ctx.agent();
        return op.run(args, { agent: debugServiceClient(client).forCall(ctx.signal), sessionKey: key, sessionTtlMs: opts.sessionTtlMs, tool: ctx });
      });
    },
  });
}
