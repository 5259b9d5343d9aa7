// code_actions: the quick fixes and refactorings offered at the symbol (listed, not applied).
import { LIMITS } from "../../../limits.js";
import { at, capNote, caveats, plural } from "../lsp-format.js";
import { LspQueryKind } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import { defineAction, lspQuery, POSITION_NEEDS, positionArgs } from "./action.js";

export const codeActionsAction = defineAction({
  name: "code_actions",
  args: positionArgs("code_actions"),
  needs: POSITION_NEEDS,
  async run(args, client) {
    const res = await lspQuery(client, LspQueryKind.LSP_QUERY_KIND_CODE_ACTIONS, args);
    const subject = `\`${args.symbol}\` at ${at(res.target)}`;
    if (res.actions.length === 0) return `${res.server} offers no code actions for ${subject}.${caveats(res)}`;
    const shown = res.actions.slice(0, LIMITS.lspCodeActionsCap);
    const lines = shown.map((a) => {
      const edits = a.edits.map((e) => `${e.path} (${plural(e.edits, "edit")})`).join(", ");
      const head = `  - ${a.title}${a.kind ? ` [${a.kind}]` : ""}${a.preferred ? " (preferred)" : ""}${edits ? ` → ${edits}` : a.command ? ` → runs ${a.command}` : ""}`;
      return [head, ...a.preview.map((p) => `      ${p}`)].join("\n");
    });
    return `${plural(res.actions.length, "code action")} for ${subject} (${res.server})${capNote(shown.length, res.actions.length, LIMITS.lspCodeActionsCap)}:\n${lines.join("\n")}\nApply one by making its edit with edit or apply_patch.${caveats(res)}`;
  },
});
