// edit (tier write): replace an exact piece of text in a file.
import { z } from "zod";
import { defineTool, text } from "../tool.js";

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
  async run(args, ctx) {
    const { client } = await ctx.agent();
    const res = await client.editFile({ path: args.path, oldText: args.old_text, newText: args.new_text, replaceAll: args.replace_all ?? false });
    return text(`Replaced ${res.replacements} occurrence${res.replacements === 1 ? "" : "s"} in \`${args.path}\`.`);
  },
});
