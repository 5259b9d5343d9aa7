// status: every known server, running (for which roots) or why it cannot start here.
import { z } from "zod";
import { LspServerState } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import { defineAction } from "./action.js";

const LABEL: Partial<Record<LspServerState, string>> = {
  [LspServerState.LSP_SERVER_STATE_RUNNING]: "running",
  [LspServerState.LSP_SERVER_STATE_AVAILABLE]: "available",
  [LspServerState.LSP_SERVER_STATE_MISSING_MARKER]: "missing root marker",
  [LspServerState.LSP_SERVER_STATE_MISSING_BINARY]: "missing binary",
  [LspServerState.LSP_SERVER_STATE_BROKEN]: "broken (not restarted)",
};

export const statusAction = defineAction({
  name: "status",
  args: z.strictObject({ action: z.literal("status") }),
  needs: {},
  async run(_args, client) {
    const res = await client.lspStatus();
    const lines = res.servers.map((s) => {
      const roots = s.roots.length ? ` roots: ${s.roots.map((r) => `\`${r}\``).join(", ")}.` : "";
      const modes = s.rootModes
        .filter(Boolean)
        .map((m) => `\n      ${m}`)
        .join("");
      return `  ${s.id} (${s.languages.join(", ")}): ${LABEL[s.state] ?? "state unknown to this control plane"}.${roots} ${s.detail}${modes}`;
    });
    return `Language servers (a server starts only where a root marker exists AND its binary resolves):\n${lines.join("\n")}`;
  },
});
