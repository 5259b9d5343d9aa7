// Kernels and language servers across the agents that run now, for the metrics' gauges: read through
// the same live-status sources the console shows ("kernels", "lsp"), which ask only a running agent and
// start nothing. An agent that does not answer within the deadline counts as none for this scrape.
import { within } from "@enclave/proto/wait.js";
import type { LiveStatusSource } from "../status/live-status.js";

/** A scrape must not wait on a stuck agent for long. */
const PER_AGENT_MS = 2000;

export async function agentResources(
  conversationIds: readonly string[],
  running: (id: string) => boolean,
  sources: readonly LiveStatusSource[],
): Promise<{ kernels: number; languageServers: number }> {
  const kernels = sources.find((s) => s.id === "kernels");
  const lsp = sources.find((s) => s.id === "lsp");
  const count = async (source: LiveStatusSource | undefined, id: string): Promise<number> => {
    if (!source) return 0;
    const items = await within(
      Promise.resolve(source.list(id)).catch(() => []),
      PER_AGENT_MS,
      [],
    );
    return items.length;
  };
  const live = conversationIds.filter((id) => {
    try {
      return running(id);
    } catch {
      return false; // deleted since the list was taken
    }
  });
  const per = await Promise.all(live.map(async (id) => ({ kernels: await count(kernels, id), languageServers: await count(lsp, id) })));
  return per.reduce((a, b) => ({ kernels: a.kernels + b.kernels, languageServers: a.languageServers + b.languageServers }), { kernels: 0, languageServers: 0 });
}
