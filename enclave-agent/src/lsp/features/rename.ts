// lsp_rename: asks the server for the rename's workspace edit and applies it to every file at once
// (staged, then committed; any failure changes nothing). Afterwards every running server sees the
// new text: open documents get didChange + didSave, the others a watched-file change.
import type { LspRenameResponse } from "../../../../proto/gen/enclave/agent/v1/lsp.js";
import { AgentError } from "../../errors.js";
import type { WorkspacePaths } from "../../fs/workspace-paths.js";
import { type Synced, syncText } from "../document-sync.js";
import type { Position, Range, WorkspaceEdit } from "../lsp-types.js";
import type { ServerConnection } from "../server-connection.js";
import type { SourceLines } from "../source-lines.js";
import type { LspSupervisor } from "../supervisor.js";
import { applyWorkspaceEdit, collectEdits } from "../workspace-edit.js";

export interface RenameInput {
  paths: WorkspacePaths;
  sup: LspSupervisor;
  conn: ServerConnection;
  abs: string;
  rel: string;
  doc: Synced;
  position: Position;
  newName: string;
  timeoutMs: number;
  sources: SourceLines;
}

export async function renameSymbol(input: RenameInput): Promise<LspRenameResponse> {
  const { conn, doc, position, newName, paths, sup } = input;
  if (!newName.trim()) throw new AgentError("invalid_argument", "new_name is empty");
  const provider = conn.capabilities.renameProvider;
  if (!provider) throw new AgentError("failed_precondition", `the ${conn.id} language server does not support rename`);
  const where = { textDocument: { uri: doc.uri }, position };
  if (typeof provider === "object" && provider.prepareProvider) {
    const prepared = await conn.request<Range | { range: Range } | { defaultBehavior: boolean } | null>("textDocument/prepareRename", where, input.timeoutMs);
    if (!prepared) {
      throw new AgentError("failed_precondition", `the ${conn.id} language server says the symbol at line ${position.line + 1} of \`${input.rel}\` cannot be renamed (a keyword, a literal, or a library's name?)`);
    }
  }
  const edit = await conn.request<WorkspaceEdit | null>("textDocument/rename", { ...where, newName }, input.timeoutMs);
  const files = edit ? collectEdits(edit) : [];
  if (!edit || files.length === 0 || files.every((f) => f.edits.length === 0)) {
    throw new AgentError("failed_precondition", `the ${conn.id} language server found nothing to rename at line ${position.line + 1} of \`${input.rel}\`; nothing was changed`);
  }
  for (const f of files) {
    // documentChanges carry the version the server edited; another means it raced a write.
    const current = conn.versionOf(f.uri);
    if (f.version !== null && current !== undefined && current !== f.version) {
      throw new AgentError("failed_precondition", `\`${input.sources.relativePath(f.uri)}\` changed while the rename was computed; nothing was changed, call lsp_rename again`);
    }
  }
  const target = input.sources.location(doc.uri, { start: position, end: position });
  const applied = await applyWorkspaceEdit(paths, edit, (uri) => conn.openText(uri));
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
  };
}
