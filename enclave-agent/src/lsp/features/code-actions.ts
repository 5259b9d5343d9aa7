// code_actions: the quick fixes and refactorings a server offers at the symbol, given the
// diagnostics on that line as context. Listed, never applied (a read-tier tool changes nothing).
import type { LspCodeAction } from "../../../../proto/gen/enclave/agent/v1/lsp.js";
import type { CodeAction, Command, Diagnostic } from "../lsp-types.js";
import { type Feature, positionOf } from "./feature-context.js";
import { editCounts } from "../workspace-edit.js";

export const codeActionsFeature: Feature = {
  positional: true,
  async run(ctx) {
    const pos = positionOf(ctx);
    const range = { start: pos, end: { line: pos.line, character: pos.character + ctx.symbolLength } };
    const onLine = (ctx.conn.lastPushed(ctx.doc.uri)?.items ?? []).filter((d: Diagnostic) => d.range.start.line <= pos.line && d.range.end.line >= pos.line);
    const answer = await ctx.conn.request<Array<CodeAction | Command> | null>(
      "textDocument/codeAction",
      { textDocument: { uri: ctx.doc.uri }, range, context: { diagnostics: onLine, triggerKind: 1 } },
      ctx.timeoutMs,
    );
    const actions: LspCodeAction[] = (answer ?? []).map((a) =>
      "command" in a && typeof a.command === "string"
        ? { title: a.title, kind: "", preferred: false, edits: [], command: a.command }
        : {
            title: a.title,
            kind: (a as CodeAction).kind ?? "",
            preferred: Boolean((a as CodeAction).isPreferred),
            edits: (a as CodeAction).edit ? editCounts((a as CodeAction).edit ?? {}).map((f) => ({ path: ctx.sources.relativePath(f.uri), edits: f.edits })) : [],
            command: (a as CodeAction).command?.command ?? "",
          },
    );
    return { actions, total: actions.length };
  },
};
