// code_actions: the quick fixes and refactorings offered at the symbol (listed, not applied).
import { z } from "zod";
import { LIMITS } from "../../../limits.js";
import { at, capNote, caveats, plural } from "../lsp-format.js";
import { LspQueryKind } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import { LIST_BOUND, locationDetails, POSITIONAL_DETAILS } from "../lsp-details.js";
import { workspaceRelative } from "../../details-paths.js";
import { defineAction, lspQuery, POSITION_NEEDS, positionArgs } from "./action.js";

export const CODE_ACTIONS_DETAILS = z.object({
  action: z.literal("code_actions"),
  ...POSITIONAL_DETAILS,
  code_actions: z
    .array(
      z.object({
        title: z.string(),
        kind: z.string().describe("quickfix, refactor.extract…, or empty"),
        preferred: z.boolean(),
        edits: z.array(z.object({ path: z.string().nullable().describe("workspace-relative file; null outside the workspace"), edits: z.number().int() })),
        command: z.string().describe("the command it runs instead of (or after) its edits, or empty"),
        preview: z.array(z.string()).describe('its first few edits, as `path:line:col → "new text"` (1-based)'),
      }),
    )
    .describe(`at most ${LIMITS.lspCodeActionsCap}; listed, not applied`),
  ...LIST_BOUND,
});

export const codeActionsAction = defineAction({
  name: "code_actions",
  args: positionArgs("code_actions"),
  details: CODE_ACTIONS_DETAILS,
  needs: POSITION_NEEDS,
  async run(args, client) {
    const res = await lspQuery(client, LspQueryKind.LSP_QUERY_KIND_CODE_ACTIONS, args);
    const subject = `\`${args.symbol}\` at ${at(res.target)}`;
    const shown = res.actions.slice(0, LIMITS.lspCodeActionsCap);
    const details = {
      action: "code_actions" as const,
      server: res.server,
      target: res.target ? locationDetails(res.target) : null,
      indexing: res.indexing,
      code_actions: shown.map((a) => ({
        title: a.title,
        kind: a.kind,
        preferred: a.preferred,
        edits: a.edits.map((e) => ({ path: workspaceRelative(e.path), edits: e.edits })),
        command: a.command,
        preview: a.preview,
      })),
      total: res.actions.length,
      truncated: res.actions.length > shown.length,
    };
    if (res.actions.length === 0) return { text: `${res.server} offers no code actions for ${subject}.${caveats(res)}`, details };
    const lines = shown.map((a) => {
      const edits = a.edits.map((e) => `${e.path} (${plural(e.edits, "edit")})`).join(", ");
      const head = `  - ${a.title}${a.kind ? ` [${a.kind}]` : ""}${a.preferred ? " (preferred)" : ""}${edits ? ` → ${edits}` : a.command ? ` → runs ${a.command}` : ""}`;
      return [head, ...a.preview.map((p) => `      ${p}`)].join("\n");
    });
    return {
      text: `${plural(res.actions.length, "code action")} for ${subject} (${res.server})${capNote(shown.length, res.actions.length, LIMITS.lspCodeActionsCap)}:\n${lines.join("\n")}\nApply one by making its edit with edit or apply_patch.${caveats(res)}`,
      details,
    };
  },
});
