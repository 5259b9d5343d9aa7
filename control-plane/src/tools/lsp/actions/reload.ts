// reload: restarts the server for the file's root (every running server without a file), and lets a
// server that kept crashing be started again.
import type { LspAction } from "./action.js";

export const reloadAction: LspAction = {
  name: "reload",
  needs: "none",
  async run(args, client) {
    const res = await client.lspReload({ file: args.file ?? "" });
    const parts: string[] = [];
    if (res.stopped.length) parts.push(`stopped ${res.stopped.join(", ")}; each starts again on its next call`);
    if (res.unbroken.length) parts.push(`forgot earlier crashes of ${res.unbroken.join(", ")}`);
    return parts.length ? `Reloaded: ${parts.join("; ")}.` : "Nothing to reload: no language server was running for that root.";
  },
};
