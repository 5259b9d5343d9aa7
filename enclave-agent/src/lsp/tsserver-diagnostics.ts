// Pull diagnostics from typescript-language-server, which offers no textDocument/diagnostic and
// pushes in stages without a version (syntax first, with the previous semantic errors still mixed
// in, then semantics): no push can be told apart as final. Its `typescript.tsserverRequest` command
// asks tsserver directly, in order after our didChange, and answers with the current text's errors.
import { fileURLToPath } from "node:url";
import type { Diagnostic } from "./lsp-types.js";
import type { ServerConnection } from "./server-connection.js";

interface TsDiagnostic {
  start: { line: number; offset: number };
  end: { line: number; offset: number };
  text: string;
  code?: number;
  category?: string;
}

const SEVERITY: Record<string, Diagnostic["severity"]> = { error: 1, warning: 2, message: 3, suggestion: 4 };

function toDiagnostic(d: TsDiagnostic): Diagnostic {
  return {
    // tsserver lines and offsets are 1-based, offsets in UTF-16 units like LSP's.
    range: { start: { line: d.start.line - 1, character: d.start.offset - 1 }, end: { line: d.end.line - 1, character: d.end.offset - 1 } },
    severity: SEVERITY[d.category ?? "error"] ?? 1,
    code: d.code,
    source: "typescript",
    message: d.text,
  };
}

export async function tsserverDiagnostics(conn: ServerConnection, uri: string, timeoutMs: number): Promise<Diagnostic[]> {
  const file = fileURLToPath(uri);
  const out: Diagnostic[] = [];
  for (const command of ["syntacticDiagnosticsSync", "semanticDiagnosticsSync"]) {
    const res = await conn.request<{ success?: boolean; body?: TsDiagnostic[]; message?: string } | null>(
      "workspace/executeCommand",
      { command: "typescript.tsserverRequest", arguments: [command, { file, includeLinePosition: false }] },
      timeoutMs,
    );
    if (!res?.success) throw new Error(`tsserver ${command} failed: ${res?.message ?? "no answer"}`);
    out.push(...(res.body ?? []).map(toDiagnostic));
  }
  return out;
}
