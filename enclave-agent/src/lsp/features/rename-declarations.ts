// A rename's edit completed with the symbol's own declaration and definition. clangd takes a file's
// uses from that file's own parse when the file is open in it, and a header that compiles only after
// what its includers put first (a config.h's macros before `void werror(...) PRINTF_STYLE(1, 2);`)
// parses alone without the declaration: the rename then leaves the header out, and a rename followed
// by its inverse does not restore it. The file the rename was asked from sees the symbol in its real
// context: where its declaration or definition is spelled with the old name and the edit does not
// touch it, an edit is added there.
import { fileURLToPath } from "node:url";
import type { WorkspacePaths } from "../../fs/workspace-paths.js";
import { readText } from "../document-sync.js";
import type { Location, LocationLink, Position, Range, TextDocumentEdit, TextEdit, WorkspaceEdit } from "../lsp-types.js";
import type { ServerConnection } from "../server-connection.js";

type LocationAnswer = Location | Location[] | LocationLink[] | null;

const IDENTIFIER_CHAR = /[\p{L}\p{N}_$]/u;

/** The identifier spelled at `pos` in `text` (UTF-16 columns), or "" when none is. */
export function identifierAt(text: string, pos: Position): string {
  const line = text.split(/\r\n|\r|\n/)[pos.line] ?? "";
  let from = Math.min(pos.character, line.length);
  let to = from;
  while (from > 0 && IDENTIFIER_CHAR.test(line[from - 1] as string)) from--;
  while (to < line.length && IDENTIFIER_CHAR.test(line[to] as string)) to++;
  return line.slice(from, to);
}

function textIn(text: string, range: Range): string | undefined {
  if (range.start.line !== range.end.line) return undefined;
  const line = text.split(/\r\n|\r|\n/)[range.start.line];
  return line?.slice(range.start.character, range.end.character);
}

function overlaps(a: Range, b: Range): boolean {
  const before = (p: Position, q: Position): boolean => p.line < q.line || (p.line === q.line && p.character <= q.character);
  return !(before(a.end, b.start) || before(b.end, a.start));
}

function editsOf(edit: WorkspaceEdit, uri: string): TextEdit[] {
  if (edit.documentChanges) {
    return edit.documentChanges.flatMap((dc) => ("textDocument" in dc && dc.textDocument.uri === uri ? (dc as TextDocumentEdit).edits : []));
  }
  return edit.changes?.[uri] ?? [];
}

function addEdit(edit: WorkspaceEdit, uri: string, added: TextEdit): void {
  if (edit.documentChanges) {
    const doc = edit.documentChanges.find((dc): dc is TextDocumentEdit => "textDocument" in dc && dc.textDocument.uri === uri);
    if (doc) doc.edits.push(added);
    else edit.documentChanges.push({ textDocument: { uri, version: null }, edits: [added] });
    return;
  }
  edit.changes ??= {};
  (edit.changes[uri] ??= []).push(added);
}

async function locations(conn: ServerConnection, method: string, capability: string, params: object, timeoutMs: number): Promise<Location[]> {
  if (!conn.supports(method, capability)) return [];
  const answer = await conn.request<LocationAnswer>(method, params, timeoutMs).catch(() => null);
  if (!answer) return [];
  const list = Array.isArray(answer) ? answer : [answer];
  return list.map((l) => ("targetUri" in l ? { uri: l.targetUri, range: l.targetSelectionRange ?? l.targetRange } : l));
}

/**
 * Adds to `edit` (in place) an edit at each declaration and definition of the symbol at `position`
 * that is spelled `oldName`, lies in the workspace and is not edited yet. Returns how many it added.
 */
export async function addMissedDeclarations(input: {
  conn: ServerConnection;
  paths: WorkspacePaths;
  uri: string;
  position: Position;
  oldName: string;
  newName: string;
  edit: WorkspaceEdit;
  timeoutMs: number;
}): Promise<number> {
  const { conn, paths, edit, oldName } = input;
  if (!oldName) return 0;
  const params = { textDocument: { uri: input.uri }, position: input.position };
  const found = [
    ...(await locations(conn, "textDocument/declaration", "declarationProvider", params, input.timeoutMs)),
    ...(await locations(conn, "textDocument/definition", "definitionProvider", params, input.timeoutMs)),
  ];
  let added = 0;
  for (const loc of found) {
    if (!loc.uri.startsWith("file:")) continue;
    let rel: string;
    try {
      ({ rel } = paths.resolve(fileURLToPath(loc.uri), "write"));
    } catch {
      continue; // outside the workspace (a system header): not the rename's to change
    }
    if (editsOf(edit, loc.uri).some((e) => overlaps(e.range, loc.range))) continue;
    const text = conn.openText(loc.uri) ?? (await readText(paths, rel).catch(() => undefined));
    if (text === undefined || textIn(text, loc.range) !== oldName) continue;
    addEdit(edit, loc.uri, { range: loc.range, newText: input.newName });
    added++;
  }
  return added;
}
