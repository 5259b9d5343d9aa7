// Custom tools in the factory form docs/tools/custom-tools.md shows, and resolve applying or discarding what they
// stage, through the gRPC API of a real control plane on host placement. The document's example (to
// the letter, its type import included), the same extended to push two actions in one call, and
// tools of other tiers and result shapes are loaded at start beside modules that are broken on
// purpose, then driven through resolve apply and discard.
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import type { ToolResult } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { type Mask, expectTranscript } from "@enclave/test-kit/transcript.js";

const FIXTURE = join(import.meta.dirname, "..", "fixtures", "custom-tools", "batch-rename-preview.ts");
const OUR_IMPORT = 'import type { CustomToolFactory } from "enclave/custom-tools";';
const SEED_IMPORT = 'import type { CustomToolFactory } from "@f5-sales-demo/xcsh";';
// The same example, extended to push one pending action per file (two files: two in one call).
const FIXTURE_EACH = join(import.meta.dirname, "..", "fixtures", "custom-tools", "batch-rename-each.ts");
const PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

// Documented-form tools covering what the example does not: image parts, onUpdate, plain-string and
// undefined results from apply/reject, results that are not results at all, a declared read tier.
const MORE_TOOLS = `
export default (pi) => [
  {
    name: "snapshot", label: "Snapshot", tier: "read", description: "returns text and an image",
    parameters: pi.typebox.Type.Object({ note: pi.typebox.Type.Optional(pi.typebox.Type.String()) }),
    async execute(id, params, signal, onUpdate) {
      onUpdate?.({ content: [{ type: "text", text: "rendering" }] });
      setTimeout(() => onUpdate?.({ content: [{ type: "text", text: "too late" }] }), 20);
      return { content: [{ type: "text", text: "call " + (id.startsWith("call_") ? "ok" : id) + " " + (params.note ?? "") }, { type: "image", data: "${PNG_1X1}", mimeType: "image/png" }], details: { big: true } };
    },
  },
  {
    name: "stage_plain", label: "Stage plain", stagesOnly: true, description: "stages actions whose apply/reject return other shapes",
    parameters: pi.typebox.Type.Object({ kind: pi.typebox.Type.String() }),
    async execute(_id, { kind }) {
      const label = "plain " + kind;
      if (kind === "string") pi.pushPendingAction({ label, apply: async (r) => "did it: " + r, reject: async () => undefined });
      if (kind === "noreject") pi.pushPendingAction({ label, apply: () => ({ content: [] }) });
      if (kind === "object") pi.pushPendingAction({ label, apply: async () => ({ ok: true }), reject: async () => ({ content: [{ type: "text" }] }) });
      return { content: [{ type: "text", text: "staged " + label }] };
    },
  },
  {
    name: "preview_only", label: "Preview only", tier: "write", stagesOnly: true, description: "stages a stateless preview, without reject",
    parameters: pi.typebox.Type.Object({ what: pi.typebox.Type.String() }),
    async execute(_id, { what }) {
      pi.pushPendingAction({ label: "preview " + what, apply: async () => "applied " + what });
      return { content: [{ type: "text", text: "previewed " + what }] };
    },
  },
  {
    name: "bad_result", label: "Bad", tier: "read", description: "returns a non-result",
    parameters: { type: "object", properties: {}, additionalProperties: false },
    execute: () => 42,
  },
];
`;

const BROKEN: Record<string, string> = {
  "a-syntax.ts": "export default (pi => ({;\n",
  "b-no-factory.mjs": "export const x = 1;\n",
  "c-no-execute.mjs": `export default (pi) => ({ name: "half", label: "Half", description: "d", parameters: pi.typebox.Type.Object({}) });\n`,
  "d-throws.mjs": `export default () => { throw new Error("no licence key"); };\n`,
  "e-clash.mjs": `export default (pi) => ({ name: "write", label: "W", description: "d", parameters: pi.typebox.Type.Object({}), execute: () => ({ content: [] }) });\n`,
  "f-bad-schema.mjs": `export default () => ({ name: "odd", label: "Odd", description: "d", parameters: { type: "object", properties: { n: { type: "numbr" } } }, execute: () => ({ content: [] }) });\n`,
};

let fx: Fixture;
let toolsDir: string;
let runId = "";
const conv = "custom-resolve";

// Pending-action ids count per control plane.
const MASKS: Mask[] = [[/\bedit_\d+\b/g, "edit_<n>"]];

