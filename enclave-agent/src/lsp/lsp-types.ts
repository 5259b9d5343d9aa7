// The Language Server Protocol shapes the agent reads and writes (LSP 3.17), from the protocol's own
// type package (types only, no transport). A server's capabilities stay a loose local shape: the
// agent reads three of them and must not reject a server that answers more or other.
import type { CreateFile, DeleteFile, RenameFile, SymbolInformation as ListedSymbol, WorkspaceSymbol } from "vscode-languageserver-types";

export type {
  CodeAction,
  Command,
  Diagnostic,
  DocumentSymbol,
  Hover,
  Location,
  LocationLink,
  MarkedString,
  MarkupContent,
  Position,
  Range,
  TextDocumentEdit,
  TextEdit,
  WorkspaceEdit,
} from "vscode-languageserver-types";

/** A file operation in a workspace edit. */
export type ResourceOperation = CreateFile | RenameFile | DeleteFile;
/** What workspace/symbol answers: the older SymbolInformation or the 3.17 WorkspaceSymbol (whose location may lack a range). */
export type SymbolInformation = ListedSymbol | WorkspaceSymbol;

export interface ServerCapabilities {
  textDocumentSync?: number | { openClose?: boolean; change?: number; save?: boolean | { includeText?: boolean } };
  diagnosticProvider?: unknown;
  renameProvider?: boolean | { prepareProvider?: boolean };
  [key: string]: unknown;
}

export const SYMBOL_KINDS = [
  "",
  "file",
  "module",
  "namespace",
  "package",
  "class",
  "method",
  "property",
  "field",
  "constructor",
  "enum",
  "interface",
  "function",
  "variable",
  "constant",
  "string",
  "number",
  "boolean",
  "array",
  "object",
  "key",
  "null",
  "enum member",
  "struct",
  "event",
  "operator",
  "type parameter",
] as const;

export const SEVERITIES = ["", "error", "warning", "information", "hint"] as const;
