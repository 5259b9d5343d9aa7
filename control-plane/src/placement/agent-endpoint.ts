import type { AgentClient } from "../agent-client/agent-client.js";

/** The agent a call goes to, resolved per call: the enclosure's when one runs, else the host's. */
export interface AgentEndpoint {
  placement: "host" | "enclosure";
  client: AgentClient;
  /** For messages: "host placement" or "enclosure 1a2b3c4d5e6f". */
  where: string;
}
