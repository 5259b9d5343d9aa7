// A file's diagnostics as its language server sees the file on disk now: synced (opened, changed,
// saved) to every running server for it, then fresh diagnostics, or "late" past the deadline. What
// writes report after writing, and what a run's ledger is seeded with before a first write.
import { LspDiagnosticsState, type LspFileDiagnostics } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import type { WorkspacePaths } from "../fs/workspace-paths.js";
import { freshDiagnostics, readText, type Synced, syncText, uriOf } from "./document-sync.js";
import { toDiagnostics } from "./features/diagnostics.js";
import { SourceLines } from "./source-lines.js";
import type { LspSupervisor } from "./supervisor.js";
import { within } from "@enclave/proto/wait.js";

export async function fileDiagnostics(paths: WorkspacePaths, sup: LspSupervisor, path: string, deadline: number): Promise<LspFileDiagnostics> {
  let abs: string;
  let rel: string;
  try {
    ({ abs, rel } = paths.resolve(path, "read"));
  } catch (err) {
    return { path, servers: [], state: LspDiagnosticsState.LSP_DIAGNOSTICS_STATE_FAILED, diagnostics: [], detail: (err as Error).message };
  }
  const exists = await readText(paths, rel).then(
    (t) => t,
    () => undefined,
  );
  if (exists === undefined) {
    for (const c of sup.runningFor(abs)) c.closeDocument(uriOf(abs));
    return { path: rel, servers: [], state: LspDiagnosticsState.LSP_DIAGNOSTICS_STATE_DELETED, diagnostics: [], detail: "" };
  }
  let choice;
  try {
    choice = sup.primaryFor(abs);
  } catch (err) {
    return { path: rel, servers: [], state: LspDiagnosticsState.LSP_DIAGNOSTICS_STATE_NO_SERVER, diagnostics: [], detail: (err as Error).message };
  }
  // Starting a server counts against the wait: a write never blocks on a slow start.
  const started = sup.connect(choice);
  const conn = await within(started, deadline - Date.now(), undefined).catch((err: unknown) => err as Error);
  if (conn === undefined) {
    return {
      path: rel,
      servers: [choice.spec.id],
      state: LspDiagnosticsState.LSP_DIAGNOSTICS_STATE_LATE,
      diagnostics: [],
      detail: `${choice.spec.id} is still starting`,
    };
  }
  if (conn instanceof Error)
    return { path: rel, servers: [choice.spec.id], state: LspDiagnosticsState.LSP_DIAGNOSTICS_STATE_FAILED, diagnostics: [], detail: conn.message };
  const languageId = sup.languageIdFor(abs);
  let doc: Synced | undefined;
  for (const c of sup.runningFor(abs)) {
    const s = syncText(paths, c, abs, languageId, exists, true);
    if (c === conn) doc = s;
  }
  doc ??= syncText(paths, conn, abs, languageId, exists, true);
  try {
    const items = await freshDiagnostics(conn, doc, deadline);
    if (items === undefined) return { path: rel, servers: [conn.id], state: LspDiagnosticsState.LSP_DIAGNOSTICS_STATE_LATE, diagnostics: [], detail: "" };
    const sources = new SourceLines(paths, (uri) => conn.openText(uri));
    return {
      path: rel,
      servers: [conn.id],
      state: LspDiagnosticsState.LSP_DIAGNOSTICS_STATE_FRESH,
      diagnostics: toDiagnostics(sources, doc.uri, items),
      detail: "",
    };
  } catch (err) {
    return { path: rel, servers: [conn.id], state: LspDiagnosticsState.LSP_DIAGNOSTICS_STATE_FAILED, diagnostics: [], detail: (err as Error).message };
  }
}
