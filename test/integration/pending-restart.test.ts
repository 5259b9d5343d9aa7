// Staged changes outlive a restart of the control plane (a real process, killed with SIGKILL between
// staging and resolve): ast_edit's changes come back in their order and resolve as before, their
// hashes still checked against the files; a custom tool's change, whose apply is code that died with
// the process, is reported lost by resolve with `pending_action_lost`, naming it, then dropped.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { resultText, type ToolCallResult } from "@enclave/client/control-plane-client.js";
import { type ControlPlaneProcess, startControlPlaneProcess, stopControlPlaneProcess } from "../helpers/control-plane-process.js";

const dataDir = mkdtempSync(join(tmpdir(), "enclave-pending-restart-"));
const toolsDir = mkdtempSync(join(tmpdir(), "enclave-pending-tools-"));
writeFileSync(
  join(toolsDir, "stage-note.mjs"),
  `export default (pi) => ({
  name: "stage_note",
  label: "Stage note",
  tier: "write",
  stagesOnly: true,
  description: "Stages writing a note file.",
  parameters: pi.typebox.Type.Object({ name: pi.typebox.Type.String() }, { additionalProperties: false }),
  async execute(_id, args) {
    const id = pi.pushPendingAction({ label: "write note " + args.name, sourceToolName: "stage_note", apply: () => "written", reject: () => "dropped" });
    return { content: [{ type: "text", text: 'staged ' + id }] };
  },
});
`,
);
const env = { ENCLAVE_CUSTOM_TOOLS_DIR: toolsDir };
let cp: ControlPlaneProcess | undefined;

afterAll(async () => {
  if (cp) {
    await cp.client.deleteConversation("staged-restart").catch(() => undefined);
    await stopControlPlaneProcess(cp, "SIGTERM").catch(() => undefined);
  }
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(toolsDir, { recursive: true, force: true });
});

describe("staged changes across a restart of the control plane", () => {
  it("resolves ast_edit's changes after it, in their order, hashes checked; reports a custom tool's as lost", async () => {
    cp = await startControlPlaneProcess(dataDir, env);
    const workspace = (await cp.client.createConversation("staged-restart")).workspacePath;
    const runId = (await cp.client.openRun("staged-restart", { approvalPolicy: "never" })).id;
    const call = (tool: string, args: unknown): Promise<ToolCallResult> => (cp as ControlPlaneProcess).client.callTool(runId, tool, args);
    const ok = async (tool: string, args: unknown): Promise<ToolCallResult> => {
      const r = await call(tool, args);
      expect(r.isError, resultText(r)).toBe(false);
      return r;
    };
    for (const [path, content] of [
      ["a.py", "old(1)\nold(2)\n"],
      ["b.py", "old(3)\n"],
      ["c.py", "old(4)\n"],
    ]) {
      await ok("write", { path, content });
    }
    const idOf = (r: ToolCallResult): string => /(edit_\d+)/.exec(resultText(r))?.[1] ?? "";
    const a = idOf(await ok("ast_edit", { pattern: "old($A)", rewrite: "fresh($A)", path: "a.py" }));
    const note = idOf(await ok("stage_note", { name: "n.txt" }));
    const c = idOf(await ok("ast_edit", { pattern: "old($A)", rewrite: "fresh($A)", path: "c.py" }));
    const b = await ok("ast_edit", { pattern: "old($A)", rewrite: "fresh($A)", path: "b.py" });
    const order = [idOf(b), c, note, a];
    expect(b.pending.pendingIds).toEqual(order);
    const labels = b.pending.labels;

    cp.child.kill("SIGKILL");
    await cp.exited;
    // Another writer changes c.py while the control plane is down: its staged change must not apply.
    writeFileSync(join(workspace, "c.py"), "old(4)  # edited meanwhile\n");
    cp = await startControlPlaneProcess(dataDir, env);

    const run = (await cp.client.listRuns("staged-restart")).find((r) => r.id === runId);
    expect(run?.pendingActions).toBe(4);
    expect((await cp.client.listTools(runId)).requiredNextTool).toBe("resolve");
    const read = await ok("read", { path: "a.py" });
    expect(read.pending).toEqual({ requiredNextTool: "resolve", pendingIds: order, labels });
    expect(readFileSync(join(workspace, "a.py"), "utf8")).toBe("old(1)\nold(2)\n");

    // The top first, as before the restart.
    const top = await ok("resolve", { action: "apply", reason: "after the restart" });
    expect(resultText(top)).toContain(`Applied: ${labels[0]}`);
    expect(readFileSync(join(workspace, "b.py"), "utf8")).toBe("fresh(3)\n");

    const moved = await call("resolve", { edit_id: c, action: "apply" });
    expect(moved.errorCode, resultText(moved)).toBe("failed_precondition");
    expect(readFileSync(join(workspace, "c.py"), "utf8")).toBe("old(4)  # edited meanwhile\n");

    const lost = await call("resolve", { action: "apply" });
    expect(lost.errorCode, resultText(lost)).toBe("pending_action_lost");
    expect(resultText(lost)).toContain(note);
    expect(resultText(lost)).toContain("stage_note");
    expect(resultText(lost)).toContain("write note n.txt");
    expect(lost.pending.pendingIds).toEqual([a]);

    const applied = await ok("resolve", { action: "apply" });
    expect(resultText(applied)).toContain("fresh");
    expect(readFileSync(join(workspace, "a.py"), "utf8")).toBe("fresh(1)\nfresh(2)\n");
    expect(applied.pending.pendingIds).toEqual([]);
    expect(readFileSync(join(workspace, "c.py"), "utf8")).toBe("old(4)  # edited meanwhile\n");

    // Ids go on from where they were: a new change never takes an id the run was already given.
    const again = idOf(await ok("ast_edit", { pattern: "old($A)", rewrite: "new($A)", path: "c.py" }));
    expect(Number(again.slice(5))).toBeGreaterThan(Number(order[0]?.slice(5)));
    // A change discarded after a restart is forgotten there too: nothing comes back with the next one.
    await ok("resolve", { action: "discard" });
    await stopControlPlaneProcess(cp, "SIGTERM");
    cp = await startControlPlaneProcess(dataDir, env);
    expect((await cp.client.listTools(runId)).requiredNextTool).toBe("");
    // ... nor does an id: the run's ids go on across restarts, even with nothing pending at the time.
    const later = idOf(await ok("ast_edit", { pattern: "old($A)", rewrite: "new($A)", path: "c.py" }));
    expect(Number(later.slice(5))).toBeGreaterThan(Number(again.slice(5)));
  });
});
