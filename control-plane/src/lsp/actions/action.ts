// One lsp action: what it needs and how it asks the agent and words the answer. Each action lives in
// its own file beside this one; lsp-tool.ts is only the table.
import type { AgentClient } from "../../agent-client/agent-client.js";
import type { Run } from "../../runs/run-store.js";
import type { DiagnosticsLedger } from "../diagnostics-ledger.js";

/** The run a call belongs to, and its ledger (what diagnostics shows is then already reported). */
export interface LspEnv {
  run: Run;
  ledger: DiagnosticsLedger;
}

export interface LspArgs {
  action: string;
  file?: string;
  line?: number;
  symbol?: string;
  query?: string;
}

export interface LspAction {
  name: string;
  /** "position": file, line and symbol; "file": file; "none". */
  needs: "position" | "file" | "symbols" | "none";
  run(args: LspArgs, client: AgentClient, env: LspEnv): Promise<string>;
}
