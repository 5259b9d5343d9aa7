// The state database's schema, as numbered migrations applied in order, each once, each in its own
// transaction together with the row that records it: a crash between two leaves the database at the
// last one that committed, and the next start carries on from there.
// Records are stored whole as JSON beside the columns queries need, so a field another part adds to
// a record (a tenant, the engine an enclosure runs on) persists with no migration of its own.
import { IMPLICIT_TENANT, tenantOf } from "../tenants/implicit-tenant.js";
import { conversationKey, KEY_SEPARATOR } from "../conversations/conversation-keys.js";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type Database from "better-sqlite3";

export interface MigrationContext {
  dataDir: string;
  /** Files a migration has taken in, renamed aside only once its transaction committed. */
  imported: string[];
}

export interface Migration {
  version: number;
  name: string;
  up(db: Database.Database, ctx: MigrationContext): void;
}

/** What an older version kept in conversations.json: one record per conversation. */
interface LegacyConversation {
  id?: unknown;
  createdAtMs?: unknown;
  enclosure?: { runtime?: string };
  [key: string]: unknown;
}

function importConversationsJson(db: Database.Database, ctx: MigrationContext): void {
  const file = join(ctx.dataDir, "conversations.json");
  if (!existsSync(file)) return;
  // A file that does not parse is not guessed at: the start fails and says which file (see state-db.ts).
  const saved = JSON.parse(readFileSync(file, "utf8")) as unknown;
  if (!Array.isArray(saved)) throw new Error(`${file} does not hold a list of conversations`);
  const insert = db.prepare("INSERT OR IGNORE INTO conversations (id, tenant, created_at_ms, record_json) VALUES (?, ?, ?, ?)");
  for (const c of saved as LegacyConversation[]) {
    if (typeof c?.id !== "string") continue;
    // Recorded before enclosures named their runtime: those all ran under runc.
    if (c.enclosure && !c.enclosure.runtime) c.enclosure.runtime = "runc";
    const tenant = tenantOf(c);
    insert.run(c.id, tenant, typeof c.createdAtMs === "number" ? c.createdAtMs : 0, JSON.stringify(c));
  }
  ctx.imported.push(file);
}

/**
 * Conversation ids became per tenant: a row of a tenant other than the implicit one is re-keyed
 * `<tenant>.<id>` (see conversations/conversation-keys.ts), with its runs. Its workspace folder stays
 * where its record says; the implicit tenant's rows (every row of a control plane without tokens)
 * are left as they are.
 */
function conversationKeysPerTenant(db: Database.Database): void {
  const rekey = (tenant: string, id: string): string => (id.includes(KEY_SEPARATOR) ? id : conversationKey(tenant, id));
  const conversations = db.prepare("SELECT id, tenant, record_json FROM conversations WHERE tenant != ?").all(IMPLICIT_TENANT) as Array<{
    id: string;
    tenant: string;
    record_json: string;
  }>;
  const moveConversation = db.prepare("UPDATE conversations SET id = ?, record_json = ? WHERE id = ?");
  for (const row of conversations) {
    const key = rekey(row.tenant, row.id);
    if (key === row.id) continue;
    const record = JSON.parse(row.record_json) as { id?: string };
    record.id = key;
    moveConversation.run(key, JSON.stringify(record), row.id);
  }
  const runs = db.prepare("SELECT id, tenant, conversation_id, record_json FROM runs WHERE tenant != ?").all(IMPLICIT_TENANT) as Array<{
    id: string;
    tenant: string;
    conversation_id: string;
    record_json: string;
  }>;
  const moveRun = db.prepare("UPDATE runs SET conversation_id = ?, record_json = ? WHERE id = ?");
  for (const row of runs) {
    const record = JSON.parse(row.record_json) as { conversationId?: string; targetSpace?: string };
    const key = rekey(row.tenant, row.conversation_id);
    record.conversationId = key;
    if (record.targetSpace) record.targetSpace = rekey(row.tenant, record.targetSpace);
    moveRun.run(key, JSON.stringify(record), row.id);
  }
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "conversations and runs",
    up: (db) =>
      db.exec(`
CREATE TABLE conversations (
  id TEXT PRIMARY KEY,
  tenant TEXT NOT NULL DEFAULT 'local',
  created_at_ms INTEGER NOT NULL,
  record_json TEXT NOT NULL
);
CREATE INDEX conversations_by_tenant ON conversations (tenant, created_at_ms);
CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  tenant TEXT NOT NULL DEFAULT 'local',
  conversation_id TEXT NOT NULL,
  opened_at_ms INTEGER NOT NULL,
  record_json TEXT NOT NULL
);
CREATE INDEX runs_by_conversation ON runs (conversation_id);
CREATE INDEX runs_by_tenant ON runs (tenant);
`),
  },
  { version: 2, name: "import conversations.json", up: importConversationsJson },
  { version: 3, name: "conversation ids per tenant", up: conversationKeysPerTenant },
  {
    version: 4,
    name: "pending actions",
    // A run's staged changes awaiting resolve, in push order (seq), so they outlive a restart; and
    // the last seq each run gave, so an id is never given twice in a run, even once all are resolved.
    up: (db) =>
      db.exec(`
CREATE TABLE pending_actions (
  run_id TEXT NOT NULL,
  id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  record_json TEXT NOT NULL,
  PRIMARY KEY (run_id, id)
);
CREATE INDEX pending_actions_by_run ON pending_actions (run_id, seq);
CREATE TABLE pending_action_seqs (
  run_id TEXT PRIMARY KEY,
  last_seq INTEGER NOT NULL
);
`),
  },
  {
    version: 5,
    name: "paused tenants",
    // Tenants an operator paused (see tenants/tenant-pauses.ts): kept, so a restart does not let their calls in.
    up: (db) =>
      db.exec(`
CREATE TABLE paused_tenants (
  tenant TEXT PRIMARY KEY,
  paused_at_ms INTEGER NOT NULL,
  paused_by TEXT NOT NULL,
  reason TEXT NOT NULL
);
`),
  },
];
