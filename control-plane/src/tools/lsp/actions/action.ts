// One lsp action: what it needs and how it asks the agent and words the answer. Each action lives in
// its own file beside this one; lsp-tool.ts is only the table.
import type { LspQueryResponse } from "../../../../../proto/gen/enclave/agent/v1/lsp.js";
import type { AgentClient } from "../../../agent-client/agent-client.js";
import { LIMITS } from "../../../limits.js";
import type { Run } from "../../../runs/run-store.js";
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

/** Asks the agent's supervisor one query, with the lsp request deadline; unset fields are empty. */
export function lspQuery(client: AgentClient, action: string, args: LspArgs, maxResults = 0): Promise<LspQueryResponse> {
  return client.lspQuery(
    { action, file: args.file ?? "", line: args.line ?? 0, symbol: args.symbol ?? "", query: args.query ?? "", timeoutMs: LIMITS.lspRequestTimeoutMs, maxResults },
    LIMITS.lspRequestTimeoutMs,
  );
}
