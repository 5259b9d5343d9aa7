// reload: restarts the server for the file's root (every running server without a file), and lets a
// server that kept crashing be started again.
import { z } from "zod";
import { defineAction, fileField } from "./action.js";

export const RELOAD_DETAILS = z.object({
  action: z.literal("reload"),
  stopped: z.array(z.string()).describe('"server@root" of each server stopped (each starts again on its next call)'),
  unbroken: z.array(z.string()).describe("servers forgiven for earlier crashes"),
});

export const reloadAction = defineAction({
  name: "reload",
  args: z.strictObject({
    action: z.literal("reload"),
    file: fileField("reload").optional().describe("a file whose root to reload; without it every running server"),
  }),
  details: RELOAD_DETAILS,
  needs: {},
  async run(args, client) {
    const res = await client.lspReload({ file: args.file ?? "" });
    const parts: string[] = [];
    if (res.stopped.length) parts.push(`stopped ${res.stopped.join(", ")}; each starts again on its next call`);
    if (res.unbroken.length) parts.push(`forgot earlier crashes of ${res.unbroken.join(", ")}`);
    const details = { action: "reload" as const, stopped: res.stopped, unbroken: res.unbroken };
    return { text: parts.length ? `Reloaded: ${parts.join("; ")}.` : "Nothing to reload: no language server was running for that root.", details };
  },
});
