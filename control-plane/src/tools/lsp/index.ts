// The lsp capability of the control plane: the lsp and lsp_rename tools, and diagnostics folded into
// the write tools, sharing one ledger of what each run has been told.
import type { Tool } from "../tool.js";
import { DiagnosticsLedger } from "./diagnostics-ledger.js";
import { withDiagnosticsOnWrite } from "./diagnostics-on-write.js";
import { lspRenameTool } from "./lsp-rename-tool.js";
import { lspTool } from "./lsp-tool.js";

export class LspCapability {
  readonly ledger = new DiagnosticsLedger();
  readonly tools: readonly Tool[] = [lspTool(this.ledger), lspRenameTool(this.ledger)];

  /** Wraps the file-writing tools among `tools` (write, edit, apply_patch, resolve) with diagnostics on write. */
  wrapWriteTools(tools: readonly Tool[]): Tool[] {
    return withDiagnosticsOnWrite(tools, this.ledger);
  }
}
