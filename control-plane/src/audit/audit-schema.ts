// The audit database's tables and their upgrades, tracked by SQLite's user_version:
// - audit_events: one row per event (the event as JSON), with the columns queries need (card_number
//   for closed cards, so numbering never reads event text);
// - card_numbers: the last card number taken per conversation, written when a card is raised, so a
//   card shown just before a crash, or closed cards pruned by retention, never let a number repeat.
// Version 2 adds audit_events.tenant: whose event it is, so a tenant's queries read only its own rows.
// Rows written before tenants existed belong to the implicit tenant ("local"), except the server's
// own events (no conversation), which belong to no tenant and are an operator's to read.
// Version 3: conversation ids became per tenant, so another tenant's events (and card counters) are
// re-keyed `<tenant>.<id>` (conversations/conversation-keys.ts); the implicit tenant's stay as they are.
// Version 4 adds audit_tenant_usage: the bytes and events each tenant's rows hold, kept by triggers, so
// retention prunes a tenant over its budget (or the largest one) without reading the whole log.
import type Database from "better-sqlite3";
import { conversationKey, KEY_SEPARATOR } from "../conversations/conversation-keys.js";
import { IMPLICIT_TENANT } from "../tenants/implicit-tenant.js";

const TABLES = `
CREATE TABLE IF NOT EXISTS audit_events (
  seq INTEGER PRIMARY KEY,
  time_ms INTEGER NOT NULL,
  conversation_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  event_json TEXT NOT NULL,
  card_number INTEGER
);
CREATE INDEX IF NOT EXISTS audit_events_by_conversation ON audit_events (conversation_id, seq);
CREATE INDEX IF NOT EXISTS audit_events_by_time ON audit_events (time_ms);
CREATE TABLE IF NOT EXISTS card_numbers (
  conversation_id TEXT PRIMARY KEY,
  last_number INTEGER NOT NULL
);
`;

const VERSION = 4;

/** What one row counts against its tenant's audit budget: the bytes of its event (ROW. is the row's alias). */
export const ROW_BYTES = "LENGTH(CAST(ROW.event_json AS BLOB))";

