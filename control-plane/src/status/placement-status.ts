// Live-status sources read from the conversation's agent: running language servers, the debug
// session and the kernels. They ask only an agent that is already running (a host agent or a live
// enclosure's), so watching a conversation never starts anything.
import { debugServiceClient } from "../agent-client/debug-service-client.js";
import type { AgentClient } from "../agent-client/agent-client.js";
import type { Placements } from "../placement/placements.js";
import type { LiveStatusItem, LiveStatusSource } from "./live-status.js";
import { LspServerState } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";

type Reader = (client: AgentClient, conversationId: string) => Promise<LiveStatusItem[]>;

function fromAgent(placements: Placements, id: string, title: string, empty: string, read: Reader): LiveStatusSource {
  return {
    id,
    title,
    empty,
    async list(conversationId) {
      const ep = await placements.running(conversationId);
      return ep ? read(ep.client, conversationId) : [];
    },
  };
}

export function placementStatusSources(placements: Placements): LiveStatusSource[] {
  return [
    fromAgent(placements, "lsp", "Language servers", "no language server running", async (client) =>
      (await client.lspStatus()).servers
        .filter((s) => s.state === LspServerState.LSP_SERVER_STATE_RUNNING)
        .map((s) => ({ name: s.id, state: "running", detail: `roots ${s.roots.join(", ") || "."} · ${s.languages.join(", ")}` })),
    ),
    fromAgent(placements, "debug", "Debug session", "no debug session", async (client, conversationId) => {
      const st = await debugServiceClient(client).status(conversationId);
      if (!st.active) return [];
      const where = st.stopped?.file ? `stopped at ${st.stopped.file}:${st.stopped.line} (${st.stopped.reason})` : st.state;
      return [
        {
          name: `${st.sessionId} ${st.adapter} ${st.program}`,
          state: st.state,
          detail: `${where} · ends at the latest ${new Date(Number(st.expiresAtMs)).toISOString()}`,
          sinceMs: Number(st.startedAtMs),
        },
      ];
    }),
    fromAgent(placements, "kernels", "Kernels", "no kernel running", async (client) =>
      (await client.listKernels()).kernels.map((k) => ({
        name: `${k.info?.language ?? "?"} kernel ${k.info?.kernelId ?? ""}`,
        state: k.busy ? "busy" : "idle",
        detail: `pid ${k.info?.pid ?? 0} · ${k.info?.interpreter ?? ""} · ${k.cells} cell${k.cells === 1 ? "" : "s"}`,
        sinceMs: Number(k.info?.startMs ?? 0),
      })),
    ),
  ];
}
