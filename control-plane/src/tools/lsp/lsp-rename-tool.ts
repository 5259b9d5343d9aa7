// lsp_rename (tier write): a project-wide rename through the language server, applied to every file
// at once or to none. A separate tool from lsp so that its tier keeps it from read-only surfaces. Like
// a write, it reports the diagnostics it introduced: the edited files' diagnostics from just before
// the edit seed the run's ledger, and the ones after are compared with them.
import { z } from "zod";
import { LIMITS } from "../../limits.js";
import { defineTool } from "../tool.js";
import { workspaceRelative } from "../details-paths.js";
import type { DiagnosticsLedger } from "./diagnostics-ledger.js";
import { checkAfter, diagnosticsWaitMs, seedLedger, writeDiagnosticsDetails } from "./diagnostics-on-write.js";
import { at, plural } from "./lsp-format.js";
import { LOCATION_DETAILS, locationDetails } from "./lsp-details.js";

/** lsp_rename's details: the edits it applied (it stages nothing: every file is changed, or none). */
export const LSP_RENAME_DETAILS = z.object({
  server: z.string().describe("the language server that renamed"),
  target: LOCATION_DETAILS.nullable().describe("where the line and symbol resolved to"),
  old_name: z.string().describe("the symbol as asked (`name#N` as given)"),
  new_name: z.string(),
  files: z
    .array(z.object({ path: z.string().nullable().describe("workspace-relative file"), edits: z.number().int() }))
    .describe("every file changed, in the server's order"),
  files_changed: z.number().int(),
  edits: z.number().int().describe("edits across all files"),
  indexing: z.boolean().describe("the server was still indexing: files it had not indexed may still use the old name"),
  diagnostics: writeDiagnosticsDetails.describe("what the language servers found in the renamed files: the diagnostics the rename introduced, as a write's"),
});

export function lspRenameTool(ledger: DiagnosticsLedger) {
  return defineTool({
    name: "lsp_rename",
    tier: "write",
    resource: "lsp",
    description:
      "Rename a symbol across the project through its language server: `file`, `line` (1-based), `symbol` (its name as written on that line, " +
      "`name#2` for the 2nd occurrence) and `new_name` (an identifier of the file's language). Every file is changed, or none; " +
      "the diagnostics the rename introduced are reported.",
    parallelSafe: false,
    args: z.strictObject({
      file: z.string().min(1).describe("workspace-relative file"),
      line: z.number().int().min(1).describe("1-based line of the symbol"),
      symbol: z.string().min(1).describe("the symbol as written on that line; `name#N` for its Nth occurrence"),
      new_name: z.string().min(1).describe("the new name: an identifier of the file's language"),
    }),
    details: LSP_RENAME_DETAILS,
    async run(args, ctx) {
      const { client } = await ctx.agent();
      const waitMs = diagnosticsWaitMs();
      const res = await client.lspRename(
        { file: args.file, line: args.line, symbol: args.symbol, newName: args.new_name, timeoutMs: LIMITS.lspCallTimeoutMs, diagnosticsWaitMs: waitMs },
        LIMITS.lspCallTimeoutMs + waitMs,
      );
      const edits = res.files.reduce((n, f) => n + f.edits, 0);
      const lines = res.files.map((f) => `  ${f.path} (${plural(f.edits, "edit")})`);
      const note = res.indexing
        ? `\n(${res.server} was still indexing: files it had not indexed yet may still use the old name; check with lsp references)`
        : "";
      const head = `Renamed \`${args.symbol}\` (${at(res.target)}) to \`${args.new_name}\`: ${plural(edits, "edit")} in ${plural(res.files.length, "file")} (${res.server}):\n${lines.join("\n")}${note}`;
      const unknownBefore = seedLedger(res.before, ledger, ctx);
      const { note: found, diagnostics } = await checkAfter(
        res.files.map((f) => f.path),
        ctx,
        ledger,
        unknownBefore,
      );
      const details = {
        server: res.server,
        target: res.target ? locationDetails(res.target) : null,
        old_name: args.symbol,
        new_name: args.new_name,
        files: res.files.map((f) => ({ path: workspaceRelative(f.path), edits: f.edits })),
        files_changed: res.files.length,
        edits,
        indexing: res.indexing,
        diagnostics,
      };
      return { parts: [{ type: "text", text: found ? `${head}\n${found}` : head }], details };
    },
  });
}
