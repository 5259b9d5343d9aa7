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
  tool: ToolContext;
}

export interface DebugOp<S extends z.ZodObject = z.ZodObject> {
  op: string;
  args: S;
  run(args: z.infer<S>, ctx: DebugOpContext): Promise<ToolOutput>;
}

export function defineOp<S extends z.ZodObject>(op: DebugOp<S>): DebugOp {
  return op as unknown as DebugOp;
}
