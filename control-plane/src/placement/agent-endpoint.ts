import type { AgentClient } from "../agent-client/agent-client.js";

/**
 * What the call that may start an agent will need first, so that a starting agent begins it while it
 * loads (a host agent starting for an eval starts that language's kernel at once). Ignored by an agent
 * already running.
 */
export interface AgentPrepare {
  kernel?: "python" | "javascript";
  /** Started before its conversation is known (a spare host agent): its kernel imports ahead what a first cell needs. */
  spare?: boolean;
}

/** The agent a call goes to, resolved per call: the enclosure's when one runs, else the host's. */
export interface AgentEndpoint {
  placement: "host" | "enclosure";
  client: AgentClient;
  /** For messages: "host placement" or "enclosure 1a2b3c4d5e6f". */
  where: string;
  /** Host placement: the workspace's folder on the host (the sandbox sees it as /workspace). Never sent to the agent as such. */
  hostWorkspace?: string;
}
