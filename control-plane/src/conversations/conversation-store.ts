// Conversations and what the control plane knows of their enclosures, kept in the state database
// (one row per conversation, the record whole as JSON, the enclosure record inside it) so a
// restarted control plane finds its conversations and reattaches to running enclosures. Reads come
// from memory; every change is written through in one transaction before the call returns.
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { EnclaveError } from "../errors.js";
import type { ConversationRecord } from "../model/conversation.js";
import { StateDb } from "../state/state-db.js";
import { IMPLICIT_TENANT, tenantOf } from "../tenants/implicit-tenant.js";
import { invalidConversationId, isConversationId, splitKey } from "./conversation-keys.js";

export { IMPLICIT_TENANT };

/**
 * The answer for an id that is not there, and for one that belongs to another tenant: one error,
 * so a caller cannot tell the two apart.
 */
export function noConversation(id: string): EnclaveError {
  return new EnclaveError("not_found", `no conversation \`${id}\`; create it first (\`enclave conversations create ${id}\`)`);
}

export class ConversationStore {
  private readonly conversations = new Map<string, ConversationRecord>();
  private readonly state: StateDb;
  /** Whether this store opened the database (and so closes it). */
  private readonly ownsState: boolean;
  private readonly upsert: Database.Statement<[string, string, number, string]>;
  private readonly remove: Database.Statement<[string]>;

  constructor(
    private readonly dataDir: string,
    state?: StateDb,
  ) {
    this.ownsState = !state;
    this.state = state ?? new StateDb(dataDir);
    const db = this.state.db;
    for (const row of db.prepare("SELECT record_json FROM conversations ORDER BY created_at_ms, id").all() as Array<{ record_json: string }>) {
      const c = JSON.parse(row.record_json) as ConversationRecord;
      // Recorded before tenants existed: those belong to the implicit one.
      if (!c.tenant) c.tenant = IMPLICIT_TENANT;
      this.conversations.set(c.id, c);
    }
    this.upsert = db.prepare(
      "INSERT INTO conversations (id, tenant, created_at_ms, record_json) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET tenant = excluded.tenant, created_at_ms = excluded.created_at_ms, record_json = excluded.record_json",
    );
    this.remove = db.prepare("DELETE FROM conversations WHERE id = ?");
  }

  newId(): string {
    return `c-${randomBytes(5).toString("hex")}`;
  }

  /** Checks a bare id (see conversation-keys.ts). */
  checkId(id: string): void {
    if (!isConversationId(id)) throw invalidConversationId(id);
  }

  /** By key (see conversation-keys.ts); the not_found names the bare id. */
  get(id: string): ConversationRecord {
    const c = this.conversations.get(id);
    if (!c) throw noConversation(splitKey(id).id);
    return c;
  }

  has(id: string): boolean {
    return this.conversations.has(id);
  }

  list(): ConversationRecord[] {
    return [...this.conversations.values()].sort((a, b) => a.createdAtMs - b.createdAtMs);
  }

  put(c: ConversationRecord): void {
    // Written first: a record the database refused is not served from memory either.
    this.write(c);
    this.conversations.set(c.id, c);
  }

  delete(id: string): void {
    if (this.state.db.open) this.remove.run(id);
    this.conversations.delete(id);
  }

  /** Writes every record as it is in memory now (records are changed in place, then put or saved). */
  save(): void {
    if (!this.state.db.open) return;
    this.state.db.transaction(() => {
      for (const c of this.conversations.values()) this.write(c);
    })();
  }

  private write(c: ConversationRecord): void {
    // A late change (an enclosure dying while the control plane shuts down) has nowhere to go; the
    // next start inspects every recorded enclosure anyway.
    if (!this.state.db.open) return;
    this.upsert.run(c.id, tenantOf(c), c.createdAtMs, JSON.stringify(c));
  }

  close(): void {
    if (this.ownsState) this.state.close();
  }

  /**
   * The folder the control plane makes for a new conversation's workspace (the record keeps it): the
   * implicit tenant's where they always were, another tenant's under a random name, so that a mount
   * table showing the folder (a bind mount shows its source) names neither tenant nor conversation.
   */
  workspaceFor(key: string): string {
    const { tenant, id } = splitKey(key);
    return tenant === IMPLICIT_TENANT ? join(this.dataDir, "workspaces", id) : join(this.dataDir, "tenant-workspaces", randomBytes(16).toString("hex"));
  }
}
