// How long the audit log keeps events, and the pruning that enforces it: events older than the age
// limit go; then, per tenant, a tenant's oldest events while its events hold more than its budget;
// then, while the database still uses more than the size limit, the oldest events of whichever
// tenant holds the most. So one tenant's flood of calls prunes its own trail, never another's
// within its budget. The newest event always stays, so sequence numbers continue after a restart;
// card numbers live in their own table and are never pruned. Events of no tenant (the server's
// own) count as the tenant "".
import type Database from "better-sqlite3";
import { ROW_BYTES } from "./audit-schema.js";

export interface AuditRetention {
  /** Events older than this are deleted; 0 keeps events of any age. */
  maxAgeMs: number;
  /** The oldest events are deleted while the database uses more than this; 0 for no size limit. */
  maxBytes: number;
  /** Bytes of events one tenant may keep; past it that tenant's oldest go; 0 for no such budget. */
  maxBytesPerTenant: number;
  /** How often pruning runs after the one at start. */
  pruneIntervalMs: number;
}

export interface PruneResult {
  deletedByAge: number;
  deletedBySize: number;
  /** Events deleted for size, by tenant ("" for the server's own events); only tenants that lost some. */
  bySizePerTenant: Record<string, { overBudget: number; overTotal: number }>;
}

/** Rows deleted per statement: keeps each write transaction short so recording is never held up long. */
const BATCH = 5000;
/** Rows deleted per step while the whole database is over its limit (the size is looked at again after each). */
const TOTAL_STEP = 200;

/** Bytes of pages in use (not on the free list): what the log occupies, whatever the file's size. */
export function usedBytes(db: Database.Database): number {
  const pageSize = db.pragma("page_size", { simple: true }) as number;
  const pages = db.pragma("page_count", { simple: true }) as number;
  const free = db.pragma("freelist_count", { simple: true }) as number;
  return (pages - free) * pageSize;
}

/** What each tenant's events hold now. */
export function tenantUsage(db: Database.Database): { tenant: string; bytes: number; events: number }[] {
  return db.prepare("SELECT tenant, bytes, events FROM audit_tenant_usage WHERE events > 0 ORDER BY bytes DESC").all() as {
    tenant: string;
    bytes: number;
    events: number;
  }[];
}

/** Deletes the tenant's oldest events (never the newest of the log) until `bytes` of them are gone; returns how many went. */
function deleteOldestOf(db: Database.Database, tenant: string, bytes: number): number {
  const newest = (db.prepare("SELECT MAX(seq) AS seq FROM audit_events").get() as { seq: number | null }).seq ?? 0;
  const oldest = db.prepare(
    `SELECT seq, ${ROW_BYTES.replace(/ROW\./g, "")} AS n FROM audit_events WHERE tenant = ? AND seq > ? AND seq < ? ORDER BY seq LIMIT ${BATCH}`,
  );
  const remove = db.prepare("DELETE FROM audit_events WHERE tenant = ? AND seq > ? AND seq <= ?");
  let deleted = 0;
  let freed = 0;
  let after = 0;
  while (freed < bytes) {
    const rows = oldest.all(tenant, after, newest) as { seq: number; n: number }[];
    if (rows.length === 0) break;
    let upTo = after;
    for (const r of rows) {
      upTo = r.seq;
      freed += r.n;
      if (freed >= bytes) break;
    }
    deleted += remove.run(tenant, after, upTo).changes;
    after = upTo;
  }
  return deleted;
}

export function pruneAudit(db: Database.Database, retention: AuditRetention, nowMs: number): PruneResult {
  const result: PruneResult = { deletedByAge: 0, deletedBySize: 0, bySizePerTenant: {} };
  const counted = (tenant: string, how: "overBudget" | "overTotal", n: number): void => {
    if (n === 0) return;
    const t = (result.bySizePerTenant[tenant] ??= { overBudget: 0, overTotal: 0 });
    t[how] += n;
    result.deletedBySize += n;
  };
  const newest = "(SELECT MAX(seq) FROM audit_events)";
  if (retention.maxAgeMs > 0) {
    const byAge = db.prepare(
      `DELETE FROM audit_events WHERE seq IN (SELECT seq FROM audit_events WHERE time_ms < ? AND seq < ${newest} ORDER BY time_ms LIMIT ${BATCH})`,
    );
    const cutoff = nowMs - retention.maxAgeMs;
    for (;;) {
      const n = byAge.run(cutoff).changes;
      result.deletedByAge += n;
      if (n < BATCH) break;
    }
  }
  if (retention.maxBytesPerTenant > 0) {
    for (const u of tenantUsage(db)) {
      if (u.bytes > retention.maxBytesPerTenant) counted(u.tenant, "overBudget", deleteOldestOf(db, u.tenant, u.bytes - retention.maxBytesPerTenant));
    }
  }
  if (retention.maxBytes > 0) {
    while (usedBytes(db) > retention.maxBytes) {
      const largest = tenantUsage(db)[0];
      if (!largest) break;
      // A step's worth of the largest tenant's oldest events, by their average size.
      const n = deleteOldestOf(db, largest.tenant, Math.ceil((largest.bytes / Math.max(1, largest.events)) * TOTAL_STEP));
      if (n === 0) break;
      counted(largest.tenant, "overTotal", n);
    }
  }
  // Gives freed pages back to the file system where the database allows it (created with
  // incremental auto-vacuum); otherwise they are reused by new events, so the file stops growing.
  if (result.deletedByAge + result.deletedBySize > 0) db.pragma("incremental_vacuum");
  return result;
}
