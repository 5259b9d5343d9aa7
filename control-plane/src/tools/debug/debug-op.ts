// One op of the debug tool: its argument schema (with its `op` literal) and what it does. Each op
// lives in its own file under ops/, like the features of vscode-languageserver-node.
import type { z } from "zod";
import type { DebugServiceClient } from "../../agent-client/debug-service-client.js";
import type { ToolContext, ToolOutput } from "../tool.js";

export interface DebugOpContext {
  agent: DebugServiceClient;
  /** The session key: the conversation id (one session per conversation). */
  sessionKey: string;
  /** Hard lifetime given to a new session. */
  sessionTtlMs: number;
  /** Host placement: the workspace's host folder, which the sandbox sees as /workspace. */
  hostWorkspace?: string;
  tool: ToolContext;
}

export interface DebugOp<S extends z.ZodObject = z.ZodObject, D extends z.ZodObject = z.ZodObject> {
  op: string;
  args: S;
  /** The shape of its details, with its `op` literal: the tool's details are a union discriminated by op. */
  details: D;
  run(args: z.infer<S>, ctx: DebugOpContext): Promise<ToolOutput<z.infer<D>>>;
}

export function defineOp<S extends z.ZodObject, D extends z.ZodObject>(op: DebugOp<S, D>): DebugOp {
  return op as unknown as DebugOp;
}
