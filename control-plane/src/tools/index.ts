// The one list of the tools the control plane offers, in the order ListTools shows them. Each tool's
// semantics live in its folder beside this file; how a call is validated, approved, dispatched and
// audited is the same for all of them (tool.ts, tool-registry.ts, tool-dispatcher.ts). Custom tools
// join the registry at start, loaded from their folder (custom/custom-tool-loader.ts).
import type { QuestionPort } from "../questions/question-port.js";
import type { VibeRoster } from "../vibe/vibe-roster.js";
import { askUserTool } from "./ask-user/ask-user.js";
import { astEditTool } from "./ast/ast-edit.js";
import { astGrepTool } from "./ast/ast-grep.js";
import { resolveTool } from "./ast/resolve.js";
import { applyPatchTool } from "./builtin/apply-patch.js";
import { editTool } from "./builtin/edit.js";
import { execTool } from "./builtin/exec.js";
import { listTool } from "./builtin/list.js";
import { readTool } from "./builtin/read.js";
import { writeTool } from "./builtin/write.js";
import { createDebugTool } from "./debug/debug-tool.js";
import { evalTool } from "./eval/eval-tool.js";
import type { DiagnosticsLedger } from "./lsp/diagnostics-ledger.js";
import { withDiagnosticsOnWrite } from "./lsp/diagnostics-on-write.js";
import { lspRenameTool } from "./lsp/lsp-rename-tool.js";
import { lspTool } from "./lsp/lsp-tool.js";
import type { Tool } from "./tool.js";
import { vibeKillTool } from "./vibe/vibe-kill.js";
import { vibeListTool } from "./vibe/vibe-list.js";
import { vibeSendTool } from "./vibe/vibe-send.js";
import { vibeSpawnTool } from "./vibe/vibe-spawn.js";
import { vibeWaitTool } from "./vibe/vibe-wait.js";

/** The control plane's parts the tools are bound to. */
export interface ToolBindings {
  /** What each run has been told about diagnostics; shared by lsp, lsp_rename and the file-writing tools. */
  ledger: DiagnosticsLedger;
  questions: QuestionPort;
  questionTimeoutMs: () => number;
  vibe: VibeRoster;
  workspaceOf: (conversationId: string) => string;
  debugSessionTtlMs: number;
}

export function enclaveTools(b: ToolBindings): Tool[] {
  // The file-writing tools report the diagnostics their writes caused.
  const onWrite = (tools: Tool[]): Tool[] => withDiagnosticsOnWrite(tools, b.ledger);
  return [
    ...onWrite([readTool, listTool, writeTool, editTool, applyPatchTool, execTool]),
    lspTool(b.ledger),
    lspRenameTool(b.ledger),
    askUserTool(b.questions, b.questionTimeoutMs),
    vibeSpawnTool(b.vibe, b.workspaceOf),
    vibeSendTool(b.vibe),
    vibeWaitTool(b.vibe),
    vibeKillTool(b.vibe),
    vibeListTool(b.vibe),
    ...onWrite([astGrepTool, astEditTool, resolveTool]),
    createDebugTool({ sessionTtlMs: b.debugSessionTtlMs }),
    evalTool,
  ];
}
