// How long the audit log keeps events, and the pruning that enforces it: events older than the age
// limit go, then the oldest events until the database's used size is under the size limit. The
// newest event always stays, so sequence numbers continue after a restart; card numbers live in
// their own table and are never pruned.
import type Database from "better-sqlite3";

export interface AuditRetention {
  /** Events older than this are deleted; 0 keeps events of any age. */
  maxAgeMs: number;
  /** The oldest events are deleted while the database uses more than this; 0 for no size limit. */
  maxBytes: number;
  /** How often pruning runs after the one at start. */
  pruneIntervalMs: number;
}

export interface PruneResult {
  deletedByAge: number;
  deletedBySize: number;
}

/** Rows deleted per statement: keeps each write transaction short so recording is never held up long. */
const BATCH = 5000;

/** Bytes of pages in use (not on the free list): what the log occupies, whatever the file's size. */
export function usedBytes(db: Database.Database): number {
  const pageSize = db.pragma("page_size", { simple: true }) as number;
  const pages = db.pragma("page_count", { simple: true }) as number;
  const free = db.pragma("freelist_count", { simple: true }) as number;
  return (pages - free) * pageSize;
}

export function pruneAudit(db: Database.Database, retention: AuditRetention, nowMs: number): PruneResult {
  const result: PruneResult = { deletedByAge: 0, deletedBySize: 0 };
  const newest = "(SELECT MAX(seq) FROM audit_events)";
  if (retention.maxAgeMs > 0) {
    const byAge = db.prepare(`DELETE FROM audit_events WHERE seq IN (SELECT seq FROM audit_events WHERE time_ms < ? AND seq < ${newest} ORDER BY time_ms LIMIT ${BATCH})`);
    const cutoff = nowMs - retention.maxAgeMs;
    for (;;) {
      const n = byAge.run(cutoff).changes;
      result.deletedByAge += n;
      if (n < BATCH) break;
    }
  }
  if (retention.maxBytes > 0 && usedBytes(db) > retention.maxBytes) {
    const oldest = db.prepare(`DELETE FROM audit_events WHERE seq IN (SELECT seq FROM audit_events WHERE seq < ${newest} ORDER BY seq LIMIT ${BATCH})`);
    while (usedBytes(db) > retention.maxBytes) {
      const n = oldest.run().changes;
      result.deletedBySize += n;
      if (n === 0) break;
    }
  }
  // Gives freed pages back to the file system where the database allows it (created with
  // incremental auto-vacuum); otherwise they are reused by new events, so the file stops growing.
  if (result.deletedByAge + result.deletedBySize > 0) db.pragma("incremental_vacuum");
  return result;
}
