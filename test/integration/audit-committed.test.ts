// A tool call's result is returned only once its audit event is in the log: written to the audit
// journal (replayed into the database after a crash), for calls finishing together as for one alone,
// and for a refused call as for one that ran; another reader of the audit database (a security
// team's query) sees it once the group commit ran, shortly after the results went out.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, expect, it } from "vitest";
import { loadConfig } from "@enclave/control-plane/config.js";
import { ControlPlane } from "@enclave/control-plane/control-plane.js";
import { until } from "../helpers/wait.js";

const dataDir = mkdtempSync(join(tmpdir(), "enclave-audit-committed-"));
let cp: ControlPlane | undefined;
afterAll(async () => {
  await cp?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it("a call's audit event is in the journal when its result comes back, and in the database for another connection shortly after", async () => {
  cp = await ControlPlane.start(loadConfig({ dataDir }));
  cp.createConversation({ id: "committed" });
  const run = cp.openRun({ approvalPolicy: "never", conversationId: "committed", resources: ["workspace"] });
  const reader = new Database(cp.audit.file, { readonly: true });
  try {
    const stored = (tool: string): number =>
      (reader.prepare("SELECT COUNT(*) AS n FROM audit_events WHERE kind = 'tool_call' AND json_extract(event_json, '$.tool') = ?").get(tool) as { n: number })
        .n;
    // The journal is emptied only once it is large: here it holds every event since the start.
    const journaled = (tool: string): number =>
      readFileSync(join(dataDir, "audit-pending.jsonl"), "utf8")
        .split("\n")
        .filter((l) => l && (JSON.parse(l) as { kind: string; tool: string }).kind === "tool_call" && (JSON.parse(l) as { tool: string }).tool === tool).length;
    const count = (tool: string): number => Math.max(journaled(tool), stored(tool));
    const first = await cp.callTool(run.id, "write", JSON.stringify({ path: "a.txt", content: "x" }));
    expect(first.isError).toBe(false);
    expect(journaled("write")).toBe(1);
    await until(() => stored("write") === 1, "the group commit");
    // Calls finishing in the same turn share a commit; each result still waits for it.
    let returned = 0;
    const inLog = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const r = await (cp as ControlPlane).callTool(run.id, "read", JSON.stringify({ path: "a.txt" }));
        expect(r.isError).toBe(false);
        returned++;
        // Every result returned so far has its event stored.
        return count("read") >= returned;
      }),
    );
    expect(inLog).toEqual(Array(8).fill(true));
    expect(journaled("read")).toBe(8);
    const refused = await cp.callTool(run.id, "read", JSON.stringify({ nope: 1 }));
    expect(refused.errorCode).toBe("invalid_arguments");
    expect(journaled("read")).toBe(9);
    await until(() => stored("read") === 9, "the group commit");
  } finally {
    reader.close();
  }
});
