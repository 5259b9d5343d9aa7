// ast_grep (tier read): find code by shape, on the tree-sitter grammar of the files.
import { z } from "zod";
import { LIMITS } from "../../limits.js";
import { defineTool } from "../tool.js";
import { formatMatches } from "./format-matches.js";

export const astGrepTool = defineTool({
  name: "ast_grep",
  tier: "read",
  resource: "ast",
  description:
    "Structural search: find code by syntax shape, not text. In `pattern`, `$NAME` matches one node, `$$$NAME` a run of sibling nodes (zero or more), `$_` or `$_NAME` any node without binding, " +
    '`"$NAME"` inside a string literal a string (binding its content); ' +
    "a metavariable used twice must match the same text (`if ($X != null) $X.dispose()`). Whitespace and comments are ignored; strings and comments are never matched into. " +
    "Matches are given as path:line:column. " +
    "Languages: dart, python, javascript, typescript, tsx, rust, c, cpp, go, java, bash, json (inferred from a file's extension).",
  args: z.strictObject({
    pattern: z.string().min(1).describe("code with $METAVARIABLES, e.g. `foo($$$ARGS)`"),
    path: z.string().optional().describe("file or folder relative to the workspace root (default: the whole workspace)"),
    language: z.string().optional().describe("grammar id; required for a folder, inferred for a file"),
    max_results: z.number().int().min(1).max(LIMITS.astMaxResults).optional().describe(`default ${LIMITS.astDefaultMaxResults}`),
  }),
  details: z.strictObject({
    language: z.string().describe("the grammar searched"),
    read_as: z.string().describe('the context the pattern parsed in: "statement", "expression", …'),
    fillers: z.array(z.string()).describe("what was supplied so the pattern parses in that context; empty when read as written"),
    matches: z
      .array(
        z.strictObject({
          path: z.string().describe("workspace-relative"),
          line: z.number().int().describe("1-based"),
          column: z.number().int().describe("1-based, in characters"),
          end_line: z.number().int().describe("1-based, inclusive"),
          end_column: z.number().int().describe("1-based, in characters, exclusive"),
          text: z.string().describe("the matched source"),
          bindings: z.record(z.string(), z.string()).describe("each metavariable's name (without $) and the text it matched"),
        }),
      )
      .describe("at most max_results"),
    total: z.number().int().describe("matches listed"),
    files: z.number().int().describe("files with a match"),
    truncated: z.boolean().describe("max_results cut the list: more matches exist"),
    files_searched: z.number().int(),
    skipped: z
      .strictObject({
        vendored: z.number().int().describe("vendored folders"),
        ignored: z.number().int().describe(".gitignored files"),
        binary: z.number().int(),
        too_large: z.number().int().describe("files over the size limit"),
        hard_linked: z.number().int().describe("files with more than one name"),
      })
      .describe("what the search left out"),
  }),
  async run(args, ctx) {
    const { client } = await ctx.agent();
    const max = args.max_results ?? LIMITS.astDefaultMaxResults;
    const r = await client.astSearch({ pattern: args.pattern, path: args.path ?? "", language: args.language ?? "", maxResults: max });
    const sk = r.skipped;
    return {
      parts: [{ type: "text", text: formatMatches(args.pattern, r, max) }],
      details: {
        language: r.language,
        read_as: r.context,
        fillers: r.fillers,
        matches: r.matches.map((m) => ({
          path: m.path,
          line: m.startLine,
          column: m.startColumn,
          end_line: m.endLine,
          end_column: m.endColumn,
          text: m.text,
          bindings: Object.fromEntries(m.bindings.map((b) => [b.name, b.text])),
        })),
        total: r.matches.length,
        files: new Set(r.matches.map((m) => m.path)).size,
        truncated: r.truncated,
        files_searched: r.filesSearched,
        skipped: {
          vendored: sk?.vendored ?? 0,
          ignored: sk?.ignored ?? 0,
          binary: sk?.binary ?? 0,
          too_large: sk?.tooLarge ?? 0,
          hard_linked: sk?.hardLinked ?? 0,
        },
      },
    };
  },
});
