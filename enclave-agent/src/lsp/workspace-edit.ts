// Applies an LSP WorkspaceEdit to the workspace, all or nothing: every file's new text is computed
// (from the text the server edited against), then all are committed by the workspace writer, so a
// crash of the agent mid-commit cannot leave some files renamed and others not. Edits are UTF-16
// ranges, which index JavaScript strings directly.
import { fileURLToPath } from "node:url";
import { AgentError } from "../errors.js";
import type { WorkspacePaths } from "../fs/workspace-paths.js";
import type { Commit, FileChange, WorkspaceWriter } from "../fs/workspace-writer.js";
import type { Position, TextDocumentEdit, TextEdit, WorkspaceEdit } from "./lsp-types.js";
import { readText } from "./document-sync.js";

export interface FileEdits {
  uri: string;
  edits: TextEdit[];
  version: number | null;
}

export function collectEdits(edit: WorkspaceEdit): FileEdits[] {
  const out = new Map<string, FileEdits>();
  const add = (uri: string, edits: TextEdit[], version: number | null): void => {
    const cur = out.get(uri) ?? { uri, edits: [], version };
    cur.edits.push(...edits);
    out.set(uri, cur);
  };
  for (const dc of edit.documentChanges ?? []) {
    if ("kind" in dc) {
      throw new AgentError(
        "failed_precondition",
        `the server's edit also wants to ${dc.kind} a file (${dc.kind === "rename" ? dc.newUri : dc.uri}); such renames are not applied, nothing was changed`,
      );
    }
    const tde = dc as TextDocumentEdit;
    add(tde.textDocument.uri, tde.edits, tde.textDocument.version);
  }
  if (!edit.documentChanges) for (const [uri, edits] of Object.entries(edit.changes ?? {})) add(uri, edits, null);
  return [...out.values()];
}

export function editCounts(edit: WorkspaceEdit): Array<{ uri: string; edits: number }> {
  try {
    return collectEdits(edit).map((f) => ({ uri: f.uri, edits: f.edits.length }));
  } catch {
    return [];
  }
}

function offsetOf(text: string, lineStarts: number[], pos: Position): number {
  const start = lineStarts[pos.line];
  if (start === undefined) return text.length;
  const nextStart = lineStarts[pos.line + 1] ?? text.length;
  return Math.min(start + pos.character, nextStart);
}

export function applyTextEdits(text: string, edits: TextEdit[]): string {
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) lineStarts.push(i + 1);
  }
  const spans = edits
    .map((e) => ({ from: offsetOf(text, lineStarts, e.range.start), to: offsetOf(text, lineStarts, e.range.end), text: e.newText }))
    .sort((a, b) => b.from - a.from || b.to - a.to);
  let out = text;
  let floor = Infinity;
  for (const s of spans) {
    if (s.to > floor) throw new AgentError("failed_precondition", "the server's edits overlap; nothing was changed");
    out = out.slice(0, s.from) + s.text + out.slice(s.to);
    floor = s.from;
  }
  return out;
}

export interface AppliedFile {
  abs: string;
  rel: string;
  uri: string;
  edits: number;
  text: string;
}

/**
 * Computes and commits every file's new text. `baseText` gives the text the server edited (its open
 * copy); a file the server did not have open is read from disk.
 */
export function applyWorkspaceEdit(writer: WorkspaceWriter, edit: WorkspaceEdit, baseText: (uri: string) => string | undefined): Promise<AppliedFile[]> {
  return writer.change((commit) => commitWorkspaceEdit(writer.paths, commit, edit, baseText));
}

async function commitWorkspaceEdit(
  paths: WorkspacePaths,
  commit: Commit,
  edit: WorkspaceEdit,
  baseText: (uri: string) => string | undefined,
): Promise<AppliedFile[]> {
  const files = collectEdits(edit);
  const applied: AppliedFile[] = [];
  for (const f of files) {
    let abs: string;
    try {
      abs = fileURLToPath(f.uri);
    } catch {
      throw new AgentError("failed_precondition", `the server's edit names ${f.uri}, which is not a file; nothing was changed`);
    }
    const { abs: real, rel } = paths.resolve(abs, "write");
    const base = baseText(f.uri) ?? (await readText(paths, rel));
    applied.push({ abs: real, rel, uri: f.uri, edits: f.edits.length, text: applyTextEdits(base, f.edits) });
  }
  const changes: FileChange[] = applied.map((a) => ({ path: a.rel, rel: a.rel, content: Buffer.from(a.text, "utf8") }));
  await commit(changes);
  return applied;
}
