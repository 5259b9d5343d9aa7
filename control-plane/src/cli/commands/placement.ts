// enclave placement ID: where the conversation runs and what its agent can run there.
import type { CommandContext } from "../context.js";
import { say, sayJson } from "../terminal-text.js";

export async function placementCommand({ sub, opts, client }: CommandContext): Promise<void> {
  const d = await client.describePlacement(sub || (opts.conversation ?? "default"));
  if (opts.json) return sayJson(d);
  say(`placement: ${d.placement} (agent ${d.agentVersion} on Node ${d.agentNodeVersion || "?"}, workspace ${d.workspaceRoot})`);
  for (const c of d.components) say(`  ${c.kind.padEnd(16)} ${c.id.padEnd(14)} ${c.usable ? "usable " : "missing"}  ${c.detail}`);
}
