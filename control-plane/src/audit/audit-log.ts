// The audit log: every tool call (model or bridge), enclosure start/stop/death and conversation
// change, kept in an embedded SQLite database so it outlives the process (a security team reads it
// after the fact), and pushed to live subscribers. An event is written to the journal first (one
// append, before a tool call's result goes out) and reaches the database in a group commit after.
import { IMPLICIT_TENANT } from "../tenants/implicit-tenant.js";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import { dirname, join } from "node:path";
import Database from "better-sqlite3";
import { AuditEvent } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { EnclaveError } from "../errors.js";
import { AuditJournal } from "./audit-journal.js";
import type { AuditKind } from "./audit-kinds.js";
import { LIMITS } from "../limits.js";
import { type AuditRetention, type PruneResult, pruneAudit } from "./audit-retention.js";
import { legacyCardNumber, prepareSchema, seedCardNumbers } from "./audit-schema.js";

// The audit event is the API message itself: one shape from the database to subscribers.
export { AuditEvent };

/** What a caller records: an event of one of the kinds in audit-kinds.ts. */
export type AuditInput = Partial<Omit<AuditEvent, "seq" | "timeMs" | "kind">> & { kind: AuditKind };

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

/** A stored event, with the fields an older version did not write set to their defaults. */
function fromRow(r: EventRow): AuditEvent {
  const e = AuditEvent.fromPartial(JSON.parse(r.event_json) as Partial<AuditEvent>);
  if (!e.cardNumber && r.card_number) e.cardNumber = r.card_number;
  if (!e.tenant && r.tenant) e.tenant = r.tenant;
  return e;
}

interface EventRow {
  event_json: string;
  card_number: number | null;
  tenant: string;
}

function formatAge(ms: number): string {
  const days = ms / 86_400_000;
  return days >= 1 ? `${Number(days.toFixed(2))} days` : `${Math.round(ms / 1000)} s`;
}

function formatBytes(n: number): string {
  return `${Number((n / 1024 ** 2).toFixed(2))} MiB`;
}

export interface HistoryQuery {
  conversationId?: string;
  /** Only this tenant's events (undefined: everyone's, an operator's view). */
  tenant?: string;
  /** Only events after this sequence number. */
  afterSeq?: number;
  /** The newest this many (default LIMITS.auditHistoryEvents), oldest first. */
  limit?: number;
}

export interface AuditLogOptions {
  /** What to keep; without it everything is kept. */
  retention?: AuditRetention;
  /** The tenant of a conversation, for events recorded without one; undefined when it is unknown. */
  tenantOf?: (conversationId: string) => string | undefined;
}

export class AuditLog {
  private readonly db: Database.Database;
  private readonly listeners = new Set<Listener>();
  /** Committed events the subscribers have not been told of yet (see notify). */
  private untold: AuditEvent[] = [];
  private readonly insert: Database.Statement<[number, number, string, string, string, number | null, string]>;
  private readonly tenantOf: (conversationId: string) => string | undefined;
  private readonly takeCardNumber: Database.Statement<[string]>;
  private readonly retention: AuditRetention | undefined;
  private pruneTimer: NodeJS.Timeout | undefined;
  private seq: number;
  private readonly begin: Database.Statement;
  private readonly commit: Database.Statement;
  private readonly rollback: Database.Statement;
  private readonly journal: AuditJournal;
  /** Events in the journal, not yet in the database. */
  private pending: Array<{ event: AuditEvent; json: string }> = [];
  private flushTimer: NodeJS.Timeout | undefined;
  /** Why the database refused the last flush, while it still does. */
  private dbFailure: Error | undefined;

