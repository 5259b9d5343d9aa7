// Tool calls' audit events are committed in groups (one transaction per turn of the event loop), and
// a group is in the database, for any reader, before anyone waiting on it goes on; an event recorded
// the ordinary way commits the open group with it. Subscribers hear of events only once committed,
// in sequence order, and a group's only after its waiters went on (a log line or a metric is not what
// a tool call's caller waits for).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, expect, it } from "vitest";

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
import { type AuditEvent, AuditLog } from "../../control-plane/src/audit/audit-log.js";

let dir: string;
let log: AuditLog;
let reader: Database.Database;
const stored = (): number[] => (reader.prepare("SELECT seq FROM audit_events WHERE kind = 'tool_call' ORDER BY seq").all() as { seq: number }[]).map((r) => r.seq);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "enclave-audit-group-"));
  log = new AuditLog(join(dir, "audit.db"));
  // Another connection: it sees only what was committed.
  reader = new Database(join(dir, "audit.db"), { readonly: true });
});

afterEach(() => {
  reader.close();
  log.close();
  rmSync(dir, { recursive: true, force: true });
});

it("commits the events of one turn together, before their waiters go on, and tells subscribers after the waiters", async () => {
  const heard: AuditEvent[] = [];
  log.subscribe((e) => heard.push(e));
  const recorded = [1, 2, 3].map((n) => log.recordCommitted({ kind: "tool_call", conversationId: "c", tool: `t${n}` }));
  expect(stored()).toEqual([]);
  expect(heard).toEqual([]);
  await Promise.all(recorded.map((r) => r.committed));
  expect(stored()).toEqual(recorded.map((r) => r.event.seq));
  expect(heard).toEqual([]);
  await nextTurn();
  expect(heard.map((e) => e.tool)).toEqual(["t1", "t2", "t3"]);
  // The next turn's events are a group of their own.
  const next = log.recordCommitted({ kind: "tool_call", conversationId: "c", tool: "t4" });
  await next.committed;
  expect(stored()).toHaveLength(4);
});

it("an event recorded the ordinary way commits the open group with it, in sequence order", async () => {
  const heard: string[] = [];
  log.subscribe((e) => heard.push(e.kind));
  const grouped = log.recordCommitted({ kind: "tool_call", conversationId: "c", tool: "read" });
  const plain = log.record({ kind: "enclosure_died", conversationId: "c", detail: "gone" });
  expect(stored()).toEqual([grouped.event.seq]);
  expect(reader.prepare("SELECT COUNT(*) AS n FROM audit_events WHERE seq = ?").get(plain.seq)).toEqual({ n: 1 });
  // The plain event waits behind the group's, which subscribers hear of after its waiters.
  expect(heard).toEqual([]);
  await grouped.committed;
  await nextTurn();
  expect(heard).toEqual(["tool_call", "enclosure_died"]);
});

it("an event recorded the ordinary way with nothing untold is heard at once", () => {
  const heard: string[] = [];
  log.subscribe((e) => heard.push(e.kind));
  log.record({ kind: "enclosure_died", conversationId: "c", detail: "gone" });
  expect(heard).toEqual(["enclosure_died"]);
});

it("close commits an open group", async () => {
  const grouped = log.recordCommitted({ kind: "tool_call", conversationId: "c", tool: "read" });
  log.close();
  await grouped.committed;
  expect(stored()).toEqual([grouped.event.seq]);
});
