// The few Language Server Protocol shapes the supervisor reads and writes (LSP 3.17). Kept local
// rather than pulling vscode-languageserver-protocol, whose vscode-jsonrpc pin differs from ours.
export interface Position {
  line: number;
  /** UTF-16 code units, unless another positionEncoding was negotiated (we offer only utf-16). */
  character: number;
}
export interface Range {
  start: Position;
  end: Position;
}
export interface Location {
  uri: string;
  range: Range;
}
export interface LocationLink {
  targetUri: string;
  targetRange: Range;
  targetSelectionRange: Range;
}
export interface Diagnostic {
  range: Range;
  severity?: 1 | 2 | 3 | 4;
  code?: string | number;
  source?: string;
  message: string;
}
export interface TextEdit {
  range: Range;
  newText: string;
}
export interface TextDocumentEdit {
  textDocument: { uri: string; version: number | null };
  edits: TextEdit[];
}
export interface ResourceOperation {
  kind: "create" | "rename" | "delete";
  uri?: string;
  oldUri?: string;
  newUri?: string;
}
export interface WorkspaceEdit {
  changes?: Record<string, TextEdit[]>;
  documentChanges?: Array<TextDocumentEdit | ResourceOperation>;
}
export interface DocumentSymbol {
  name: string;
  detail?: string;
  kind: number;
  range: Range;
  selectionRange: Range;
  children?: DocumentSymbol[];
}
export interface SymbolInformation {
  name: string;
  kind: number;
  containerName?: string;
  location: Location | { uri: string };
}
export interface Command {
  title: string;
  command: string;
}
export interface CodeAction {
  title: string;
  kind?: string;
  isPreferred?: boolean;
  edit?: WorkspaceEdit;
  command?: Command;
}
export type MarkupContent = { kind: string; value: string };
export type MarkedString = string | { language: string; value: string };
export interface Hover {
  contents: MarkupContent | MarkedString | MarkedString[];
  range?: Range;
}
export interface ServerCapabilities {
  textDocumentSync?: number | { openClose?: boolean; change?: number; save?: boolean | { includeText?: boolean } };
  diagnosticProvider?: unknown;
  renameProvider?: boolean | { prepareProvider?: boolean };
  [key: string]: unknown;
}

export const SYMBOL_KINDS = [
  "", "file", "module", "namespace", "package", "class", "method", "property", "field", "constructor", "enum",
  "interface", "function", "variable", "constant", "string", "number", "boolean", "array", "object", "key",
  "null", "enum member", "struct", "event", "operator", "type parameter",
] as const;

export const SEVERITIES = ["", "error", "warning", "information", "hint"] as const;
