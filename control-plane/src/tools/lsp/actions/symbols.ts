// symbols: with `query`, a workspace-wide search (cap 100); with `file`, that file's outline (cap 200).
import { LIMITS } from "../../../limits.js";
import { at, capNote, caveats, plural } from "../lsp-format.js";
import { z } from "zod";
import { LspQueryKind } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import { LIST_BOUND, LOCATION_DETAILS, locationDetails } from "../lsp-details.js";
import { defineAction, fileField, lspQuery } from "./action.js";

export const SYMBOLS_DETAILS = z.object({
  action: z.literal("symbols"),
  server: z.string(),
  query: z.string().nullable().describe("the workspace search text; null for a file's outline"),
  file: z.string().nullable().describe("the file outlined (or whose server searched)"),
  symbols: z
    .array(
      z.object({
        name: z.string(),
        kind: z.string().describe("function, class, variable…"),
        container: z.string().describe("what it is declared in (workspace search), or empty"),
        detail: z.string().describe("its signature or type as the server gives it (outline), or empty"),
        depth: z.number().int().describe("nesting in the outline, 0 at top level"),
        location: LOCATION_DETAILS.nullable(),
      }),
    )
    .describe(`at most ${LIMITS.lspWorkspaceSymbolsCap} for a search, ${LIMITS.lspDocumentSymbolsCap} for an outline`),
  ...LIST_BOUND,
  indexing: z.boolean(),
});

export const symbolsAction = defineAction({
  name: "symbols",
  // query or file (or both): the refinement enforces it, the anyOf shows it in the schema.
  args: z
    .strictObject({
      action: z.literal("symbols"),
      query: z.string().min(1).optional().describe("workspace search text; with file, searched by that file's server"),
      file: fileField("symbols").optional().describe("workspace-relative file: its outline (or, with query, the server to search)"),
    })
    .refine((a) => a.query !== undefined || a.file !== undefined, {
      message: "lsp symbols needs `query` or `file`: a workspace search, or a file to outline",
      path: ["query"],
    })
    .meta({ anyOf: [{ required: ["query"] }, { required: ["file"] }] }),
  details: SYMBOLS_DETAILS,
  needs: {},
  async run(args, client) {
    const workspace = Boolean(args.query);
    const cap = workspace ? LIMITS.lspWorkspaceSymbolsCap : LIMITS.lspDocumentSymbolsCap;
    const res = await lspQuery(client, workspace ? LspQueryKind.LSP_QUERY_KIND_WORKSPACE_SYMBOLS : LspQueryKind.LSP_QUERY_KIND_DOCUMENT_SYMBOLS, args, cap);
    const what = workspace ? `matching \`${args.query}\`` : `in \`${args.file}\``;
    const details = {
      action: "symbols" as const,
      server: res.server,
      query: workspace ? (args.query ?? null) : null,
      file: args.file ?? null,
      symbols: res.symbols.map((s) => ({
        name: s.name,
        kind: s.kind,
        container: s.container,
        detail: s.detail,
        depth: s.depth,
        location: s.location ? locationDetails(s.location) : null,
      })),
      total: Math.max(res.total, res.symbols.length),
      truncated: res.total > res.symbols.length,
      indexing: res.indexing,
    };
    if (res.symbols.length === 0) return { text: `No symbols ${what} (${res.server}).${caveats(res)}`, details };
    const lines = res.symbols.map((s) =>
      workspace
        ? `  ${s.kind} ${s.name}${s.container ? ` (in ${s.container})` : ""}  ${s.location && s.location.line > 0 ? at(s.location) : (s.location?.path ?? "")}`
        : `  ${"  ".repeat(s.depth)}${s.kind} ${s.name}${s.detail ? ` ${s.detail}` : ""}  :${s.location?.line ?? "?"}`,
    );
    return {
      text: `${plural(res.total, "symbol")} ${what} (${res.server})${capNote(res.symbols.length, res.total, cap)}:\n${lines.join("\n")}${caveats(res)}`,
      details,
    };
  },
});
