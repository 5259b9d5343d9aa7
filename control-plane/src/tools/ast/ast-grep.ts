// ast_grep (tier read): find code by shape, on the tree-sitter grammar of the files.
import { z } from "zod";
import { LIMITS } from "../../limits.js";
import { defineTool, text } from "../tool.js";
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
  async run(args, ctx) {
    const { client } = await ctx.agent();
    const max = args.max_results ?? LIMITS.astDefaultMaxResults;
    const r = await client.astSearch({ pattern: args.pattern, path: args.path ?? "", language: args.language ?? "", maxResults: max });
    return text(formatMatches(args.pattern, r, max));
  },
});
