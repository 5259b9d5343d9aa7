// The audit log does not grow without bound: events past the retention age are deleted when the
// control plane starts and periodically while it runs, the oldest go when the database is over its
// size limit, and neither breaks sequence numbers or card numbers. Real control planes on real
// SQLite files; old events are made old by rewriting their time in the database itself.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { AuditLog } from "@enclave/control-plane/audit/audit-log.js";
import { usedBytes } from "@enclave/control-plane/audit/audit-retention.js";
import { type ControlPlaneConfig, loadConfig } from "@enclave/control-plane/config.js";
import { ControlPlane } from "@enclave/control-plane/control-plane.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";
import { until } from "../helpers/wait.js";

const DAY = 86_400_000;
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function dataDir(): string {
  const d = mkdtempSync(join(tmpdir(), "enclave-retention-"));
  dirs.push(d);
  return d;
}

function config(dir: string, adjust?: (c: ControlPlaneConfig) => void): ControlPlaneConfig {
  const c = loadConfig({ dataDir: dir });
  adjust?.(c);
  return c;
}

async function askAndAnswer(cp: ControlPlane, space: string): Promise<number> {
  const sub = cp.questions.subscribe(space, () => undefined);
  try {
    const run = cp.openRun({ approvalPolicy: "never", conversationId: space, resources: ["questions"] });
    const asking = cp.callTool(run.id, "ask_user", JSON.stringify({ question: "Proceed?" }));
    const card = await until(() => cp.questions.list(space, false)[0], "the card");
    cp.questions.answer(space, card.number, { selected: [], freeText: "yes", skip: false });
    expect((await asking).isError).toBe(false);
    cp.closeRun(run.id);
    return card.number;
  } finally {
    sub.unsubscribe();
  }
}

/** Moves events back in time, as if they had been recorded `ageMs` ago (a second connection, like another process). */
function age(file: string, ageMs: number, where = "1 = 1"): number {
  const db = new Database(file);
  try {
    const t = Date.now() - ageMs;
    return db.prepare(`UPDATE audit_events SET time_ms = ?, event_json = json_set(event_json, '$.timeMs', ?) WHERE ${where}`).run(t, t).changes;
  } finally {
    db.close();
  }
}

