// symbols: with `query`, a workspace-wide search (cap 100); with `file`, that file's outline (cap 200).
import { LIMITS } from "../../../limits.js";
import { at, capNote, caveats, plural } from "../lsp-format.js";
import { z } from "zod";
import { LspQueryKind } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import { defineAction, fileField, lspQuery } from "./action.js";

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
  needs: {},
  async run(args, client) {
    const workspace = Boolean(args.query);
    const cap = workspace ? LIMITS.lspWorkspaceSymbolsCap : LIMITS.lspDocumentSymbolsCap;
    const res = await lspQuery(client, workspace ? LspQueryKind.LSP_QUERY_KIND_WORKSPACE_SYMBOLS : LspQueryKind.LSP_QUERY_KIND_DOCUMENT_SYMBOLS, args, cap);
    const what = workspace ? `matching \`${args.query}\`` : `in \`${args.file}\``;
    if (res.symbols.length === 0) return `No symbols ${what} (${res.server}).${caveats(res)}`;
    const lines = res.symbols.map((s) =>
      workspace
        ? `  ${s.kind} ${s.name}${s.container ? ` (in ${s.container})` : ""}  ${s.location && s.location.line > 0 ? at(s.location) : (s.location?.path ?? "")}`
        : `  ${"  ".repeat(s.depth)}${s.kind} ${s.name}${s.detail ? ` ${s.detail}` : ""}  :${s.location?.line ?? "?"}`,
    );
    return `${plural(res.total, "symbol")} ${what} (${res.server})${capNote(res.symbols.length, res.total, cap)}:\n${lines.join("\n")}${caveats(res)}`;
  },
});
