// write (tier write): a whole file's new content, written atomically.
import { z } from "zod";
import { defineTool, text } from "../tool.js";

export const writeTool = defineTool({
  name: "write",
  tier: "write",
  resource: "workspace",
  description: "Write a file of the workspace with the given content (created with its folders if missing, replaced whole otherwise; never half-written).",
  args: z.strictObject({
    path: z.string().min(1).describe("file path relative to the workspace root"),
    content: z.string().describe("the file's complete new content"),
  }),
  async run(args, ctx) {
    const { client } = await ctx.agent();
    const res = await client.writeFile({ path: args.path, content: Buffer.from(args.content, "utf8"), createOnly: false });
    return text(`Wrote ${res.bytesWritten} bytes to \`${args.path}\`${res.created ? " (new file)" : ""}.`);
  },
});