function count(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare("SELECT COUNT(*) AS n FROM audit_events").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe("audit retention", () => {
  it("has a default (90 days, 1024 MiB) read from the environment, where 0 turns a limit off", async () => {
    const saved = { days: process.env.ENCLAVE_AUDIT_RETENTION_DAYS, mib: process.env.ENCLAVE_AUDIT_MAX_MIB };
    try {
      delete process.env.ENCLAVE_AUDIT_RETENTION_DAYS;
      delete process.env.ENCLAVE_AUDIT_MAX_MIB;
      expect(loadConfig().auditRetention).toEqual({
        maxAgeMs: 90 * DAY,
        maxBytes: 1024 * 1024 ** 2,
        maxBytesPerTenant: 256 * 1024 ** 2,
        pruneIntervalMs: 3_600_000,
      });
      process.env.ENCLAVE_AUDIT_RETENTION_DAYS = "7.5";
      process.env.ENCLAVE_AUDIT_MAX_MIB = "0";
      expect(loadConfig().auditRetention).toMatchObject({ maxAgeMs: 7.5 * DAY, maxBytes: 0 });
      process.env.ENCLAVE_AUDIT_RETENTION_DAYS = "forever";
      // A configuration error carries no code (it stops the start): what it says is recorded.
      let refusal = "";
      expect(() => {
        try {
          loadConfig();
        } catch (err) {
          refusal = (err as Error).message;
          throw err;
        }
      }).toThrow();
      await expectTranscript(refusal, "transcripts/audit-retention/retention-days-refused.txt");
    } finally {
      for (const [k, v] of [
        ["ENCLAVE_AUDIT_RETENTION_DAYS", saved.days],
        ["ENCLAVE_AUDIT_MAX_MIB", saved.mib],
      ] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it("deletes events older than the retention at start, keeps sequence and card numbers going, and says what it deleted", async () => {
    const dir = dataDir();
    const file = join(dir, "audit.db");
    const first = await ControlPlane.start(config(dir));
    first.createConversation({ id: "old" });
    expect(await askAndAnswer(first, "old")).toBe(1);
    expect(await askAndAnswer(first, "old")).toBe(2);
    for (let i = 0; i < 50; i++) first.audit.record({ kind: "tool_call", conversationId: "old", tool: "read", outcome: "ok" });
    const lastSeq = first.audit.history().at(-1)?.seq ?? 0;
    await first.close();
    const total = count(file);
    expect(age(file, 100 * DAY)).toBe(total);

    const second = await ControlPlane.start(config(dir));
    try {
      const left = second.audit.history();
      // The newest event stays (so sequence numbers continue), then what the pruning did.
      expect(left.map((e) => e.seq)).toEqual([lastSeq, lastSeq + 1]);
      expect(left[1]).toMatchObject({ kind: "audit_pruned", detail: `retention deleted ${total - 1} older than 90 days` });
      // Every closed card is gone from the log, yet numbering goes on.
      expect(left.some((e) => e.kind === "card_closed")).toBe(false);
      expect(await askAndAnswer(second, "old")).toBe(3);
      expect(
        second.audit
          .history("old")
          .filter((e) => e.kind === "card_closed")
          .map((e) => e.cardNumber),
      ).toEqual([3]);
      // The next pruning takes the old event kept as the newest until then, and only it.
      const recent = second.audit.history().length - 1;
      expect(second.audit.prune()).toEqual({ deletedByAge: 1, deletedBySize: 0, bySizePerTenant: {} });
      expect(second.audit.history().filter((e) => e.seq !== lastSeq)).toHaveLength(recent + 1);
      expect(second.audit.history().every((e) => e.timeMs > Date.now() - DAY)).toBe(true);
    } finally {
      await second.close();
    }
  });

  it("deletes old events periodically while running", async () => {
    const dir = dataDir();
    const file = join(dir, "audit.db");
    const cp = await ControlPlane.start(
      config(dir, (c) => (c.auditRetention = { maxAgeMs: 7 * DAY, maxBytes: 0, maxBytesPerTenant: 0, pruneIntervalMs: 100 })),
    );
    try {
      cp.createConversation({ id: "periodic" });
      expect(await askAndAnswer(cp, "periodic")).toBe(1);
      for (let i = 0; i < 20; i++) cp.audit.record({ kind: "tool_call", conversationId: "periodic", tool: "read", outcome: "ok" });
      const recent = cp.audit.record({ kind: "tool_call", conversationId: "periodic", tool: "write", outcome: "ok" });
      // Everything but the newest event becomes eight days old while the control plane runs.
      expect(age(file, 8 * DAY, `seq < ${recent.seq}`)).toBeGreaterThan(20);
      const pruned = await until(() => cp.audit.history().find((e) => e.kind === "audit_pruned"), "the periodic pruning", 10_000);
      await expectTranscript(pruned.detail, "transcripts/audit-retention/pruned-detail.txt", [[/\bdeleted \d+ /g, "deleted <n> "]]);
      expect(cp.audit.history().map((e) => e.seq)).toEqual([recent.seq, pruned.seq]);
      expect(await askAndAnswer(cp, "periodic")).toBe(2);
    } finally {
      await cp.close();
    }
  });

  it("deletes the oldest events while the database is over its size limit", async () => {
    const dir = dataDir();
    const file = join(dir, "audit.db");
    const detail = "x".repeat(400);
    const log = new AuditLog(file);
    for (let i = 0; i < 6000; i++) log.record({ kind: "tool_call", conversationId: "big", tool: "read", outcome: "ok", detail });
    log.close();
    const maxBytes = 512 * 1024;
    const before = count(file);
    const cp = await ControlPlane.start(config(dir, (c) => (c.auditRetention = { maxAgeMs: 0, maxBytes, maxBytesPerTenant: 0, pruneIntervalMs: 3_600_000 })));
    try {
      const history = cp.audit.history();
      const pruned = history.at(-1);
      expect(pruned?.kind).toBe("audit_pruned");
      const deleted = Number(/^retention deleted (\d+) oldest to stay under 0.5 MiB$/.exec(pruned?.detail ?? "")?.[1]);
      expect(deleted).toBeGreaterThan(0);
      expect(count(file)).toBe(before - deleted + 1);
      // What is left is the newest events, in order, ending with the last one recorded.
      expect(history.at(-2)?.seq).toBe(6000);
      const seqs = history.map((e) => e.seq);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
      const db = new Database(file, { readonly: true });
      try {
        // Under the limit when pruning stopped; the pruning's own event may add a page.
        expect(usedBytes(db)).toBeLessThanOrEqual(maxBytes + 2 * (db.pragma("page_size", { simple: true }) as number));
      } finally {
        db.close();
      }
    } finally {
      await cp.close();
    }
  });
});