/** Version-0 databases kept a closed card's number only in its detail text ("#12 permission: allow"). */
export function legacyCardNumber(kind: string, detail: string | undefined): number | null {
  if (kind !== "card_closed") return null;
  const n = Number(/^#(\d+) /.exec(detail ?? "")?.[1] ?? NaN);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

/** Raises every conversation's counter to the highest closed card the log holds (never lowers one). */
export function seedCardNumbers(db: Database.Database): void {
  db.exec(`
INSERT INTO card_numbers (conversation_id, last_number)
  SELECT conversation_id, MAX(card_number) FROM audit_events WHERE card_number IS NOT NULL GROUP BY conversation_id
  ON CONFLICT (conversation_id) DO UPDATE SET last_number = MAX(last_number, excluded.last_number);
`);
}

/** Creates the tables of a new database, or brings an older one up to date (in one transaction). */
export function prepareSchema(db: Database.Database): void {
  db.transaction(() => {
    db.exec(TABLES);
    const version = db.pragma("user_version", { simple: true }) as number;
    if (version < 1) {
      const columns = (db.prepare("PRAGMA table_info(audit_events)").all() as { name: string }[]).map((c) => c.name);
      if (!columns.includes("card_number")) db.exec("ALTER TABLE audit_events ADD COLUMN card_number INTEGER");
      const rows = db.prepare("SELECT seq, event_json FROM audit_events WHERE kind = 'card_closed' AND card_number IS NULL").all() as {
        seq: number;
        event_json: string;
      }[];
      const set = db.prepare("UPDATE audit_events SET card_number = ? WHERE seq = ?");
      for (const r of rows) {
        let detail: string | undefined;
        try {
          detail = (JSON.parse(r.event_json) as { detail?: string }).detail;
        } catch {
          continue;
        }
        const n = legacyCardNumber("card_closed", detail);
        if (n !== null) set.run(n, r.seq);
      }
      seedCardNumbers(db);
    }
    if (version < 2) {
      const columns = (db.prepare("PRAGMA table_info(audit_events)").all() as { name: string }[]).map((c) => c.name);
      if (!columns.includes("tenant")) {
        db.exec("ALTER TABLE audit_events ADD COLUMN tenant TEXT NOT NULL DEFAULT ''");
        db.exec("UPDATE audit_events SET tenant = 'local' WHERE conversation_id != ''");
      }
      db.exec("CREATE INDEX IF NOT EXISTS audit_events_by_tenant ON audit_events (tenant, seq)");
    }
    if (version < 3) {
      const owned = db
        .prepare(
          "SELECT DISTINCT conversation_id, tenant FROM audit_events WHERE conversation_id != '' AND tenant NOT IN ('', ?) AND instr(conversation_id, ?) = 0",
        )
        .all(IMPLICIT_TENANT, KEY_SEPARATOR) as Array<{ conversation_id: string; tenant: string }>;
      const events = db.prepare(
        "UPDATE audit_events SET conversation_id = ?, event_json = json_set(event_json, '$.conversationId', ?) WHERE conversation_id = ? AND tenant = ?",
      );
      // Ids were global before: a counter under the bare id was that one tenant's.
      const counter = db.prepare(
        "INSERT INTO card_numbers (conversation_id, last_number) SELECT ?, last_number FROM card_numbers WHERE conversation_id = ? ON CONFLICT (conversation_id) DO UPDATE SET last_number = MAX(last_number, excluded.last_number)",
      );
      const dropCounter = db.prepare("DELETE FROM card_numbers WHERE conversation_id = ?");
      for (const { conversation_id: id, tenant } of owned) {
        const key = conversationKey(tenant, id);
        events.run(key, key, id, tenant);
        counter.run(key, id);
        dropCounter.run(id);
      }
    }
    if (version < 4) {
      db.exec(`
CREATE TABLE IF NOT EXISTS audit_tenant_usage (tenant TEXT PRIMARY KEY, bytes INTEGER NOT NULL, events INTEGER NOT NULL);
INSERT OR REPLACE INTO audit_tenant_usage (tenant, bytes, events)
  SELECT tenant, SUM(${ROW_BYTES.replace(/ROW\./g, "")}), COUNT(*) FROM audit_events GROUP BY tenant;
CREATE TRIGGER IF NOT EXISTS audit_usage_insert AFTER INSERT ON audit_events BEGIN
  INSERT INTO audit_tenant_usage (tenant, bytes, events) VALUES (NEW.tenant, ${ROW_BYTES.replace(/ROW\./g, "NEW.")}, 1)
    ON CONFLICT (tenant) DO UPDATE SET bytes = bytes + excluded.bytes, events = events + 1;
END;
CREATE TRIGGER IF NOT EXISTS audit_usage_delete AFTER DELETE ON audit_events BEGIN
  UPDATE audit_tenant_usage SET bytes = bytes - ${ROW_BYTES.replace(/ROW\./g, "OLD.")}, events = events - 1 WHERE tenant = OLD.tenant;
END;
CREATE TRIGGER IF NOT EXISTS audit_usage_update AFTER UPDATE OF event_json, tenant ON audit_events BEGIN
  UPDATE audit_tenant_usage SET bytes = bytes - ${ROW_BYTES.replace(/ROW\./g, "OLD.")}, events = events - 1 WHERE tenant = OLD.tenant;
  INSERT INTO audit_tenant_usage (tenant, bytes, events) VALUES (NEW.tenant, ${ROW_BYTES.replace(/ROW\./g, "NEW.")}, 1)
    ON CONFLICT (tenant) DO UPDATE SET bytes = bytes + excluded.bytes, events = events + 1;
END;
`);
    }
    if (version < VERSION) db.pragma(`user_version = ${VERSION}`);
  })();
}
