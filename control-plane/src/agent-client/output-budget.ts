// What one call's stream may bring from an agent. An agent caps its own output (a command's at
// 16 MiB, a cell's at 8 MiB of text and 32 MiB of displays), and the control plane keeps what a call
// streamed until it ends (the result's head and tail, a cell's transcript): an agent that sends more
// than any honest one would is code in the enclosure speaking for it, and the call is stopped before
// the control plane holds more.
import { EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";

export class AgentOutputBudget {
  private used = 0;

  constructor(private readonly what: string) {}

  /** Counts bytes the agent sent; throws agent_lost once they pass the bound. */
  take(bytes: number): void {
    this.used += bytes;
    if (this.used > LIMITS.agentStreamedOutputMaxBytes) {
      throw new EnclaveError(
        "agent_lost",
        `the agent sent more than ${LIMITS.agentStreamedOutputMaxBytes / 1024 / 1024} MiB of output for one ${this.what}, more than an agent ever sends (it caps its own): the call was stopped, and code in the enclosure may have replaced its agent`,
      );
    }
  }
}
