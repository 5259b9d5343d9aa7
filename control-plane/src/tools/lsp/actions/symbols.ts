// symbols: with `query`, a workspace-wide search (cap 100); with `file`, that file's outline (cap 200).
import { LIMITS } from "../../../limits.js";
import { at, capNote, caveats, plural } from "../lsp-format.js";
import { type LspAction, lspQuery } from "./action.js";

export const symbolsAction: LspAction = {
  name: "symbols",
  needs: "symbols",
  async run(args, client) {
    const workspace = Boolean(args.query);
    const cap = workspace ? LIMITS.lspWorkspaceSymbolsCap : LIMITS.lspDocumentSymbolsCap;
    const res = await lspQuery(client, "symbols", { action: args.action, file: args.file, query: args.query }, cap);
    const what = workspace ? `matching \`${args.query}\`` : `in \`${args.file}\``;
    if (res.symbols.length === 0) return `No symbols ${what} (${res.server}).${caveats(res)}`;
    const lines = res.symbols.map((s) =>
      workspace
        ? `  ${s.kind} ${s.name}${s.container ? ` (in ${s.container})` : ""}  ${s.location && s.location.line > 0 ? at(s.location) : s.location?.path ?? ""}`
        : `  ${"  ".repeat(s.depth)}${s.kind} ${s.name}${s.detail ? ` ${s.detail}` : ""}  :${s.location?.line ?? "?"}`,
    );
    return `${plural(res.total, "symbol")} ${what} (${res.server})${capNote(res.symbols.length, res.total, cap)}:\n${lines.join("\n")}${caveats(res)}`;
  },
};
