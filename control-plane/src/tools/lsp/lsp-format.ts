// How lsp answers read: one line per location, `path:line:col  source line`, workspace-relative.
import type { LspDiagnostic, LspLocation, LspQueryResponse } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import { plural } from "../../text/wording.js";

export { plural };

export function at(loc: LspLocation | undefined): string {
  return loc ? `${loc.path}:${loc.line}:${loc.column}` : "?";
}

export function locationLine(loc: LspLocation): string {
  const src = loc.lineText.trim();
  return `  ${at(loc)}${src ? `  ${src.length > 160 ? `${src.slice(0, 160)}…` : src}` : ""}`;
}

export function diagnosticLine(d: LspDiagnostic): string {
  const code = d.code ? ` [${d.code}]` : "";
  const src = d.lineText.trim();
  return `  ${d.path}:${d.line}:${d.column} ${d.severity}${code} ${d.message.replace(/\s*\n\s*/g, " ")}${src ? `\n      ${d.line} | ${src.length > 160 ? `${src.slice(0, 160)}…` : src}` : ""}`;
}

/** The caveat for answers given while the server reported indexing. */
export function caveats(res: LspQueryResponse): string {
  return res.indexing ? `\n(${res.server} is still indexing: this answer may be incomplete; ask again shortly)` : "";
}

export function capNote(shown: number, total: number, cap: number): string {
  return total > shown ? ` (showing ${shown} of ${total}; capped at ${cap})` : "";
}

/** Errors and warnings are reported; information and hints (unused names, style) are left out. */
export function reportable(d: LspDiagnostic): boolean {
  return d.severity === "error" || d.severity === "warning";
}