/** Compares an answer with the recorded one in transcripts/custom-tools-resolve/<name>.txt. */
async function transcript(text: string, name: string): Promise<void> {
  await expectTranscript(text, `transcripts/custom-tools-resolve/${name}.txt`, MASKS);
}

async function call(tool: string, args: unknown, run = runId): Promise<ToolResult> {
  return fx.client.callTool(run, tool, args);
}
async function ok(tool: string, args: unknown, run = runId): Promise<string> {
  const r = await call(tool, args, run);
  expect(r.isError, resultText(r)).toBe(false);
  return resultText(r);
}
async function names(run = runId): Promise<string[]> {
  return (await fx.client.listTools(run)).tools.map((t) => t.name);
}

beforeAll(async () => {
  toolsDir = mkdtempSync(join(tmpdir(), "enclave-custom-tools-"));
  // The folder gets the document's text to the letter, its own type import included: the import is
  // type-only, so the loader erases it (the fixture in the repo imports Enclave's types, for tsc).
  writeFileSync(join(toolsDir, "batch-rename-preview.ts"), readFileSync(FIXTURE, "utf8").replace(OUR_IMPORT, SEED_IMPORT));
  cpSync(FIXTURE_EACH, join(toolsDir, "batch-rename-each.ts"));
  writeFileSync(join(toolsDir, "more.mjs"), MORE_TOOLS);
  for (const [file, body] of Object.entries(BROKEN)) writeFileSync(join(toolsDir, file), body);
  fx = await startFixture((c) => {
    c.customToolsDir = toolsDir;
  });
  await fx.client.createConversation(conv);
  runId = (await fx.client.openRun(conv, { approvalPolicy: "never" })).id;
});
afterAll(async () => {
  await fx?.close();
  rmSync(toolsDir, { recursive: true, force: true });
});

