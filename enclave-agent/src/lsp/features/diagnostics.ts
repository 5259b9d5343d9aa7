// diagnostics: a file's errors and warnings, fresh after syncing it from disk; stale ones are marked.
import type { LspDiagnostic } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import { freshDiagnostics } from "../document-sync.js";
import { type Diagnostic, SEVERITIES } from "../lsp-types.js";
import type { SourceLines } from "../source-lines.js";
import type { Feature } from "./feature-context.js";

export function toDiagnostics(sources: SourceLines, uri: string, items: Diagnostic[]): LspDiagnostic[] {
  const out = items.map((d) => {
    const loc = sources.location(uri, d.range);
    return {
      path: loc.path,
      line: loc.line,
      column: loc.column,
      severity: SEVERITIES[d.severity ?? 1] || "error",
      code: d.code === undefined || d.code === null ? "" : String(d.code),
      message: d.message,
      source: d.source ?? "",
      lineText: loc.lineText,
    };
  });
  const rank = (s: string): number => SEVERITIES.indexOf(s as (typeof SEVERITIES)[number]);
  return out.sort((a, b) => rank(a.severity) - rank(b.severity) || a.line - b.line || a.column - b.column);
}

export const diagnosticsFeature: Feature = {
  positional: false,
  async run(ctx) {
    const items = await freshDiagnostics(ctx.conn, ctx.doc, ctx.deadline);
    const stale = items === undefined;
    const all = toDiagnostics(ctx.sources, ctx.doc.uri, items ?? ctx.conn.lastPushed(ctx.doc.uri)?.items ?? []);
    return { diagnostics: all, total: all.length, stale };
  },
};
