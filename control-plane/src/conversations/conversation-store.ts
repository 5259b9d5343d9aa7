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

/** Where a page of conversations ended: the last one's place in the list's order. */
export interface ConversationCursor {
  createdAtMs: number;
  id: string;
}

/** The list's one order: by creation time, then key (stable, so pages followed in turn see each conversation once). */
function before(a: ConversationCursor, b: ConversationCursor): boolean {
  return a.createdAtMs < b.createdAtMs || (a.createdAtMs === b.createdAtMs && a.id < b.id);
}

export class ConversationStore {
  private readonly conversations = new Map<string, ConversationRecord>();
  /** Every record in the list's order, made again only after a conversation came or went (not on every list or page). */
  private sorted: ConversationRecord[] | undefined;
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
    return [...this.ordered()];
  }

  /**
   * Up to `size` of the conversations `visible` keeps, the first after `after` (from the start
   * without one), in the list's order; `more` when another visible one follows them.
   */
  page(after: ConversationCursor | undefined, size: number, visible: (c: ConversationRecord) => boolean): { page: ConversationRecord[]; more: boolean } {
    const all = this.ordered();
    let i = 0;
    if (after) {
      // The first record past the cursor, by bisection: the cursor's own record may be gone since.
      let hi = all.length;
      while (i < hi) {
        const mid = (i + hi) >>> 1;
        if (before(after, all[mid] as ConversationRecord)) hi = mid;
        else i = mid + 1;
      }
    }
    const page: ConversationRecord[] = [];
    for (; i < all.length; i++) {
      const c = all[i] as ConversationRecord;
      if (!visible(c)) continue;
      if (page.length === size) return { page, more: true };
      page.push(c);
    }
    return { page, more: false };
  }

  private ordered(): readonly ConversationRecord[] {
    this.sorted ??= [...this.conversations.values()].sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
    return this.sorted;
  }

  put(c: ConversationRecord): void {
    // Written first: a record the database refused is not served from memory either.
    this.write(c);
    // A record's creation time is never changed: only a new record (or a new object for one) moves the order.
    if (this.conversations.get(c.id) !== c) this.sorted = undefined;
    this.conversations.set(c.id, c);
  }

  delete(id: string): void {
    if (this.state.db.open) this.remove.run(id);
    if (this.conversations.delete(id)) this.sorted = undefined;
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
