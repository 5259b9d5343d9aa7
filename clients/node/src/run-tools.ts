// Typed calls for one run: `client.tools(runId).exec({ command })` takes exec's arguments as a type and
// resolves with exec's details as a type (both generated from the registry, generated/tool-types.ts),
// through the same callTool: the same surface, approval gate and audit as any call.
import { TOOL_NAMES, type ToolArgumentsMap, type ToolDetailsMap, type ToolName } from "./generated/tool-types.js";
import type { CallToolOptions } from "./call-options.js";
import { resultText, type ToolCallResult } from "./tool-result.js";

/** A tool's result with its details typed by the tool, and its text joined. */
export interface TypedToolResult<N extends ToolName> extends ToolCallResult {
  /** Undefined when the call was refused (unknown run, invalid arguments, approval refused…) or the tool sent none. */
  details: ToolDetailsMap[N] | undefined;
  /** The text parts joined: what the model reads. */
  text: string;
}

export type RunTools = {
  readonly [N in ToolName]: (args: ToolArgumentsMap[N], opts?: CallToolOptions) => Promise<TypedToolResult<N>>;
};

/** What run tools need of a client. */
export interface ToolCaller {
  callTool(runId: string, tool: string, args: unknown, opts?: CallToolOptions): Promise<ToolCallResult>;
}

export function runTools(client: ToolCaller, runId: string): RunTools {
  const tools: Partial<Record<ToolName, (args: unknown, opts?: CallToolOptions) => Promise<unknown>>> = {};
  for (const name of TOOL_NAMES) {
    tools[name] = async (args, opts) => {
      const r = await client.callTool(runId, name, args, opts);
      return { ...r, text: resultText(r) };
    };
  }
  // Each entry was built from TOOL_NAMES with the typed shape above.
  return Object.freeze(tools) as unknown as RunTools;
}
