// lsp (tier read): language-server queries. Positions are a 1-based line plus a symbol substring of
// that line (`name#2` for its second occurrence), never a column. Each action is its own file, with
// its own schema branch: which fields an action needs is said once, in the schema the model sees.
import { z } from "zod";
import { LIMITS } from "../../limits.js";
import { defineTool } from "../tool.js";
import type { LspAction } from "./actions/action.js";
import type { DiagnosticsLedger } from "./diagnostics-ledger.js";
import { CODE_ACTIONS_DETAILS, codeActionsAction } from "./actions/code-actions.js";
import { definitionAction } from "./actions/definition.js";
import { DIAGNOSTICS_DETAILS, diagnosticsAction } from "./actions/diagnostics.js";
import { HOVER_DETAILS, hoverAction } from "./actions/hover.js";
import { LOCATIONS_DETAILS } from "./actions/locations-action.js";
import { implementationAction } from "./actions/implementation.js";
import { referencesAction } from "./actions/references.js";
import { RELOAD_DETAILS, reloadAction } from "./actions/reload.js";
import { STATUS_DETAILS, statusAction } from "./actions/status.js";
import { SYMBOLS_DETAILS, symbolsAction } from "./actions/symbols.js";
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
const BY_NAME = new Map(ACTIONS.map((a) => [a.name, a]));
const SCHEMAS = ACTIONS.map((a) => a.args) as unknown as [z.ZodObject, z.ZodObject, ...z.ZodObject[]];

/** The schema of the lsp tool: one branch per action, each with the fields that action needs. */
export const LSP_ARGS = z.discriminatedUnion("action", SCHEMAS);

/** The lsp tool's details: one branch per kind of answer, discriminated by `action` like its arguments. */
export const LSP_DETAILS = z.discriminatedUnion("action", [
  DIAGNOSTICS_DETAILS,
  LOCATIONS_DETAILS,
  HOVER_DETAILS,
  SYMBOLS_DETAILS,
  CODE_ACTIONS_DETAILS,
  STATUS_DETAILS,
  RELOAD_DETAILS,
]);
export type LspDetails = z.infer<typeof LSP_DETAILS>;

/** "lsp hover needs `symbol`: …" for a required field a call left out. */
export function lspMissingFieldHint(field: string, raw: unknown): string | undefined {
  const name = typeof raw === "object" && raw !== null ? (raw as { action?: unknown }).action : undefined;
  const why = typeof name === "string" ? BY_NAME.get(name)?.needs[field] : undefined;
  return why ? `lsp ${name as string} needs \`${field}\`: ${why}` : undefined;
}

export function lspTool(ledger: DiagnosticsLedger) {
  return defineTool({
    name: "lsp",
    tier: "read",
    resource: "lsp",
    description:
      "Ask the project's language server. Actions: diagnostics (file, or \"*\" for the project's own checker), definition, type_definition, " +
      `implementation, references (cap ${LIMITS.lspReferencesCap}), hover, code_actions — each with file, line (1-based) and symbol (the name as written on that line, ` +
      "`name#2` for its 2nd occurrence); symbols (query alone: a workspace search across every server that can start here; query with file: that file's server only; file alone: its outline); status (which servers run or why not); reload.",
    args: LSP_ARGS,
    details: LSP_DETAILS,
    missingFieldHint: lspMissingFieldHint,
    async run(args, ctx) {
      // Only reached with arguments the schema accepted, so the action is one of ACTIONS.
      const action = BY_NAME.get(String(args.action)) as LspAction;
      const { client } = await ctx.agent();
      const answer = await action.run(args, client, { run: ctx.run, ledger });
      return { parts: [{ type: "text", text: answer.text }], details: answer.details as LspDetails };
    },
  });
}
