// debug (tier exec, not parallel-safe): drives a debugger through the conversation's agent, in its
// enclosure or on the host. One session per conversation with a hard TTL (from configuration).
// The agent owns the protocol side: adapters and their ids (read with the adapters op), DAP, and the
// one queue that serializes a conversation's calls so a `continue` never races a `stack`; this side
// owns the ops, their caps and their texts, and passes each call straight through.
import { z } from "zod";
import { debugServiceClient } from "../../agent-client/debug-service-client.js";
import { EnclaveError } from "../../errors.js";
import { defineTool, type Tool, type ToolOutput } from "../tool.js";
import type { DebugOp } from "./debug-op.js";
import { SESSION_OP_DETAILS } from "./debug-details.js";
import { ADAPTERS_DETAILS, adaptersOp } from "./ops/adapters.js";
import { attachOp } from "./ops/attach.js";
import { BREAKPOINTS_OP_DETAILS, breakpointsOp } from "./ops/breakpoints.js";
import { continueOp } from "./ops/continue.js";
import { EVALUATE_DETAILS, evaluateOp } from "./ops/evaluate.js";
import { launchOp } from "./ops/launch.js";
import { OUTPUT_DETAILS, outputOp } from "./ops/output.js";
import { pauseOp } from "./ops/pause.js";
import { SCOPES_DETAILS, scopesOp } from "./ops/scopes.js";
import { STACK_DETAILS, stackOp } from "./ops/stack.js";
import { statusOp } from "./ops/status.js";
import { stepInOp } from "./ops/step-in.js";
import { stepOutOp } from "./ops/step-out.js";
import { stepOverOp } from "./ops/step-over.js";
import { terminateOp } from "./ops/terminate.js";
import { THREADS_DETAILS, threadsOp } from "./ops/threads.js";
import { VARIABLES_DETAILS, variablesOp } from "./ops/variables.js";

export const DEBUG_OPS: readonly DebugOp[] = [
  adaptersOp,
  statusOp,
  breakpointsOp,
  launchOp,
  attachOp,
  continueOp,
  pauseOp,
  stepOverOp,
  stepInOp,
  stepOutOp,
  threadsOp,
  stackOp,
  scopesOp,
  variablesOp,
  evaluateOp,
  outputOp,
  terminateOp,
];

export interface DebugToolOptions {
  /** Hard lifetime of a session (the control plane's `debugSessionTtlMs`; shorter in tests). */
  sessionTtlMs: number;
}

/** A lifetime as the description states it: whole minutes when it is some, else seconds. */
export function ttlWords(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${Math.round(ms / 100) / 10} s`;
}

const description = (ttlMs: number): string =>
  "Drive a debugger (Debug Adapter Protocol) where the conversation's code runs: debugpy for Python, " +
  `lldb for compiled C/C++/Rust executables, delve for Go (adapters lists them). One session per conversation (hard TTL ${ttlWords(ttlMs)}). ` +
  "Typical flow: adapters → breakpoints {file, lines} → launch {program, args} → status/stack → scopes {frame_id} → " +
  "variables {reference} / evaluate {expression, frame_id} → step_over / step_in / step_out / continue → output → terminate. " +
  "Frame ids and references die when the program resumes.";

/** The debug tool's details: one branch per op, discriminated by `op` like its arguments. */
export const DEBUG_DETAILS = z.discriminatedUnion("op", [
  SESSION_OP_DETAILS,
  ADAPTERS_DETAILS,
  BREAKPOINTS_OP_DETAILS,
  THREADS_DETAILS,
  STACK_DETAILS,
  SCOPES_DETAILS,
  VARIABLES_DETAILS,
  EVALUATE_DETAILS,
  OUTPUT_DETAILS,
]);
export type DebugDetails = z.infer<typeof DEBUG_DETAILS>;

export function createDebugTool(opts: DebugToolOptions): Tool {
  const schemas = DEBUG_OPS.map((o) => o.args) as unknown as [z.ZodObject, z.ZodObject, ...z.ZodObject[]];
  const byName = new Map(DEBUG_OPS.map((o) => [o.op, o]));

  return defineTool({
    name: "debug",
    tier: "exec",
    resource: "debug",
    description: description(opts.sessionTtlMs),
    parallelSafe: false,
    args: z.discriminatedUnion("op", schemas),
    details: DEBUG_DETAILS,
    async run(args, ctx) {
      const op = byName.get((args as { op: string }).op);
      if (!op) throw new EnclaveError("invalid_arguments", `unknown debug op \`${(args as { op: string }).op}\``);
      const { client, hostWorkspace } = await ctx.agent();
      // Each op's own details schema is a branch of DEBUG_DETAILS (the table erases which one).
      return (await op.run(args, {
        agent: debugServiceClient(client).forCall(ctx.signal),
        sessionKey: ctx.run.conversationId,
        sessionTtlMs: opts.sessionTtlMs,
        ...(hostWorkspace !== undefined ? { hostWorkspace } : {}),
        tool: ctx,
      })) as ToolOutput<DebugDetails>;
    },
  });
}