  /**
   * `file` is the database; a JSON-lines log left by an older version beside it is imported once.
   * With a retention, events past it are pruned now and then every retention.pruneIntervalMs.
   */
  constructor(
    readonly file: string,
    opts: AuditLogOptions = {},
  ) {
    mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    // Only takes effect on a new database (before its first table): pruned space then goes back to
    // the file system instead of waiting on the free list.
    this.db.pragma("auto_vacuum = INCREMENTAL");
    // WAL: subscribers' reads never wait on writes, and a crash loses at most the last event.
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = NORMAL");
    prepareSchema(this.db);
    this.insert = this.db.prepare(
      "INSERT INTO audit_events (seq, time_ms, conversation_id, kind, event_json, card_number, tenant) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    this.tenantOf = opts.tenantOf ?? (() => undefined);
    this.takeCardNumber = this.db.prepare(
      "INSERT INTO card_numbers (conversation_id, last_number) VALUES (?, 1) ON CONFLICT (conversation_id) DO UPDATE SET last_number = last_number + 1 RETURNING last_number",
    );
    this.begin = this.db.prepare("BEGIN");
    this.commit = this.db.prepare("COMMIT");
    this.rollback = this.db.prepare("ROLLBACK");
    this.seq = (this.db.prepare("SELECT MAX(seq) AS seq FROM audit_events").get() as { seq: number | null }).seq ?? 0;
    this.journal = new AuditJournal(join(dirname(file), "audit-pending.jsonl"));
    this.replayJournal();
    this.importJsonLines(join(dirname(file), "audit.jsonl"));
    this.retention = opts.retention;
    if (this.retention) {
      this.prune();
      this.pruneTimer = setInterval(() => this.prunePeriodically(), this.retention.pruneIntervalMs);
      this.pruneTimer.unref();
    }
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
      for (const e of events) {
        const tenant = e.tenant || (e.conversationId ? IMPLICIT_TENANT : "");
        const event = { ...e, seq: ++this.seq, cardNumber: e.cardNumber || (legacyCardNumber(e.kind, e.detail) ?? 0), tenant };
        this.insertRow(event, JSON.stringify(event));
      }
      seedCardNumbers(this.db);
    })();
    renameSync(legacy, `${legacy}.imported`);
  }

  /** Events of the journal the database does not hold (the process stopped before their group commit). */
  private replayJournal(): void {
    const missed: AuditEvent[] = [];
    for (const line of this.journal.lines()) {
      const e = line as Partial<AuditEvent> | null;
      if (!e || typeof e !== "object" || typeof e.kind !== "string" || !Number.isSafeInteger(e.seq) || (e.seq ?? 0) <= this.seq) continue;
      missed.push(AuditEvent.fromPartial(e));
      this.seq = e.seq ?? this.seq;
    }
    if (missed.length > 0) this.db.transaction(() => missed.forEach((e) => this.insertRow(e, JSON.stringify(e))))();
    this.journal.clear();
  }

  private insertRow(e: AuditEvent, json: string): void {
    this.insert.run(e.seq, e.timeMs, e.conversationId, e.kind, json, e.cardNumber > 0 ? e.cardNumber : null, e.tenant ?? "");
  }

  /**
   * The next card number of a conversation, taken and stored in one statement: numbers continue
   * across restarts and crashes, whatever retention pruned since.
   */
  nextCardNumber(conversationId: string): number {
    if (!this.db.open) throw new EnclaveError("failed_precondition", "the control plane is shutting down; no card can be raised");
    return (this.takeCardNumber.get(conversationId) as { last_number: number }).last_number;
  }

  /** Deletes what the retention no longer keeps (also run at start and periodically); records what it did. */
  prune(): PruneResult {
    if (!this.retention || !this.db.open) return { deletedByAge: 0, deletedBySize: 0, bySizePerTenant: {} };
    this.flush();
    const retention = this.retention;
    const r = pruneAudit(this.db, retention, Date.now());
    // What was just pruned must not come back from the journal at the next start.
    if (this.pending.length === 0) this.journal.clear();
    if (r.deletedByAge > 0) this.record({ kind: "audit_pruned", detail: `retention deleted ${r.deletedByAge} older than ${formatAge(retention.maxAgeMs)}` });
    // One event per tenant that lost events for size, carrying that tenant: the tenant and operators see whose trail was cut and why.
    for (const [tenant, n] of Object.entries(r.bySizePerTenant)) {
      const whose = tenant ? ` of tenant \`${tenant}\`` : "";
      const why = [
        n.overBudget ? `${n.overBudget} oldest${whose} to stay under its ${formatBytes(retention.maxBytesPerTenant)}` : "",
        n.overTotal ? `${n.overTotal} oldest${whose} to stay under ${formatBytes(retention.maxBytes)}` : "",
      ].filter(Boolean);
      this.record({ kind: "audit_pruned", tenant, detail: `retention deleted ${why.join(" and ")}` });
    }
    return r;
  }

  /**
   * Records an event, in the database before this returns (with the events still waiting for their
   * group commit); throws when it could not be written.
   */
  record(input: AuditInput): AuditEvent {
    const event = this.stamp(input);
    // A late event (an enclosure dying while the control plane shuts down) has nowhere to go.
    if (!this.db.open) return event;
    this.enqueue(event);
    this.flush();
    this.notify([event], false);
    return event;
  }

  /**
   * Records an event in a group commit. The event is in the log once it is in the journal, before this
   * returns; the events recorded within LIMITS.auditFlushDelayMs reach the database together, in one
   * transaction (one write of the database's pages instead of one per event), after the calls'
   * results went out; a reader of this log sees them at once (it flushes first). `committed` rejects
   * when the event could not be written (a full disk): a caller that must not act before its event is
   * in the log (a tool call's result) waits for it. Subscribers hear of the event after this turn's
   * results are on their way.
   */
  recordCommitted(input: AuditInput): { event: AuditEvent; committed: Promise<void> } {
    const event = this.stamp(input);
    if (!this.db.open) return { event, committed: Promise.resolve() };
    try {
      this.enqueue(event);
    } catch (err) {
      return { event, committed: Promise.reject(err as Error) };
    }
    this.notify([event], true);
    if (!this.flushTimer) {
      this.flushTimer = setTimeout(() => {
        this.flushTimer = undefined;
        this.flush();
      }, LIMITS.auditFlushDelayMs);
      // The journal holds the events: a process that stops without closing the log replays them.
      this.flushTimer.unref();
    }
    return { event, committed: Promise.resolve() };
  }

  /** Writes the event to the journal and queues it for the database; throws when it could not be written. */
  private enqueue(event: AuditEvent): void {
    // Full: the database may take them now.
    if (this.pending.length >= LIMITS.auditUnflushedEventsMax) this.flush();
    if (this.pending.length >= LIMITS.auditUnflushedEventsMax) {
      throw new EnclaveError(
        "failed",
        `the audit database has not taken the last ${this.pending.length} events (${this.dbFailure?.message ?? "unknown failure"}); nothing more is recorded, so calls are refused until it does: check the control plane's data folder (free space, permissions)`,
      );
    }
    const json = JSON.stringify(event);
    try {
      this.journal.append(`${json}\n`);
    } catch (err) {
      throw new EnclaveError(
        "failed",
        `the audit journal ${this.journal.file} could not be written (${(err as Error).message}); the event is not in the log: check the control plane's data folder (free space, permissions)`,
      );
    }
    this.seq = event.seq;
    this.pending.push({ event, json });
  }

  /**
   * Moves the journal's pending events into the database in one transaction. When the database
   * refuses, the events stay pending (they are in the journal) and the next flush tries again.
   */
  private flush(): void {
    const batch = this.pending;
    if (batch.length === 0 || !this.db.open) return;
    try {
      this.begin.run();
      for (const p of batch) this.insertRow(p.event, p.json);
      this.commit.run();
    } catch (err) {
      try {
        if (this.db.inTransaction) this.rollback.run();
      } catch {
        // SQLite rolled the transaction back itself (a full disk).
      }
      this.dbFailure = err as Error;
      return;
    }
    this.pending = [];
    this.dbFailure = undefined;
    if (this.journal.bytes > LIMITS.auditJournalClearBytes) this.journal.clear();
  }

  /** Tells the subscribers of events, in the log's order: now, or (deferred, or behind events still
   * waiting to be told) once this turn's results are on their way. */
  private notify(events: AuditEvent[], defer: boolean): void {
    if (!defer && this.untold.length === 0) {
      for (const e of events) for (const l of this.listeners) l(e);
      return;
    }
    this.untold.push(...events);
    if (this.untold.length === events.length) setImmediate(() => this.tell());
  }

  private tell(): void {
    const events = this.untold;
    this.untold = [];
    for (const e of events) for (const l of this.listeners) l(e);
  }

  private stamp(input: AuditInput): AuditEvent {
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
      cardNumber: 0,
      tenant: "",
      ...input,
    };
    // Every event of a conversation carries its owner, whichever part of the control plane records it.
    if (!event.tenant && event.conversationId) event.tenant = this.tenantOf(event.conversationId) ?? "";
    return event;
  }

  /** Recorded events, oldest first: the newest `limit` of them that match. */
  history(query: HistoryQuery | string = {}): AuditEvent[] {
    this.flush();
    const q: HistoryQuery = typeof query === "string" ? { conversationId: query } : query;
    const limit = Math.min(q.limit ?? LIMITS.auditHistoryEvents, LIMITS.auditHistoryEvents);
    const where = ["seq > ?", ...(q.conversationId ? ["conversation_id = ?"] : []), ...(q.tenant !== undefined ? ["tenant = ?"] : [])].join(" AND ");
    const params: (string | number)[] = [q.afterSeq ?? 0, ...(q.conversationId ? [q.conversationId] : []), ...(q.tenant !== undefined ? [q.tenant] : [])];
    const rows = this.db
      .prepare(`SELECT event_json, card_number, tenant FROM audit_events WHERE ${where} ORDER BY seq DESC LIMIT ?`)
      .all(...params, limit) as EventRow[];
    return rows.reverse().map(fromRow);
  }

  /** The seq just before the oldest of what `history` would return (0 when that is everything), to page through it. */
  historyStart(q: Omit<HistoryQuery, "afterSeq" | "limit">): number {
    this.flush();
    const where = [...(q.conversationId ? ["conversation_id = ?"] : []), ...(q.tenant !== undefined ? ["tenant = ?"] : [])];
    const params: string[] = [...(q.conversationId ? [q.conversationId] : []), ...(q.tenant !== undefined ? [q.tenant] : [])];
    const row = this.db
      .prepare(`SELECT seq FROM audit_events ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY seq DESC LIMIT 1 OFFSET ?`)
      .get(...params, LIMITS.auditHistoryEvents) as { seq: number } | undefined;
    return row?.seq ?? 0;
  }

  /**
   * One page of a conversation's events (or everyone's) in seq order, for walking the whole log:
   * ascending after afterSeq, or with newestFirst descending before beforeSeq. At most `limit`.
   */
  page(q: { conversationId?: string; tenant?: string; afterSeq?: number; beforeSeq?: number; limit: number; newestFirst?: boolean }): AuditEvent[] {
    this.flush();
    const where = ["seq > ?", "seq < ?", ...(q.conversationId ? ["conversation_id = ?"] : []), ...(q.tenant !== undefined ? ["tenant = ?"] : [])].join(" AND ");
    const params: (string | number)[] = [
      q.afterSeq ?? 0,
      q.beforeSeq ?? Number.MAX_SAFE_INTEGER,
      ...(q.conversationId ? [q.conversationId] : []),
      ...(q.tenant !== undefined ? [q.tenant] : []),
    ];
    const limit = Math.max(1, Math.min(q.limit, LIMITS.auditHistoryEvents));
    const rows = this.db
      .prepare(`SELECT event_json, card_number, tenant FROM audit_events WHERE ${where} ORDER BY seq ${q.newestFirst ? "DESC" : "ASC"} LIMIT ?`)
      .all(...params, limit) as EventRow[];
    return rows.map(fromRow);
  }

  /** A failed pruning (a busy or full disk) must not take the control plane down: it is tried again next time. */
  private prunePeriodically(): void {
    try {
      this.prune();
    } catch (err) {
      try {
        this.record({ kind: "audit_pruned", outcome: "error:failed", detail: `retention could not prune: ${(err as Error).message}` });
      } catch {
        // The database itself is failing: nothing more to do here.
      }
    }
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.flush();
    this.tell();
    clearInterval(this.pruneTimer);
    this.listeners.clear();
    if (this.db.open) {
      // Everything is in the database: a clean stop leaves nothing to replay.
      if (this.pending.length === 0) this.journal.clear();
      this.journal.close();
      this.db.close();
    }
  }
}
