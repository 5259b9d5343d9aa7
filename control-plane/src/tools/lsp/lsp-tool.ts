// lsp (tier read): language-server queries. Positions are a 1-based line plus a symbol substring of
// that line (`name#2` for its second occurrence), never a column. Each action is its own file.
import { z } from "zod";
import { EnclaveError } from "../../errors.js";
import { defineTool, text } from "../tool.js";
import type { LspAction } from "./actions/action.js";
import type { DiagnosticsLedger } from "./diagnostics-ledger.js";
import { codeActionsAction } from "./actions/code-actions.js";
import { definitionAction } from "./actions/definition.js";
import { diagnosticsAction } from "./actions/diagnostics.js";
import { hoverAction } from "./actions/hover.js";
import { implementationAction } from "./actions/implementation.js";
import { referencesAction } from "./actions/references.js";
import { reloadAction } from "./actions/reload.js";
import { statusAction } from "./actions/status.js";
import { symbolsAction } from "./actions/symbols.js";
import { typeDefinitionAction } from "./actions/type-definition.js";

const ACTIONS: readonly LspAction[] = [
  diagnosticsAction,
  definitionAction,
  typeDefinitionAction,
  implementationAction,
  referencesAction,
  hoverAction,
  symbolsAction,
  codeActionsAction,
  statusAction,
  reloadAction,
];
const NAMES = ACTIONS.map((a) => a.name) as [string, ...string[]];

function check(action: LspAction, args: { file?: string; line?: number; symbol?: string; query?: string }): void {
  const need = (what: string, why: string): never => {
    throw new EnclaveError("invalid_arguments", `lsp ${action.name} needs \`${what}\`: ${why}`);
  };
  if (action.needs === "position") {
    if (!args.file) need("file", "the workspace-relative file the symbol is in");
    if (!args.line) need("line", "the 1-based line the symbol is on");
    if (!args.symbol) need("symbol", "the symbol's name as written on that line (`name#2` for its second occurrence); columns are never guessed");
  }
  if (action.needs === "file" && !args.file) need("file", 'a workspace-relative file, or "*" for the project\'s own checker');
  if (action.needs === "symbols" && !args.file && !args.query) need("query` or `file", "a workspace search, or a file to outline");
  if (args.file === "*" && action.name !== "diagnostics") throw new EnclaveError("invalid_arguments", `"*" is only for diagnostics; give a file to ${action.name}`);
}

export function lspTool(ledger: DiagnosticsLedger) {
  return defineTool({
  name: "lsp",
  tier: "read",
  resource: "lsp",
  description:
    "Ask the project's language server. Actions: diagnostics (file, or \"*\" for the project's own checker), definition, type_definition, " +
    "implementation, references (cap 50), hover, code_actions — each with file, line (1-based) and symbol (the name as written on that line, " +
    "`name#2` for its 2nd occurrence); symbols (query alone: a workspace search across every server that can start here; query with file: that file's server only; file alone: its outline); status (which servers run or why not); reload.",
  args: z.strictObject({
    action: z.enum(NAMES).describe("what to ask"),
    file: z.string().min(1).optional().describe("workspace-relative file; \"*\" with diagnostics runs the project's checker"),
    line: z.number().int().min(1).optional().describe("1-based line of the symbol"),
    symbol: z.string().min(1).optional().describe("the symbol as written on that line; `name#N` for its Nth occurrence"),
    query: z.string().min(1).optional().describe("symbols: workspace search text (alone: every server whose root marker and binary are present is started and searched)"),
  }),
  async run(args, ctx) {
    const action = ACTIONS.find((a) => a.name === args.action) as LspAction;
    check(action, args);
    const { client } = await ctx.agent();
    return text(await action.run(args, client, { run: ctx.run, ledger }));
  },
  });
}