describe("custom tools in the documented form", () => {
  it("loads the document's example verbatim, its type import of another package included", async () => {
    const ours = readFileSync(FIXTURE, "utf8");
    expect(ours.split("\n")[0]).toBe(OUR_IMPORT);
    expect(ours).toContain("const factory: CustomToolFactory = pi => ({");
    const loaded = readFileSync(join(toolsDir, "batch-rename-preview.ts"), "utf8");
    expect(loaded.split("\n")[0]).toBe(SEED_IMPORT);
    // The one-line change the docs show is the only difference.
    expect(loaded.replace(SEED_IMPORT, OUR_IMPORT)).toBe(ours);
    expect(await names()).toContain("batch_rename_preview");
  });

  it("lists the example with its TypeBox schema as given and the default tier", async () => {
    const tool = (await fx.client.listTools(runId)).tools.find((t) => t.name === "batch_rename_preview");
    expect(tool?.tier).toBe("exec");
    expect(tool?.description).toBe("Previews renames and defers commit to resolve");
    expect(JSON.parse(tool?.inputSchemaJson ?? "{}")).toEqual({
      type: "object",
      properties: { files: { type: "array", items: { type: "string" } } },
      required: ["files"],
    });
    const plan = (await fx.client.openRun(conv, { surface: "plan" })).id;
    expect(await names(plan)).not.toContain("batch_rename_preview");
    expect(await names(plan)).toContain("snapshot");
  });

  it("validates arguments against the JSON Schema", async () => {
    const wrong = await call("batch_rename_preview", { files: ["a", 2] });
    expect(wrong.errorCode).toBe("invalid_arguments");
    const missing = await call("batch_rename_preview", {});
    expect(missing.errorCode).toBe("invalid_arguments");
    const extra = await call("bad_result", { x: 1 });
    expect(extra.errorCode).toBe("invalid_arguments");
    // One code for three faults: the recorded texts name the field and what is wrong with it.
    await transcript([wrong, missing, extra].map((r) => resultText(r)).join("\n"), "argument-errors");
  });

  it("passes text and image parts to the harness as CallTool parts, and onUpdate as progress", async () => {
    const progress: string[] = [];
    const r = await fx.client.callTool(runId, "snapshot", { note: "n" }, (e) => {
      if (e.event?.$case === "progress") progress.push(e.event.value);
    });
    expect(r.isError).toBe(false);
    expect(r.parts.map((p) => p.part?.$case)).toEqual(["text", "image"]);
    expect(resultText(r)).toBe("call ok n\n[image image/png, 70 bytes]");
    const img = r.parts[1]?.part;
    expect(img?.$case === "image" && img.value.data.subarray(1, 4).toString()).toBe("PNG");
    expect(progress).toContain("rendering");
    // An update sent after the answer goes nowhere and harms nothing.
    await new Promise((r) => setTimeout(r, 100));
    expect(progress).not.toContain("too late");
    expect((await call("snapshot", {})).isError).toBe(false);
  });

  it("answers a clear error for an execute that returns no AgentToolResult", async () => {
    const r = await call("bad_result", {});
    expect(r.isError).toBe(true);
    expect(r.errorCode).toBe("failed");
    await transcript(`${r.errorCode}: ${resultText(r)}`, "execute-returned-a-number");
  });

  it("skips broken modules by name with the reason, and still starts", async () => {
    const res = await fx.client.listTools(runId);
    const failures = Object.fromEntries(res.customToolFailures.map((f) => [f.file, f.reason]));
    expect(Object.keys(failures).sort()).toEqual(Object.keys(BROKEN).sort());
    // d-throws.mjs's reason is the module's own error ("no licence key"), passed on as it is.
    expect(failures["d-throws.mjs"]).toBe("no licence key");
    await transcript(
      Object.entries(failures)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([file, why]) => `${file}: ${why}`)
        .join("\n"),
      "module-failures",
    );
    expect(res.tools.map((t) => t.name)).not.toContain("half");
    const section = fx.cp.liveStatus.all().find((s) => s.id === "custom-tools");
    expect((await section?.list(conv))?.map((i) => i.name).sort()).toEqual(Object.keys(BROKEN).sort());
  });

  it("says which modules were skipped in `enclave tools list`", async () => {
    // Asynchronously: the control plane answering the CLI runs in this process.
    const cli = join(import.meta.dirname, "..", "..", "control-plane", "dist", "src", "cli", "main.js");
    const args = [cli, "tools", "list", "-c", conv, "--address", `unix://${join(fx.dataDir, "cp.sock")}`];
    const r = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) =>
      execFile(process.execPath, args, { encoding: "utf8", timeout: 60_000 }, (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve({ stdout, stderr }),
      ),
    );
    // The custom tools' rows (the built-ins' are another suite's business) and the skipped modules.
    const custom = ["batch_rename_each", "renames_done", "batch_rename_preview", "snapshot", "stage_plain", "preview_only", "bad_result"];
    const rows = r.stdout.split("\n").filter((l) => custom.includes(l.split(" ")[0] ?? ""));
    expect(rows).toHaveLength(custom.length);
    await transcript(`${rows.join("\n")}\n--- stderr\n${r.stderr}`, "cli-tools-list");
  });
});

