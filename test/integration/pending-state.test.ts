// Every tool result carries the run's pending state (the tool it must call next and the staged
// changes, most recent first), so a harness steers its model to `resolve` from the result it already
// has. By default reads and staging tools still run while a change is pending and write and exec
// tools are refused; a run opened with strictResolve refuses every tool but resolve. Through the
// Node client against a real control plane, host placement.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText, type ToolCallResult } from "@enclave/client/control-plane-client.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture();
});
afterAll(async () => {
  await fx?.close();
});

const NOTHING = { requiredNextTool: "", pendingIds: [], labels: [] };

async function ok(runId: string, tool: string, args: unknown): Promise<ToolCallResult> {
  const r = await fx.client.callTool(runId, tool, args);
  expect(r.isError, resultText(r)).toBe(false);
  return r;
}

/** Stages one rewrite of `old(...)` in the file and answers its edit id. */
async function stage(runId: string, path: string): Promise<{ staged: ToolCallResult; id: string }> {
  const staged = await ok(runId, "ast_edit", { pattern: "old($A)", rewrite: "fresh($A)", path });
  const id = /edit_id "(edit_\d+)"/.exec(resultText(staged))?.[1] ?? "";
  expect(id).not.toBe("");
  return { staged, id };
}

describe("the pending state on every tool result", () => {
  it("names resolve and the staged ids; reads run and carry it, exec is refused and carries it, resolve empties it", async () => {
    const workspace = (await fx.client.createConversation("pending-default")).workspacePath;
    const runId = (await fx.client.openRun("pending-default", { approvalPolicy: "never" })).id;
    const written = await ok(runId, "write", { path: "a.py", content: "old(1)\nold(2)\n" });
    expect(written.pending).toEqual(NOTHING);

    const first = await stage(runId, "a.py");
    expect(first.staged.pending).toMatchObject({ requiredNextTool: "resolve", pendingIds: [first.id] });
    expect(first.staged.pending.labels[0]).toContain("ast_edit");
    const read = await ok(runId, "read", { path: "a.py" });
    expect(resultText(read)).toContain("old(1)");
    expect(read.pending).toMatchObject({ requiredNextTool: "resolve", pendingIds: [first.id] });

    const refused = await fx.client.callTool(runId, "exec", { command: "true" });
    expect(refused.isError).toBe(true);
    expect(refused.errorCode).toBe("failed_precondition");
    expect(refused.pending).toMatchObject({ requiredNextTool: "resolve", pendingIds: [first.id] });

    const applied = await ok(runId, "resolve", { edit_id: first.id, action: "apply", reason: "go" });
    expect(applied.pending).toEqual(NOTHING);
    expect(readFileSync(join(workspace, "a.py"), "utf8")).toBe("fresh(1)\nfresh(2)\n");
    expect((await ok(runId, "exec", { command: "true" })).pending).toEqual(NOTHING);
  });

  it("lists several staged changes most recent first", async () => {
    await fx.client.createConversation("pending-order");
    const runId = (await fx.client.openRun("pending-order", { approvalPolicy: "never" })).id;
    await ok(runId, "write", { path: "a.py", content: "old(1)\n" });
    await ok(runId, "write", { path: "b.py", content: "old(2)\n" });
    const a = await stage(runId, "a.py");
    const b = await stage(runId, "b.py");
    expect(b.staged.pending.pendingIds).toEqual([b.id, a.id]);
    expect(b.staged.pending.labels).toHaveLength(2);
    const discarded = await ok(runId, "resolve", { action: "discard" });
    expect(discarded.pending.pendingIds).toEqual([a.id]);
  });

  it("with strictResolve, refuses every tool but resolve while a change is pending, reads and staging tools too", async () => {
    const workspace = (await fx.client.createConversation("pending-strict")).workspacePath;
    const run = await fx.client.openRun("pending-strict", { approvalPolicy: "never", strictResolve: true });
    expect(run.strictResolve).toBe(true);
    const runId = run.id;
    await ok(runId, "write", { path: "a.py", content: "old(1)\n" });
    // Nothing pending: strict mode refuses nothing.
    expect((await ok(runId, "read", { path: "a.py" })).pending).toEqual(NOTHING);
    const { id } = await stage(runId, "a.py");

    for (const [tool, args] of [
      ["read", { path: "a.py" }],
      ["ast_grep", { pattern: "old($A)", path: "a.py" }],
      ["ast_edit", { pattern: "old($A)", rewrite: "other($A)", path: "a.py" }],
      ["exec", { command: "true" }],
    ] as const) {
      const r = await fx.client.callTool(runId, tool, args);
      expect(r.errorCode, `${tool}: ${resultText(r)}`).toBe("failed_precondition");
      expect(resultText(r)).toContain(id);
      expect(r.pending).toMatchObject({ requiredNextTool: "resolve", pendingIds: [id] });
    }

    const applied = await ok(runId, "resolve", { action: "apply", reason: "strict" });
    expect(applied.pending).toEqual(NOTHING);
    expect(readFileSync(join(workspace, "a.py"), "utf8")).toBe("fresh(1)\n");
    expect(resultText(await ok(runId, "read", { path: "a.py" }))).toContain("fresh(1)");
  });
});
