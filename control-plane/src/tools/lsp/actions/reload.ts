// reload: restarts the server for the file's root (every running server without a file), and lets a
// server that kept crashing be started again.
import { z } from "zod";
import { defineAction, fileField } from "./action.js";

export const reloadAction = defineAction({
  name: "reload",
  args: z.strictObject({
    action: z.literal("reload"),
    file: fileField("reload").optional().describe("a file whose root to reload; without it every running server"),
  }),
  needs: {},
  async run(args, client) {
    const res = await client.lspReload({ file: args.file ?? "" });
    const parts: string[] = [];
    if (res.stopped.length) parts.push(`stopped ${res.stopped.join(", ")}; each starts again on its next call`);
    if (res.unbroken.length) parts.push(`forgot earlier crashes of ${res.unbroken.join(", ")}`);
    return parts.length ? `Reloaded: ${parts.join("; ")}.` : "Nothing to reload: no language server was running for that root.";
  },
});
