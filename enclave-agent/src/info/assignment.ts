// Which conversation this agent serves. A cold-started enclosure's agent is told right after it
// answers; a warm-pool enclosure's agent starts before any conversation exists for it and is told at
// the claim, which is also when its workspace appears (a mount over the empty folder it opened at
// start, so the root is opened again). Told once: another conversation is refused, so a pool
// enclosure can never be handed on. Kept in the state folder, which the enclosure's supervisor gives
// every restart of the agent, so a restarted agent still knows.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AgentError } from "../errors.js";

// The control plane's key of a conversation: its id, qualified by its tenant's name for any tenant
// but the implicit one (`<tenant>.<id>`).
const ID_RE = /^(?:[a-z0-9][a-z0-9_-]{0,63}\.)?[A-Za-z0-9_-]{1,64}$/;
const FILE = "conversation";

export class Assignment {
  private id = "";

  constructor(
    private readonly stateRoot: string,
    /** Runs once, when the agent is first told (before the answer goes back). */
    private readonly onFirst: () => void,
  ) {
    const file = join(stateRoot, FILE);
    if (existsSync(file)) {
      const kept = readFileSync(file, "utf8").trim();
      if (ID_RE.test(kept)) this.id = kept;
    }
  }

  get conversationId(): string {
    return this.id;
  }

  assign(conversationId: string): string {
    if (!ID_RE.test(conversationId))
      throw new AgentError(
        "invalid_argument",
        "conversation_id must be 1 to 64 letters, digits, '-' or '_', after a tenant's name and '.' for a tenant's conversation",
      );
    if (this.id === conversationId) return this.id;
    if (this.id) {
      throw new AgentError(
        "failed_precondition",
        `this agent serves conversation \`${this.id}\` and never another; start a new enclosure for \`${conversationId}\``,
      );
    }
    this.onFirst();
    this.id = conversationId;
    writeFileSync(join(this.stateRoot, FILE), `${conversationId}\n`, { mode: 0o600 });
    return this.id;
  }
}