describe("resolve as specified", () => {
  it("is hidden while nothing is pending and says exactly that when called", async () => {
    expect(await names()).not.toContain("resolve");
    expect((await fx.client.listTools(runId)).requiredNextTool).toBe("");
    const r = await call("resolve", { action: "apply" });
    expect(r.isError).toBe(true);
    expect(resultText(r)).toBe("No pending action to resolve. Nothing to apply or discard.");
  });

  it('applies the example\'s pending action, headed by its label, with reason "" when none is given', async () => {
    const staged = await ok("batch_rename_preview", { files: ["a.txt", "b.txt"] });
    // The example tool's own answer.
    expect(staged).toBe("Prepared rename plan for 2 files. Call resolve to apply or discard.");
    expect(await names()).toContain("resolve");
    expect((await fx.client.listTools(runId)).requiredNextTool).toBe("resolve");
    // Headed by the action's label; the example's own text ends with the empty reason.
    await transcript(await ok("resolve", { edit_id: "edit_1", action: "apply" }), "example-applied");
    expect(await names()).not.toContain("resolve");
  });

  it("discards the example's pending action through its reject, whose text replaces the default", async () => {
    await ok("batch_rename_preview", { files: ["c.txt"] });
    const discarded = await ok("resolve", { action: "discard", reason: "not now" });
    // The label, then reject's own result and nothing else: no "Discarded" of Enclave's beside it.
    expect(discarded).toBe("Batch rename: 1 files\nDiscarded batch rename. Reason: not now");
    await transcript(discarded, "example-discarded");
  });

  it('discards with the default message "Discarded" without a reject, or when reject returns undefined', async () => {
    await ok("preview_only", { what: "a" });
    expect(await ok("resolve", { action: "discard" })).toBe("preview a\nDiscarded");
    await ok("stage_plain", { kind: "string" });
    expect(await ok("resolve", { action: "discard", reason: "r" })).toBe("plain string\nDiscarded");
  });

  it("resolves two pending actions pushed by one call in LIFO order: the second first", async () => {
    const staged = await ok("batch_rename_each", { files: ["one.txt", "two.txt"] });
    expect(staged).toBe("Prepared 2 renames. Call resolve for each, the last first.");
    expect((await fx.client.listTools(runId)).requiredNextTool).toBe("resolve");
    const first = await ok("resolve", { action: "apply", reason: "first" });
    expect(first).toBe("Applied: Rename two.txt\nRenamed two.txt. Reason: first");
    expect((await fx.client.listTools(runId)).requiredNextTool).toBe("resolve");
    const second = await ok("resolve", { action: "discard", reason: "second" });
    expect(second).toBe("Rename one.txt\nKept one.txt. Reason: second");
    expect((await fx.client.listTools(runId)).requiredNextTool).toBe("");
    expect(await ok("renames_done", {})).toBe("applied two.txt\ndiscarded one.txt");
    await transcript([staged, first, second].join("\n---\n"), "two-from-one-call-lifo");
  });

  it("keeps exec for a tool that declares no tier, and a preview-only tool that declares write and stagesOnly runs while a change is pending", async () => {
    const tiers = Object.fromEntries((await fx.client.listTools(runId)).tools.map((t) => [t.name, t.tier]));
    expect(tiers).toMatchObject({ batch_rename_preview: "exec", batch_rename_each: "exec", preview_only: "write", renames_done: "read" });
    const plan = (await fx.client.openRun(conv, { surface: "plan" })).id;
    expect(await names(plan)).not.toContain("preview_only");
    await ok("batch_rename_preview", { files: ["p.txt"] });
    // The default tier (exec) is refused while something is pending; a staging-only tool is not.
    const refused = await call("batch_rename_each", { files: ["q.txt"] });
    expect(refused.errorCode).toBe("failed_precondition");
    expect(await ok("preview_only", { what: "b" })).toBe("previewed b");
    expect(await ok("resolve", { action: "discard" })).toBe("preview b\nDiscarded");
    expect(await ok("resolve", { action: "discard" })).toBe("Batch rename: 1 files\nDiscarded batch rename. Reason: ");
  });

  it("accepts plain strings, undefined and empty results, in LIFO order", async () => {
    await ok("stage_plain", { kind: "string" });
    await ok("stage_plain", { kind: "noreject" });
    // Newest first: noreject, then string.
    const answers = [await ok("resolve", { action: "discard" }), await ok("resolve", { action: "discard" })];
    await ok("stage_plain", { kind: "string" });
    answers.push(await ok("resolve", { action: "accept", reason: "go" }));
    await ok("stage_plain", { kind: "noreject" });
    answers.push(await ok("resolve", { action: "apply" }));
    await transcript(answers.join("\n---\n"), "plain-results-lifo");
  });

  it("never renders a malformed result as [object Object] or undefined", async () => {
    await ok("stage_plain", { kind: "object" });
    const applied = await call("resolve", { action: "apply" });
    expect(applied.isError).toBe(true);
    await ok("stage_plain", { kind: "object" });
    const discarded = await call("resolve", { action: "discard" });
    expect(discarded.isError).toBe(true);
    expect([applied.errorCode, discarded.errorCode]).toEqual(["failed", "failed"]);
    for (const r of [applied, discarded]) {
      expect(resultText(r)).not.toContain("[object Object]");
      expect(resultText(r).startsWith("undefined")).toBe(false);
    }
    await transcript([applied, discarded].map((r) => `${r.errorCode}: ${resultText(r)}`).join("\n"), "malformed-results");
    expect((await fx.client.listTools(runId)).requiredNextTool).toBe("");
  });

  it("gives custom tools the documented text in a run without a store", async () => {
    const bare = (await fx.client.openRun(conv, { resources: ["workspace"], approvalPolicy: "never" })).id;
    expect(await names(bare)).not.toContain("resolve");
    const r = await call("batch_rename_preview", { files: ["x"] }, bare);
    expect(r.isError).toBe(true);
    expect(resultText(r)).toBe("Pending action store unavailable for custom tools in this runtime.");
  });
});
