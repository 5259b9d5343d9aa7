// status: every known server, running (for which roots) or why it cannot start here.
import { z } from "zod";
import { LspServerState } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import { defineAction } from "./action.js";

const STATES = ["running", "available", "missing_marker", "missing_binary", "broken", "unknown"] as const;

const STATE: Partial<Record<LspServerState, (typeof STATES)[number]>> = {
  [LspServerState.LSP_SERVER_STATE_RUNNING]: "running",
  [LspServerState.LSP_SERVER_STATE_AVAILABLE]: "available",
  [LspServerState.LSP_SERVER_STATE_MISSING_MARKER]: "missing_marker",
  [LspServerState.LSP_SERVER_STATE_MISSING_BINARY]: "missing_binary",
  [LspServerState.LSP_SERVER_STATE_BROKEN]: "broken",
};

const LABEL: Partial<Record<LspServerState, string>> = {
  [LspServerState.LSP_SERVER_STATE_RUNNING]: "running",
  [LspServerState.LSP_SERVER_STATE_AVAILABLE]: "available",
  [LspServerState.LSP_SERVER_STATE_MISSING_MARKER]: "missing root marker",
  [LspServerState.LSP_SERVER_STATE_MISSING_BINARY]: "missing binary",
  [LspServerState.LSP_SERVER_STATE_BROKEN]: "broken (not restarted)",
};

export const STATUS_DETAILS = z.object({
  action: z.literal("status"),
  servers: z.array(
    z.object({
      id: z.string(),
      languages: z.array(z.string()),
      state: z.enum(STATES).describe("broken: it kept crashing and is not restarted until a reload; unknown: a state this control plane does not know"),
      roots: z.array(z.string()).describe("workspace-relative roots: the running ones when running, else those with a root marker"),
      root_markers: z.array(z.string()),
    }),
  ),
});

export const statusAction = defineAction({
  name: "status",
  args: z.strictObject({ action: z.literal("status") }),
  // The detail the text gives (the resolved binary, its pid) names paths of the machine: left out here.
  details: STATUS_DETAILS,
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
    const servers = res.servers.map((s) => ({
      id: s.id,
      languages: s.languages,
      state: STATE[s.state] ?? "unknown",
      roots: s.roots,
      root_markers: s.rootMarkers,
    }));
    return {
      text: `Language servers (a server starts only where a root marker exists AND its binary resolves):\n${lines.join("\n")}`,
      details: { action: "status" as const, servers },
    };
  },
});
