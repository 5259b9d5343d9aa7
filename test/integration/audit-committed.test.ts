// A tool call's result is returned only once its audit event is committed: another reader of the
// audit database (a security team's query) already sees it, for calls finishing together as for one
// alone, and for a refused call as for one that ran.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, expect, it } from "vitest";
import { loadConfig } from "../../control-plane/src/config.js";
import { ControlPlane } from "../../control-plane/src/control-plane.js";

const dataDir = mkdtempSync(join(tmpdir(), "enclave-audit-committed-"));
let cp: ControlPlane | undefined;
afterAll(async () => {
  await cp?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it("a call's audit event is in the database, for another connection, when its result comes back", async () => {
  cp = await ControlPlane.start(loadConfig({ dataDir }));
  cp.createConversation({ id: "committed" });
  const run = cp.openRun({ approvalPolicy: "never", conversationId: "committed", resources: ["workspace"] });
  const reader = new Database(cp.audit.file, { readonly: true });
  try {
    const count = (tool: string): number =>
      (reader.prepare("SELECT COUNT(*) AS n FROM audit_events WHERE kind = 'tool_call' AND json_extract(event_json, '$.tool') = ?").get(tool) as { n: number }).n;
    const first = await cp.callTool(run.id, "write", JSON.stringify({ path: "a.txt", content: "x" }));
    expect(first.isError).toBe(false);
    expect(count("write")).toBe(1);
    // Calls finishing in the same turn share a commit; each result still waits for it.
    let returned = 0;
    const stored = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const r = await (cp as ControlPlane).callTool(run.id, "read", JSON.stringify({ path: "a.txt" }));
        expect(r.isError).toBe(false);
        returned++;
        // Every result returned so far has its event stored.
        return count("read") >= returned;
      }),
    );
    expect(stored).toEqual(Array(8).fill(true));
    expect(count("read")).toBe(8);
    const refused = await cp.callTool(run.id, "read", JSON.stringify({ nope: 1 }));
    expect(refused.errorCode).toBe("invalid_arguments");
    expect(count("read")).toBe(9);
  } finally {
    reader.close();
  }
});
