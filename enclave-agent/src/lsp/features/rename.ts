// lsp_rename: asks the server for the rename's workspace edit and applies it to every file at once
// (through the workspace writer: any failure, a crash included, changes nothing). Afterwards every running server sees the
// new text: open documents get didChange + didSave, the others a watched-file change. When asked,
// the edited files' diagnostics just before the edit come back too, so the caller can report only
// what the rename introduced.
import { fileURLToPath } from "node:url";
import type { LspFileDiagnostics, LspRenameResponse } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import { AgentError } from "../../errors.js";
import type { WorkspacePaths } from "../../fs/workspace-paths.js";
import type { WorkspaceWriter } from "../../fs/workspace-writer.js";
import { type Synced, syncText } from "../document-sync.js";
import { fileDiagnostics } from "../file-diagnostics.js";
import { LIMITS } from "../../limits.js";
import type { Position, Range, WorkspaceEdit } from "../lsp-types.js";
import type { ServerConnection } from "../server-connection.js";
import type { SourceLines } from "../source-lines.js";
import type { LspSupervisor } from "../supervisor.js";
import { applyWorkspaceEdit, collectEdits } from "../workspace-edit.js";
import { addMissedDeclarations, identifierAt } from "./rename-declarations.js";

export interface RenameInput {
  paths: WorkspacePaths;
  /** Commits the edit: every file or none. */
  writer: WorkspaceWriter;
  sup: LspSupervisor;
  conn: ServerConnection;
  abs: string;
  rel: string;
  doc: Synced;
  position: Position;
  newName: string;
  timeoutMs: number;
  sources: SourceLines;
  /** How long to wait for the edited files' diagnostics before the edit; 0 skips them. */
  baselineWaitMs: number;
}

/**
 * Refuses a rename the server's view of the project cannot make whole: clangd without a compilation
 * database sees only its open files, and one still indexing has not seen every use yet.
 */
function checkProjectWide(input: RenameInput): void {
  const { conn, sup } = input;
  if (!conn.spec.compilationDatabase) return;
  const db = sup.databaseOf(conn);
  if (db?.kind === "open_files") throw new AgentError("failed_precondition", `${db.refusal}; nothing was changed`);
  if (conn.indexing) {
    throw new AgentError(
      "failed_precondition",
      `${conn.id} is still indexing the project, so a rename now would miss the uses it has not indexed yet; call lsp_rename again shortly (lsp status shows when it is done); nothing was changed`,
    );
  }
}

export async function renameSymbol(input: RenameInput): Promise<LspRenameResponse> {
  const { conn, doc, position, newName, paths, sup } = input;
  if (!newName.trim()) throw new AgentError("invalid_argument", "new_name is empty");
  const provider = conn.capabilities.renameProvider;
  if (!provider) throw new AgentError("failed_precondition", `the ${conn.id} language server does not support rename`);
  checkProjectWide(input);
  const where = { textDocument: { uri: doc.uri }, position };
  if (typeof provider === "object" && provider.prepareProvider) {
    const prepared = await conn.request<Range | { range: Range } | { defaultBehavior: boolean } | null>("textDocument/prepareRename", where, input.timeoutMs);
    if (!prepared) {
      throw new AgentError(
        "failed_precondition",
        `the ${conn.id} language server says the symbol at line ${position.line + 1} of \`${input.rel}\` cannot be renamed (a keyword, a literal, or a library's name?)`,
      );
    }
  }
  const edit = await conn.request<WorkspaceEdit | null>("textDocument/rename", { ...where, newName }, input.timeoutMs);
  if (!edit || collectEdits(edit).every((f) => f.edits.length === 0)) {
    throw new AgentError(
      "failed_precondition",
      `the ${conn.id} language server found nothing to rename at line ${position.line + 1} of \`${input.rel}\`; nothing was changed`,
    );
  }
  // Only for servers that parse a header on its own when it is open (clangd): where the others leave a
  // declaration out, it is theirs to keep (a library's, an import alias's original).
  if (conn.spec.compilationDatabase) {
    const oldName = identifierAt(doc.text, position);
    await addMissedDeclarations({ conn, paths, uri: doc.uri, position, oldName, newName, edit, timeoutMs: input.timeoutMs });
  }
  const files = collectEdits(edit);
  const raced = (uri: string): never => {
    throw new AgentError(
      "failed_precondition",
      `\`${input.sources.relativePath(uri)}\` changed while the rename was computed; nothing was changed, call lsp_rename again`,
    );
  };
  const versions = new Map<string, number | undefined>();
  for (const f of files) {
    // documentChanges carry the version the server edited; another means it raced a write.
    const current = conn.versionOf(f.uri);
    if (f.version !== null && current !== undefined && current !== f.version) raced(f.uri);
    versions.set(f.uri, current);
  }
  let before: LspFileDiagnostics[] = [];
  if (input.baselineWaitMs > 0) {
    const deadline = Date.now() + Math.min(input.baselineWaitMs, LIMITS.lspStartTimeoutMs);
    before = await Promise.all(files.map((f) => fileDiagnostics(paths, sup, fileURLToPath(f.uri), deadline)));
    // Syncing from disk bumps an open document's version only when the file changed behind us.
    for (const f of files) if (versions.get(f.uri) !== undefined && conn.versionOf(f.uri) !== versions.get(f.uri)) raced(f.uri);
  }
  const target = input.sources.location(doc.uri, { start: position, end: position });
  const applied = await applyWorkspaceEdit(input.writer, edit, (uri) => conn.openText(uri));
  for (const a of applied) {
    const running = sup.runningFor(a.abs);
    for (const c of running) {
      if (c.isOpen(a.uri)) syncText(paths, c, a.abs, sup.languageIdFor(a.abs), a.text, true);
      else c.notify("workspace/didChangeWatchedFiles", { changes: [{ uri: a.uri, type: 2 }] });
    }
  }
  return {
    server: conn.id,
    target,
    files: applied.map((a) => ({ path: a.rel, edits: a.edits })),
    indexing: conn.indexing,
    before,
  };
}
