// The audit log: every tool call (model or bridge), enclosure start/stop/death and conversation
// change, kept in an embedded SQLite database so it outlives the process (a security team reads it
// after the fact), and pushed to live subscribers.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import { dirname, join } from "node:path";
import Database from "better-sqlite3";
import type { AuditEvent } from "../../../proto/gen/enclave/control/v1/control.js";
import { LIMITS } from "../limits.js";

// The audit event is the API message itself: one shape from the database to subscribers.
export type { AuditEvent };

export type AuditInput = Partial<Omit<AuditEvent, "seq" | "timeMs">> & Pick<AuditEvent, "kind">;

/** Canonical JSON (sorted keys), so equal arguments always digest alike. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export function argumentsDigest(args: unknown): string {
  return `sha256:${createHash("sha256").update(canonical(args)).digest("hex")}`;
}

type Listener = (e: AuditEvent) => void;

export interface HistoryQuery {
  conversationId?: string;
  /** Only events after this sequence number. */
  afterSeq?: number;
  /** The newest this many (default LIMITS.auditHistoryEvents), oldest first. */
  limit?: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS audit_events (
  seq INTEGER PRIMARY KEY,
  time_ms INTEGER NOT NULL,
  conversation_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  event_json TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_events_by_conversation ON audit_events (conversation_id, seq);
`;

export class AuditLog {
  private readonly db: Database.Database;
  private readonly listeners = new Set<Listener>();
  private readonly insert: Database.Statement<[number, number, string, string, string]>;
  private seq: number;

  /** `file` is the database; a JSON-lines log left by an older version beside it is imported once. */
  constructor(readonly file: string) {
    mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    // WAL: subscribers' reads never wait on writes, and a crash loses at most the last event.
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = NORMAL");
    this.db.exec(SCHEMA);
    this.insert = this.db.prepare("INSERT INTO audit_events (seq, time_ms, conversation_id, kind, event_json) VALUES (?, ?, ?, ?, ?)");
    this.seq = (this.db.prepare("SELECT MAX(seq) AS seq FROM audit_events").get() as { seq: number | null }).seq ?? 0;
    this.importJsonLines(join(dirname(file), "audit.jsonl"));
  }

  private importJsonLines(legacy: string): void {
    if (!existsSync(legacy)) return;
    const events: AuditEvent[] = [];
    for (const line of readFileSync(legacy, "utf8").split("\n")) {
      try {
        if (line) events.push(JSON.parse(line) as AuditEvent);
      } catch {
        // A line cut by a crash: skip it, keep the rest.
      }
    }
    this.db.transaction(() => {
      for (const e of events) this.write({ ...e, seq: ++this.seq });
    })();
    renameSync(legacy, `${legacy}.imported`);
  }

  private write(e: AuditEvent): void {
    // A late event (an enclosure dying while the control plane shuts down) has nowhere to go.
    if (!this.db.open) return;
    this.insert.run(e.seq, e.timeMs, e.conversationId, e.kind, JSON.stringify(e));
  }

  record(input: AuditInput): AuditEvent {
    const event: AuditEvent = {
      seq: this.seq + 1,
      timeMs: Date.now(),
      conversationId: "",
      runId: "",
      tool: "",
      tier: "",
      argumentsDigest: "",
      outcome: "",
      durationMs: 0,
      origin: "",
      detail: "",
      placement: "",
      kernelId: "",
      ...input,
    };
    this.write(event);
    this.seq = event.seq;
    for (const l of this.listeners) l(event);
    return event;
  }

  /** Recorded events, oldest first: the newest `limit` of them that match. */
  history(query: HistoryQuery | string = {}): AuditEvent[] {
    const q: HistoryQuery = typeof query === "string" ? { conversationId: query } : query;
    const limit = Math.min(q.limit ?? LIMITS.auditHistoryEvents, LIMITS.auditHistoryEvents);
    const rows = this.db
      .prepare(
        `SELECT event_json FROM audit_events WHERE seq > ? ${q.conversationId ? "AND conversation_id = ?" : ""} ORDER BY seq DESC LIMIT ?`,
      )
      .all(...(q.conversationId ? [q.afterSeq ?? 0, q.conversationId, limit] : [q.afterSeq ?? 0, limit])) as { event_json: string }[];
    return rows.reverse().map((r) => JSON.parse(r.event_json) as AuditEvent);
  }

  /**
   * One page of a conversation's events (or everyone's) in seq order, for walking the whole log:
   * ascending after afterSeq, or with newestFirst descending before beforeSeq. At most `limit`.
   */
  page(q: { conversationId?: string; afterSeq?: number; beforeSeq?: number; limit: number; newestFirst?: boolean }): AuditEvent[] {
    const where = ["seq > ?", "seq < ?", ...(q.conversationId ? ["conversation_id = ?"] : [])].join(" AND ");
    const params: (string | number)[] = [q.afterSeq ?? 0, q.beforeSeq ?? Number.MAX_SAFE_INTEGER, ...(q.conversationId ? [q.conversationId] : [])];
    const limit = Math.max(1, Math.min(q.limit, LIMITS.auditHistoryEvents));
    const rows = this.db
      .prepare(`SELECT event_json FROM audit_events WHERE ${where} ORDER BY seq ${q.newestFirst ? "DESC" : "ASC"} LIMIT ?`)
      .all(...params, limit) as { event_json: string }[];
    return rows.map((r) => JSON.parse(r.event_json) as AuditEvent);
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    this.listeners.clear();
    if (this.db.open) this.db.close();
  }
}
