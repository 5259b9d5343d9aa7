// list (tier read): a workspace folder's entries.
import { z } from "zod";
import { LIMITS } from "../../limits.js";
import { defineTool, text } from "../tool.js";

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
  async run(args, ctx) {
    const { client } = await ctx.agent();
    const res = await client.listDir({
      path: args.path ?? "",
      recursive: args.recursive ?? false,
      maxEntries: args.max_entries ?? LIMITS.listToolDefaultEntries,
    });
    const lines = res.entries.map((e) => (e.type === "directory" ? `${e.path}/` : e.type === "file" ? `${e.path}  ${e.size} B` : `${e.path}  (${e.type})`));
    if (res.truncated) lines.push(`[truncated at ${res.entries.length} entries; list a subfolder or raise max_entries]`);
    return text(lines.length ? lines.join("\n") : "(empty folder)");
  },
});
