// read (tier read): a workspace file's text, whole or a range of lines.
import { z } from "zod";
import { EnclaveError } from "../../errors.js";
import { LIMITS } from "../../limits.js";
import { defineTool } from "../tool.js";
import { workspacePath } from "./written-files.js";

/** Lines of a text, as an editor counts them: a final newline ends the last line, it does not start one. */
function lineCount(body: string): number {
  if (body === "") return 0;
  return body.split("\n").length - (body.endsWith("\n") ? 1 : 0);
}

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
  details: z.strictObject({
    path: z.string().describe("the file, workspace-relative"),
    content: z.string().describe("the lines returned, as UTF-8 (without the truncation note the text adds)"),
    size_bytes: z.number().int().describe("the file's size on disk"),
    truncated: z.boolean().describe("the file is longer than the bytes read: only its head was read (see bytes_read)"),
    bytes_read: z.number().int(),
    total_lines: z.number().int().nullable().describe("the file's line count; null when truncated (not all of it was read)"),
    start_line: z.number().int().describe("1-based first line returned"),
    end_line: z.number().int().describe("1-based last line returned, inclusive; start_line - 1 when no line was returned"),
  }),
  async run(args, ctx) {
    const { client } = await ctx.agent();
    const maxBytes = args.offset || args.limit ? LIMITS.readToolMaxBytes : LIMITS.readToolDefaultBytes;
    const res = await client.readFile({ path: args.path, maxBytes });
    if (res.content.subarray(0, 8192).includes(0)) {
      throw new EnclaveError("failed_precondition", `\`${args.path}\` is a binary file (${res.size} bytes); inspect it with exec (for example \`xxd\`)`);
    }
    const whole = res.content.toString("utf8");
    const lines = lineCount(whole);
    const from = (args.offset ?? 1) - 1;
    let body = whole;
    if (args.offset || args.limit) {
      body = whole
        .split("\n")
        .slice(from, args.limit ? from + args.limit : undefined)
        .join("\n");
    }
    const content = body;
    if (res.truncated) {
      body += `\n[truncated: showed ${res.content.length} of ${res.size} bytes; read on with offset and limit]`;
    }
    const last = Math.min(args.limit ? from + args.limit : lines, lines);
    return {
      parts: [{ type: "text", text: body }],
      details: {
        path: workspacePath(args.path),
        content,
        size_bytes: res.size,
        truncated: res.truncated,
        bytes_read: res.content.length,
        total_lines: res.truncated ? null : lines,
        start_line: from + 1,
        end_line: Math.max(last, from),
      },
    };
  },
});
