// apply_patch (tier write): a unified diff over one or more files, all or nothing.
import { z } from "zod";
import { defineTool } from "../tool.js";
import { FILE_CHANGES, changedFile } from "./written-files.js";

type FileChange = (typeof FILE_CHANGES)[number];

export const applyPatchTool = defineTool({
  name: "apply_patch",
  tier: "write",
  resource: "workspace",
  description:
    "Apply a unified diff (as `git diff` writes it, renames included) to the workspace. Every hunk must match (a hunk may sit at other line numbers); if one does not, no file is changed.",
  args: z.strictObject({
    patch: z.string().min(1).describe("the unified diff: `--- a/path`, `+++ b/path`, `@@` hunks; /dev/null to add or delete a file"),
  }),
  details: z.strictObject({
    files: z
      .array(z.strictObject({ ...changedFile, hunks: z.number().int() }))
      .describe("every file the patch changed; a rename is its old path deleted and its new path added"),
  }),
  async run(args, ctx) {
    const { client } = await ctx.agent();
    const res = await client.applyPatch({ patch: args.patch });
    const lines = res.files.map((f) => `  ${f.change} ${f.path} (${f.hunks} hunk${f.hunks === 1 ? "" : "s"})`);
    return {
      parts: [{ type: "text", text: `Patched ${res.files.length} file${res.files.length === 1 ? "" : "s"}:\n${lines.join("\n")}` }],
      details: { files: res.files.map((f) => ({ path: f.path, change: fileChange(f.change), hunks: f.hunks })) },
    };
  },
});

/** The agent says "added", "modified" or "deleted"; anything else changed the file too. */
function fileChange(change: string): FileChange {
  return (FILE_CHANGES as readonly string[]).includes(change) ? (change as FileChange) : "modified";
}
