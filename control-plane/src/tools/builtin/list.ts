// list (tier read): a workspace folder's entries.
import { z } from "zod";
import { LIMITS } from "../../limits.js";
import { defineTool } from "../tool.js";
import { workspacePath } from "./written-files.js";

const ENTRY_TYPES = ["file", "directory", "symlink", "other"] as const;
type EntryType = (typeof ENTRY_TYPES)[number];

function entryType(t: string): EntryType {
  return (ENTRY_TYPES as readonly string[]).includes(t) ? (t as EntryType) : "other";
}

export const listTool = defineTool({
  name: "list",
  tier: "read",
  resource: "workspace",
  description: "List a workspace folder (default: the root). `recursive` walks below it, skipping .git and node_modules.",
  args: z.strictObject({
    path: z.string().optional().describe("folder relative to the workspace root"),
    recursive: z.boolean().optional(),
    max_entries: z.number().int().min(1).max(LIMITS.listToolMaxEntries).optional(),
  }),
  details: z.strictObject({
    path: z.string().describe('the folder listed, workspace-relative ("" for the root)'),
    entries: z
      .array(
        z.strictObject({
          path: z.string().describe("workspace-relative"),
          type: z.enum(ENTRY_TYPES),
          size: z.number().int().nullable().describe("bytes, for a file; null otherwise"),
        }),
      )
      .describe("at most max_entries"),
    truncated: z.boolean().describe("the folder has more entries than listed (max_entries cut the list)"),
  }),
  async run(args, ctx) {
    const { client } = await ctx.agent();
    const res = await client.listDir({
      path: args.path ?? "",
      recursive: args.recursive ?? false,
      maxEntries: args.max_entries ?? LIMITS.listToolDefaultEntries,
    });
    const lines = res.entries.map((e) => (e.type === "directory" ? `${e.path}/` : e.type === "file" ? `${e.path}  ${e.size} B` : `${e.path}  (${e.type})`));
    if (res.truncated) lines.push(`[truncated at ${res.entries.length} entries; list a subfolder or raise max_entries]`);
    return {
      parts: [{ type: "text", text: lines.length ? lines.join("\n") : "(empty folder)" }],
      details: {
        path: workspacePath(args.path ?? ""),
        entries: res.entries.map((e) => ({ path: e.path, type: entryType(e.type), size: e.type === "file" ? e.size : null })),
        truncated: res.truncated,
      },
    };
  },
});
