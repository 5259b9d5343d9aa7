// Tool calls' audit events are written to the audit journal before their waiters go on (the event is
// in the log: a crash replays it into the database at the next start), and reach the database
// together in one transaction shortly after, once the results went out; an event recorded the
// ordinary way commits the pending ones with it. Subscribers hear of events in sequence order, a
// tool call's only after its waiters went on (a log line or a metric is not what a tool call's
// caller waits for).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, expect, it } from "vitest";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";
import { LIMITS } from "@enclave/control-plane/limits.js";
import { until } from "../helpers/wait.js";

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
import { type AuditEvent, AuditLog } from "@enclave/control-plane/audit/audit-log.js";
import { thrown } from "@enclave/test-kit/transcript-log.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";

let dir: string;
let log: AuditLog;
let reader: Database.Database;
const stored = (): number[] =>
  (reader.prepare("SELECT seq FROM audit_events WHERE kind = 'tool_call' ORDER BY seq").all() as { seq: number }[]).map((r) => r.seq);
const journal = (): number[] =>
  readFileSync(join(dir, "audit-pending.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as AuditEvent).seq);

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

it("writes events to the journal before their waiters go on, commits them together after, and tells subscribers after the waiters", async () => {
  const heard: AuditEvent[] = [];
  log.subscribe((e) => heard.push(e));
  const recorded = [1, 2, 3].map((n) => log.recordCommitted({ kind: "tool_call", conversationId: "c", tool: `t${n}` }));
  expect(journal()).toEqual(recorded.map((r) => r.event.seq));
  await Promise.all(recorded.map((r) => r.committed));
  expect(stored()).toEqual([]);
  expect(heard).toEqual([]);
  await nextTurn();
  expect(heard.map((e) => e.tool)).toEqual(["t1", "t2", "t3"]);
  // A later call's event joins the same transaction.
  const later = log.recordCommitted({ kind: "tool_call", conversationId: "c", tool: "t4" });
  await later.committed;
  await until(() => stored().length === 4, "the group commit");
  expect(stored()).toEqual([...recorded, later].map((r) => r.event.seq));
  // A reader of this log sees an event at once.
  log.recordCommitted({ kind: "tool_call", conversationId: "c", tool: "t5" });
  expect(log.history({ conversationId: "c" }).map((e) => e.tool)).toEqual(["t1", "t2", "t3", "t4", "t5"]);
  expect(stored()).toHaveLength(5);
});

it("an event recorded the ordinary way commits the open group with it, in sequence order", async () => {
  const heard: string[] = [];
  log.subscribe((e) => heard.push(e.kind));
  const grouped = log.recordCommitted({ kind: "tool_call", conversationId: "c", tool: "read" });
  expect(stored()).toEqual([]);
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

it("events whose group commit a crash cut off are in the database after the next start, once", async () => {
  // A control plane killed right after its calls' results went out, before the turn's group commit.
  log.close();
  const script = `
    const { AuditLog } = await import(${JSON.stringify(join(repoRoot, "control-plane/dist/src/audit/audit-log.js"))});
    const log = new AuditLog(${JSON.stringify(join(dir, "audit.db"))});
    const r = [1, 2, 3].map((n) => log.recordCommitted({ kind: "tool_call", conversationId: "c", tool: "t" + n }));
    await Promise.all(r.map((x) => x.committed));
    process.kill(process.pid, "SIGKILL");`;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 30_000 });
  expect(child.signal, child.stderr).toBe("SIGKILL");
  const tools = (): string[] =>
    (reader.prepare("SELECT event_json FROM audit_events WHERE conversation_id = 'c' ORDER BY seq").all() as { event_json: string }[]).map(
      (r) => (JSON.parse(r.event_json) as AuditEvent).tool,
    );
  expect(tools()).toEqual([]);
  log = new AuditLog(join(dir, "audit.db"));
  expect(tools()).toEqual(["t1", "t2", "t3"]);
  expect(statSync(join(dir, "audit-pending.jsonl")).size).toBe(0);
  // Numbering goes on after them, and a second start replays nothing twice.
  const next = log.recordCommitted({ kind: "tool_call", conversationId: "c", tool: "t4" });
  await next.committed;
  log.close();
  log = new AuditLog(join(dir, "audit.db"));
  expect(tools()).toEqual(["t1", "t2", "t3", "t4"]);
  expect(next.event.seq).toBe(log.history({ conversationId: "c" }).at(-1)?.seq);
});

it("while the database refuses events they stay in the journal and go in once it takes them; past the bound nothing more is recorded", async () => {
  const heard: string[] = [];
  log.subscribe((e) => heard.push(e.tool));
  const writer = new Database(join(dir, "audit.db"));
  writer.exec("CREATE TRIGGER refuse BEFORE INSERT ON audit_events BEGIN SELECT RAISE(ABORT, 'the disk is gone'); END;");
  const first = log.recordCommitted({ kind: "tool_call", conversationId: "c", tool: "kept" });
  await first.committed;
  await new Promise((resolve) => setTimeout(resolve, 3 * LIMITS.auditFlushDelayMs));
  expect(stored()).toEqual([]);
  // In the log (the journal), so told; the database takes it later.
  expect(heard).toEqual(["kept"]);
  expect(journal()).toEqual([first.event.seq]);
  for (let i = 1; i < LIMITS.auditUnflushedEventsMax; i++) log.recordCommitted({ kind: "tool_call", conversationId: "c", tool: "more" });
  const refused = log.recordCommitted({ kind: "tool_call", conversationId: "c", tool: "refused" });
  await expect(refused.committed).rejects.toMatchObject({ code: "failed", message: expect.stringContaining("the disk is gone") });
  await expectTranscript(
    thrown(() => log.record({ kind: "enclosure_died", conversationId: "c" })),
    "transcripts/audit-group-commit/has-not-taken-the-last.txt",
  );
  writer.exec("DROP TRIGGER refuse");
  writer.close();
  const after = log.recordCommitted({ kind: "tool_call", conversationId: "c", tool: "after" });
  await after.committed;
  await until(() => stored().length === LIMITS.auditUnflushedEventsMax + 1, "the pending events to go in");
  await nextTurn();
  expect(heard[0]).toBe("kept");
  expect(heard.at(-1)).toBe("after");
  expect(heard).not.toContain("refused");
});
