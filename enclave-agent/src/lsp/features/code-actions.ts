// code_actions: the quick fixes and refactorings a server offers at the symbol, given the
// diagnostics on that line as context. Listed with a preview of their edits, never applied (a
// read-tier tool changes nothing).
import type { LspCodeAction } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import type { CodeAction, Command, Diagnostic, WorkspaceEdit } from "../lsp-types.js";
import { LIMITS } from "../../limits.js";
import { freshDiagnostics } from "../document-sync.js";
import { collectEdits } from "../workspace-edit.js";
import { type Feature, type FeatureContext, positionOf } from "./feature-context.js";

const PREVIEW_EDITS = 3;

type CommandWithArgs = Command & { arguments?: unknown[] };

/** The edit an action makes: its own, or one carried in its command's arguments (as tsserver does). */
function editOf(a: CodeAction | CommandWithArgs): WorkspaceEdit | undefined {
  if ("edit" in a && a.edit) return a.edit;
  const cmd = (typeof a.command === "object" ? a.command : a) as CommandWithArgs;
  for (const arg of cmd.arguments ?? []) {
    if (arg && typeof arg === "object" && ("changes" in arg || "documentChanges" in arg)) return arg as WorkspaceEdit;
  }
  return undefined;
}

function describe(ctx: FeatureContext, a: CodeAction | CommandWithArgs): LspCodeAction {
  const edit = editOf(a);
  let files: ReturnType<typeof collectEdits> = [];
  try {
    files = edit ? collectEdits(edit) : [];
  } catch {
    files = [];
  }
  const preview: string[] = [];
  for (const f of files) {
    for (const e of f.edits) {
      if (preview.length >= PREVIEW_EDITS) break;
      const loc = ctx.sources.location(f.uri, e.range);
      const body = e.newText.length > 80 ? `${e.newText.slice(0, 80)}…` : e.newText;
      preview.push(`${loc.path}:${loc.line}:${loc.column}-${loc.endLine}:${loc.endColumn} → ${body ? JSON.stringify(body) : "(delete)"}`);
    }
  }
  const command = typeof a.command === "string" ? a.command : (a.command?.command ?? "");
  return {
    title: a.title,
    kind: "kind" in a ? (a.kind ?? "") : "",
    preferred: "isPreferred" in a ? Boolean(a.isPreferred) : false,
    edits: files.map((f) => ({ path: ctx.sources.relativePath(f.uri), edits: f.edits.length })),
    command: edit ? "" : command,
    preview,
  };
}

export const codeActionsFeature: Feature = {
  positional: true,
  async run(ctx) {
    const pos = positionOf(ctx);
    const range = { start: pos, end: { line: pos.line, character: pos.character + ctx.symbolLength } };
    // The fixes a server offers depend on the diagnostics it is given: the current ones for this text.
    const current =
      (await freshDiagnostics(ctx.conn, ctx.doc, Math.min(ctx.deadline, Date.now() + LIMITS.lspCodeActionContextWaitMs))) ??
      ctx.conn.lastPushed(ctx.doc.uri)?.items ??
      [];
    const onLine = current.filter((d: Diagnostic) => d.range.start.line <= pos.line && d.range.end.line >= pos.line);
    const answer = await ctx.conn.request<Array<CodeAction | CommandWithArgs> | null>(
      "textDocument/codeAction",
      { textDocument: { uri: ctx.doc.uri }, range, context: { diagnostics: onLine, triggerKind: 1 } },
      ctx.timeoutMs,
    );
    const actions = (answer ?? []).map((a) => describe(ctx, a));
    return { actions, total: actions.length };
  },
};
