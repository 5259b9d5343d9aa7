// The audit log outlives the control plane: events recorded before a restart are there after it,
// sequence numbers continue, and a JSON-lines log from an older version is imported once.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "@enclave/control-plane/config.js";
import { ControlPlane } from "@enclave/control-plane/control-plane.js";
import { until } from "../helpers/wait.js";

const dataDir = mkdtempSync(join(tmpdir(), "enclave-audit-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Asks a question in conversation `keep` and answers it in-process; returns the card's number. */
async function askAndAnswer(cp: ControlPlane): Promise<number> {
  const sub = cp.questions.subscribe("keep", () => undefined);
  try {
    const run = cp.openRun({ approvalPolicy: "never", conversationId: "keep", resources: ["questions"] });
    const asking = cp.callTool(run.id, "ask_user", JSON.stringify({ question: "Proceed?" }));
    const card = await until(() => cp.questions.list("keep", false)[0], "the card");
    cp.questions.answer("keep", card.number, { selected: [], freeText: "yes", skip: false });
    expect((await asking).isError).toBe(false);
    return card.number;
  } finally {
    sub.unsubscribe();
  }
}

describe("audit log", () => {
  it("persists across control-plane restarts and imports an older JSON-lines log", async () => {
    // A recent time: an event older than the default retention (90 days) would be pruned at start.
    writeFileSync(
      join(dataDir, "audit.jsonl"),
      `${JSON.stringify({ seq: 7, timeMs: Date.now() - 60_000, kind: "conversation_created", conversationId: "old" })}\n{"cut by a cr`,
    );
    const first = await ControlPlane.start(loadConfig({ dataDir }));
    expect(existsSync(join(dataDir, "audit.jsonl.imported"))).toBe(true);
    first.createConversation({ id: "keep" });
    const run = first.openRun({ approvalPolicy: "never", conversationId: "keep", resources: ["workspace"] });
    const call = await first.callTool(run.id, "write", JSON.stringify({ path: "a.txt", content: "x" }));
    expect(call.isError).toBe(false);
    const asked = await askAndAnswer(first);
    expect(asked).toBe(1);
    const before = first.audit.history("keep");
    await first.close();

    const second = await ControlPlane.start(loadConfig({ dataDir }));
    const after = second.audit.history("keep");
    expect(after).toEqual(before);
    const write = after.find((e) => e.kind === "tool_call");
    expect(write).toMatchObject({ tool: "write", tier: "write", outcome: "ok", origin: "model", runId: run.id });
    expect(write?.argumentsDigest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(second.audit.history("old").map((e) => e.kind)).toEqual(["conversation_created"]);
    const next = second.audit.record({ kind: "conversation_deleted", conversationId: "keep" });
    expect(next.seq).toBe(Math.max(...second.audit.history().map((e) => e.seq)));
    expect(next.seq).toBeGreaterThan(before[before.length - 1]?.seq ?? Infinity);
    expect(second.audit.history({ conversationId: "keep", afterSeq: write?.seq ?? 0 }).map((e) => e.kind)).toEqual([
      "card_closed",
      "tool_call",
      "conversation_deleted",
    ]);
    // Card numbers continue where the log left them instead of starting at 1 again.
    expect(await askAndAnswer(second)).toBe(2);
    await second.close();
  });
});
