// edit (tier write): replace an exact piece of text in a file.
import { z } from "zod";
import { defineTool } from "../tool.js";
import { changedFile, workspacePath } from "./written-files.js";

export const editTool = defineTool({
  name: "edit",
  tier: "write",
  resource: "workspace",
  description: "Replace exact text in a workspace file. `old_text` must occur once (or set `replace_all`); whitespace counts.",
  args: z.strictObject({
    path: z.string().min(1).describe("file path relative to the workspace root"),
    old_text: z.string().min(1).describe("the exact text to replace"),
    new_text: z.string().describe("the replacement"),
    replace_all: z.boolean().optional().describe("replace every occurrence instead of requiring exactly one"),
  }),
  details: z.strictObject({
    files: z
      .array(z.strictObject({ ...changedFile, replacements: z.number().int().describe("occurrences of old_text replaced in it") }))
      .describe("the one file edited"),
    replacements: z.number().int().describe("occurrences replaced in all"),
  }),
  async run(args, ctx) {
    const { client } = await ctx.agent();
    const res = await client.editFile({ path: args.path, oldText: args.old_text, newText: args.new_text, replaceAll: args.replace_all ?? false });
    return {
      parts: [{ type: "text", text: `Replaced ${res.replacements} occurrence${res.replacements === 1 ? "" : "s"} in \`${args.path}\`.` }],
      details: { files: [{ path: workspacePath(args.path), change: "modified" as const, replacements: res.replacements }], replacements: res.replacements },
    };
  },
});
