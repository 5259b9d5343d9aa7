// write (tier write): a whole file's new content, written atomically.
import { z } from "zod";
import { defineTool } from "../tool.js";
import { changedFile, workspacePath } from "./written-files.js";

export const writeTool = defineTool({
  name: "write",
  tier: "write",
  resource: "workspace",
  description: "Write a file of the workspace with the given content (created with its folders if missing, replaced whole otherwise; never half-written).",
  args: z.strictObject({
    path: z.string().min(1).describe("file path relative to the workspace root"),
    content: z.string().describe("the file's complete new content"),
  }),
  details: z.strictObject({
    files: z.array(z.strictObject({ ...changedFile, bytes: z.number().int().describe("bytes written") })).describe("the one file written"),
  }),
  async run(args, ctx) {
    const { client } = await ctx.agent();
    const res = await client.writeFile({ path: args.path, content: Buffer.from(args.content, "utf8"), createOnly: false });
    return {
      parts: [{ type: "text", text: `Wrote ${res.bytesWritten} bytes to \`${args.path}\`${res.created ? " (new file)" : ""}.` }],
      details: { files: [{ path: workspacePath(args.path), change: res.created ? ("added" as const) : ("modified" as const), bytes: res.bytesWritten }] },
    };
  },
});
