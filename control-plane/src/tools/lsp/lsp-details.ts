// The lsp tools' details: what the text shows, as data. Positions as the text shows them: 1-based
// lines and 1-based columns counted in characters; paths workspace-relative (null outside it).
import { z } from "zod";
import type { LspDiagnostic, LspLocation } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import { workspaceRelative } from "../details-paths.js";

const PATH = "workspace-relative file; null for a file outside the workspace (a library's), whose path is not given";

export const LOCATION_DETAILS = z.object({
  path: z.string().nullable().describe(PATH),
  line: z.number().int().describe("1-based line"),
  column: z.number().int().describe("1-based column, in characters"),
  end_line: z.number().int().describe("1-based line where the range ends"),
  end_column: z.number().int().describe("1-based column where the range ends (exclusive), in characters"),
  line_text: z.string().describe("the text of `line` (cut at 400 characters); empty when the file is outside the workspace or unreadable"),
});
export type LocationDetails = z.infer<typeof LOCATION_DETAILS>;

export const DIAGNOSTIC_DETAILS = z.object({
  path: z.string().nullable().describe(PATH),
  line: z.number().int().describe("1-based line"),
  column: z.number().int().describe("1-based column, in characters"),
  severity: z.string().describe('"error" or "warning" (information and hints are left out, as in the text)'),
  code: z.string().describe("the server's code for it (reportAssignmentType, 2451…), or empty"),
  message: z.string(),
  source: z.string().describe("the tool that reported it, as the server says (Pyright, ts…), or empty"),
  line_text: z.string().describe("the text of `line`, or empty"),
});
export type DiagnosticDetails = z.infer<typeof DIAGNOSTIC_DETAILS>;

export function locationDetails(l: LspLocation): LocationDetails {
  return { path: workspaceRelative(l.path), line: l.line, column: l.column, end_line: l.endLine, end_column: l.endColumn, line_text: l.lineText };
}

export function diagnosticDetails(d: LspDiagnostic): DiagnosticDetails {
  return {
    path: workspaceRelative(d.path),
    line: d.line,
    column: d.column,
    severity: d.severity,
    code: d.code,
    message: d.message,
    source: d.source,
    line_text: d.lineText,
  };
}

/** What every positional action answers beside its own fields: which server, where the symbol resolved. */
export const POSITIONAL_DETAILS = {
  server: z.string().describe("the language server that answered"),
  target: LOCATION_DETAILS.nullable().describe("where the line and symbol resolved to"),
  indexing: z.boolean().describe("the server was still indexing: the answer may be incomplete"),
};

/** The bound of a list: how many the server had, and whether the list was cut to the cap. */
export const LIST_BOUND = {
  total: z.number().int().describe("how many there were before the cap"),
  truncated: z.boolean().describe("the list was cut at the cap (total says how many there were)"),
};
