// status: every known server, running (for which roots) or why it cannot start here.
import { z } from "zod";
import { defineAction } from "./action.js";

const LABEL: Record<string, string> = {
  running: "running",
  available: "available",
  missing_marker: "missing root marker",
  missing_binary: "missing binary",
  broken: "broken (not restarted)",
};

export const statusAction = defineAction({
  name: "status",
  args: z.strictObject({ action: z.literal("status") }),
  needs: {},
  async run(_args, client) {
    const res = await client.lspStatus();
    const lines = res.servers.map((s) => {
      const roots = s.roots.length ? ` roots: ${s.roots.map((r) => `\`${r}\``).join(", ")}.` : "";
      const modes = s.rootModes.filter(Boolean).map((m) => `\n      ${m}`).join("");
      return `  ${s.id} (${s.languages.join(", ")}): ${LABEL[s.state] ?? s.state}.${roots} ${s.detail}${modes}`;
    });
    return `Language servers (a server starts only where a root marker exists AND its binary resolves):\n${lines.join("\n")}`;
  },
});
