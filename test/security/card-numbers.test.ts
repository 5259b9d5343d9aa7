// Card numbers never repeat in a conversation: "allow on card #3" must name one card forever, across
// restarts, however many audit events came in between, and from a database an older version wrote.
// Real control planes restarted on one data folder, with real ask_user calls.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "@enclave/control-plane/config.js";
import { ControlPlane } from "@enclave/control-plane/control-plane.js";
import { until } from "../helpers/wait.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function dataDir(): string {
  const d = mkdtempSync(join(tmpdir(), "enclave-cardnum-"));
  dirs.push(d);
  return d;
}

/** Asks a question in `space` and answers it in-process; returns the card's number. */
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

describe("card numbers", () => {
  it("continue after a restart with more than 10,000 audit events since the last card", async () => {
    const dir = dataDir();
    const first = await ControlPlane.start(loadConfig({ dataDir: dir }));
    first.createConversation({ id: "busy" });
    expect(await askAndAnswer(first, "busy")).toBe(1);
    expect(await askAndAnswer(first, "busy")).toBe(2);
    // A busy conversation: many tool calls after the last card (more than one history window).
    for (let i = 0; i < 10_500; i++) {
      first.audit.record({
        kind: "tool_call",
        conversationId: "busy",
        runId: "r-x",
        tool: "read",
        tier: "read",
        outcome: "ok",
        origin: "model",
        detail: `#${i + 1} call`,
      });
    }
    await first.close();

    const second = await ControlPlane.start(loadConfig({ dataDir: dir }));
    try {
      expect(await askAndAnswer(second, "busy")).toBe(3);
      // The number is a column of the closed card's event, not a pattern in its text.
      const closed = second.audit.history("busy").filter((e) => e.kind === "card_closed");
      expect(closed.map((e) => e.cardNumber)).toEqual([3]);
    } finally {
      await second.close();
    }
  });

  it("continue after a card that was shown but never closed (the control plane died with it open)", async () => {
    const dir = dataDir();
    const first = await ControlPlane.start(loadConfig({ dataDir: dir }));
    first.createConversation({ id: "crashed" });
    expect(await askAndAnswer(first, "crashed")).toBe(1);
    const sub = first.questions.subscribe("crashed", () => undefined);
    const run = first.openRun({ approvalPolicy: "never", conversationId: "crashed", resources: ["questions"] });
    void first.callTool(run.id, "ask_user", JSON.stringify({ question: "Still there?" }));
    const open = await until(() => first.questions.list("crashed", false)[0], "the open card");
    expect(open.number).toBe(2);
    // The crash: the database is left as it is now, with nothing recorded about card #2 closing.
    first.audit.close();
    const second = await ControlPlane.start(loadConfig({ dataDir: dir }));
    try {
      expect(await askAndAnswer(second, "crashed")).toBe(3);
    } finally {
      sub.unsubscribe();
      await second.close();
      await first.close();
    }
  });

  it("continue from a database written by an older version (numbers only in the event text)", async () => {
    const dir = dataDir();
    mkdirSync(dir, { recursive: true });
    const old = new Database(join(dir, "audit.db"));
    old.exec(`CREATE TABLE audit_events (seq INTEGER PRIMARY KEY, time_ms INTEGER NOT NULL, conversation_id TEXT NOT NULL, kind TEXT NOT NULL, event_json TEXT NOT NULL);
CREATE INDEX audit_events_by_conversation ON audit_events (conversation_id, seq);`);
    const insert = old.prepare("INSERT INTO audit_events VALUES (?, ?, ?, ?, ?)");
    const now = Date.now();
    const event = (seq: number, kind: string, detail: string) =>
      insert.run(seq, now, "legacy", kind, JSON.stringify({ seq, timeMs: now, conversationId: "legacy", kind, detail, tool: "write", outcome: "answered" }));
    event(1, "conversation_created", "");
    event(2, "card_closed", "#41 permission: allow");
    event(3, "card_closed", "#7 question: yes");
    event(4, "tool_call", "#99 is not a card");
    old.close();

    const cp = await ControlPlane.start(loadConfig({ dataDir: dir }));
    try {
      cp.createConversation({ id: "legacy" });
      expect(cp.audit.history("legacy").find((e) => e.seq === 2)?.cardNumber).toBe(41);
      expect(await askAndAnswer(cp, "legacy")).toBe(42);
    } finally {
      await cp.close();
    }
  });
});
