// ast_edit (tier write, stages only): the ast_grep matching plus a rewrite template. Writes nothing:
// the replacements, with the hash of every touched file, become a pending action that resolve
// applies (all files or none) or discards.
import { z } from "zod";
import { EnclaveError } from "../../errors.js";
import { LIMITS } from "../../limits.js";
import type { AgentEndpoint } from "../../placement/agent-endpoint.js";
import { defineTool } from "../tool.js";
import { readingOf } from "./format-matches.js";
import { type StagedFile, stagedEditChange, stagedFilesOf } from "./staged-edit-record.js";
import type { RestorableChange } from "../../pending/pending-action-table.js";
import { plural, quoted } from "../../text/wording.js";

async function applyStaged(agent: () => Promise<AgentEndpoint>, id: string, files: StagedFile[]): Promise<string> {
  const { client } = await agent();
  const r = await client.applyEdits({ files: files.map((f) => ({ path: f.path, expectedSha256: f.sha256, content: f.newContent })) });
  if (!r.applied) {
    throw new EnclaveError(
      "failed_precondition",
      `refused ${id}: ${plural(r.diverged.length, "file")} changed since the edit was staged (${r.diverged.join(", ")}); ` +
        `nothing was written, in any file. Run ast_edit again on the current files.`,
    );
  }
  const total = files.reduce((n, f) => n + f.replacements, 0);
  return `Wrote ${id}: ${plural(total, "replacement")} in ${plural(files.length, "file")} (${files.map((f) => f.path).join(", ")}).`;
}

/** The apply of a change staged before a restart, against the conversation's agent now; undefined for a record that is not ast_edit's. */
export function reviveStagedEdit(change: RestorableChange, id: string, agent: () => Promise<AgentEndpoint>): (() => Promise<string>) | undefined {
  const files = stagedFilesOf(change);
  return files && (() => applyStaged(agent, id, files));
}

export const astEditTool = defineTool({
  name: "ast_edit",
  tier: "write",
  resource: "ast",
  stagesOnly: true,
  description:
    "Structural rewrite, staged: the ast_grep pattern plus a `rewrite` template in which $NAME and $$$NAME are replaced by what they matched. " +
    "Nothing is written: the result shows a diff and an edit_id; call `resolve` with it to apply (every file, or none if any changed meanwhile) or discard.",
  args: z.strictObject({
    pattern: z.string().min(1).describe("code with $METAVARIABLES"),
    rewrite: z.string().describe("replacement with the pattern's $METAVARIABLES"),
    path: z.string().optional().describe("file or folder relative to the workspace root (default: the whole workspace)"),
    language: z.string().optional().describe("grammar id; required for a folder, inferred for a file"),
  }),
  details: z.strictObject({
    edit_id: z.string().nullable().describe("the staged change's id, for resolve's edit_id; null when nothing matched and nothing was staged"),
    language: z.string().describe("the grammar searched"),
    files_searched: z.number().int(),
    files: z
      .array(
        z.strictObject({
          path: z.string().describe("workspace-relative"),
          replacements: z.number().int(),
          parse_error: z
            .strictObject({
              line: z.number().int().describe("1-based"),
              column: z.number().int().describe("1-based"),
              message: z.string(),
            })
            .nullable()
            .describe("where the rewritten file no longer parses (it parsed before); null when it does"),
        }),
      )
      .describe("every file the staged change would write"),
    replacements: z.number().int().describe("replacements in all files"),
  }),
  async run(args, ctx) {
    const store = ctx.pending;
    if (!store) throw new EnclaveError("failed_precondition", "ast_edit needs the run's pending-action store (the ast resource); open the run with it");
    const { client } = await ctx.agent();
    const r = await client.astRewrite({ pattern: args.pattern, rewrite: args.rewrite, path: args.path ?? "", language: args.language ?? "" });
    const searched = { language: r.language, files_searched: r.filesSearched };
    if (r.files.length === 0) {
      return {
        parts: [{ type: "text", text: `No matches for \`${args.pattern}\` in ${plural(r.filesSearched, `${r.language} file`)}; nothing was staged.` }],
        details: { edit_id: null, ...searched, files: [], replacements: 0 },
      };
    }
    const total = r.files.reduce((n, f) => n + f.replacements, 0);
    const agent = ctx.agent;
    const files = r.files;
    // A rewrite that breaks a file's syntax is staged all the same (the caller may mean to finish it
    // by hand), but the proposal says so first, with where.
    const broken = files.filter((f) => f.parseError).map((f) => `${f.path}:${f.parseError?.line}:${f.parseError?.column}: ${f.parseError?.message}`);
    const warning = broken.length
      ? `WARNING: the rewrite leaves ${plural(broken.length, "file")} that no longer parse${broken.length === 1 ? "s" : ""} (each parsed before): ${broken.join("; ")}. Discard it, or apply it only if you will fix that.\n\n`
      : "";
    const action = store.push({
      // Quoted short: the label rides on every later result of the run (its pending state) and is kept in the state database.
      label: `ast_edit: ${quoted(args.pattern)} → ${quoted(args.rewrite)} (${plural(total, "replacement")} in ${plural(files.length, "file")})`,
      sourceToolName: "ast_edit",
      details: [...broken.map((b) => `does not parse after the rewrite: ${b}`), ...files.map((f) => f.path)].join("\n"),
      files: files.map((f) => f.path),
      apply: () => applyStaged(agent, action.id, files),
      restorable: stagedEditChange(files),
    });
    const reading = r.fillers.length ? ` The pattern was read as ${readingOf(r.context, r.fillers)}.` : "";
    let diff = files.map((f) => f.diff).join("");
    if (diff.length > LIMITS.astToolPreviewChars)
      diff = `${diff.slice(0, LIMITS.astToolPreviewChars)}\n[preview cut at ${LIMITS.astToolPreviewChars} characters; the staged change is complete]\n`;
    const proposal =
      `(proposed) ${plural(total, "replacement")} in ${plural(files.length, "file")} … call resolve with edit_id "${action.id}" ` +
      `(action "apply" writes them all, or none if a file changed meanwhile; "discard" drops them). Nothing is written yet.${reading}\n\n${warning}${diff}`;
    return {
      parts: [{ type: "text", text: proposal }],
      details: {
        edit_id: action.id,
        ...searched,
        files: files.map((f) => ({
          path: f.path,
          replacements: f.replacements,
          parse_error: f.parseError ? { line: f.parseError.line, column: f.parseError.column, message: f.parseError.message } : null,
        })),
        replacements: total,
      },
    };
  },
});
