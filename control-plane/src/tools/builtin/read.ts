// read (tier read): a workspace file's text, whole or a range of lines.
import { z } from "zod";
import { EnclaveError } from "../../errors.js";
import { LIMITS } from "../../limits.js";
import { defineTool, text } from "../tool.js";

export const readTool = defineTool({
  name: "read",
  tier: "read",
  resource: "workspace",
  description: "Read a text file of the workspace. Returns its content; `offset` (1-based line) and `limit` (lines) read part of it.",
  args: z.strictObject({
    path: z.string().min(1).describe("file path relative to the workspace root"),
    offset: z.number().int().min(1).optional().describe("first line to return, 1-based"),
    limit: z.number().int().min(1).optional().describe("how many lines to return"),
  }),
  async run(args, ctx) {
    const { client } = await ctx.agent();
    const maxBytes = args.offset || args.limit ? LIMITS.readToolMaxBytes : LIMITS.readToolDefaultBytes;
    const res = await client.readFile({ path: args.path, maxBytes });
    if (res.content.subarray(0, 8192).includes(0)) {
      throw new EnclaveError("failed_precondition", `\`${args.path}\` is a binary file (${res.size} bytes); inspect it with exec (for example \`xxd\`)`);
    }
    let body = res.content.toString("utf8");
    if (args.offset || args.limit) {
      const lines = body.split("\n");
      const from = (args.offset ?? 1) - 1;
      body = lines.slice(from, args.limit ? from + args.limit : undefined).join("\n");
    }
    if (res.truncated) {
      body += `\n[truncated: showed ${res.content.length} of ${res.size} bytes; read on with offset and limit]`;
    }
    return text(body);
  },
});
