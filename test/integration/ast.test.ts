// ast_grep, ast_edit, resolve and custom-tool pending actions through the real control plane, on
// host placement and inside a real enclosure (Docker), with the real grammars (Dart compiled by the
// build). Every file goes through the tools, so both placements see the same workspace.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { type Mask, expectTranscript } from "@enclave/test-kit/transcript.js";

let fx: Fixture;
let toolsDir: string;

const CUSTOM_TOOL = `
export default (pi) => ({
  name: "stage_note",
  label: "Stage note",
  tier: "write",
  stagesOnly: true,
  description: "Stages writing a note file (a custom tool with a pending action).",
  parameters: pi.typebox.Type.Object({ name: pi.typebox.Type.String(), text: pi.typebox.Type.String() }, { additionalProperties: false }),
  async execute(_id, args, _signal, _onUpdate, enclave) {
    const id = pi.pushPendingAction({
      label: "write note " + args.name,
      details: args.text,
      async apply(reason) {
        const { client } = await enclave.agent();
        await client.writeFile({ path: args.name, content: Buffer.from(args.text + " (" + reason + ")"), createOnly: false });
        return { content: [{ type: "text", text: "note " + args.name + " written" }] };
      },
      reject: async (reason) => ({ content: [{ type: "text", text: "note " + args.name + " dropped: " + reason }] }),
    });
    return { content: [{ type: "text", text: '(proposed) note ' + args.name + ' … call resolve with edit_id "' + id + '"' }] };
  },
});
`;

beforeAll(async () => {
  fx = await startFixture();
  toolsDir = mkdtempSync(join(tmpdir(), "enclave-custom-tools-"));
  writeFileSync(join(toolsDir, "stage-note.mjs"), CUSTOM_TOOL);
  expect(await fx.cp.loadCustomTools(toolsDir)).toEqual({ loaded: ["stage_note"], failures: [] });
});
afterAll(async () => {
  await fx?.close();
  rmSync(toolsDir, { recursive: true, force: true });
});

const GUARDS = `class Holder {
  void close() {
    if (controller != null) controller.dispose();
    if (controller != null) other.dispose();
    if (focus   != null)
      focus.dispose(); // wrapped
  }
}
`;

const CALLS = `void main() {
  dispose(x);
  final y = dispose( x );
  print("dispose(x)"); // dispose(x)
  /* dispose(x) */
  log(1, 2, 3);
  log();
}
`;

// Pending-action ids count per control plane.
const MASKS: Mask[] = [[/\bedit_\d+\b/g, "edit_<n>"]];

/**
 * Compares a tool's answer with transcripts/ast/<name>.txt. Both placements compare against the same
 * file: the answer must not depend on where the tools run.
 */
async function transcript(text: string, name: string): Promise<void> {
  await expectTranscript(text, `transcripts/ast/${name}.txt`, MASKS);
}

/** A refusal as its code and text, for one transcript. */
function refusal(r: { errorCode: string; isError: boolean }, text: string): string {
  return `${r.isError ? "error" : "ok"} ${r.errorCode}: ${text}\n`;
}

function scenario(placement: "host" | "enclosure"): void {
  const conv = `ast-${placement}`;
  let runId = "";
  let workspace = "";

  async function call(tool: string, args: unknown, run = runId) {
    return fx.client.callTool(run, tool, args);
  }
  async function ok(tool: string, args: unknown, run = runId): Promise<string> {
    const r = await call(tool, args, run);
    expect(r.isError, resultText(r)).toBe(false);
    return resultText(r);
  }
  async function put(path: string, content: string): Promise<void> {
    await ok("write", { path, content });
  }

  beforeAll(async () => {
    workspace = (await fx.client.createConversation(conv)).workspacePath;
    if (placement === "enclosure") {
      const c = await fx.client.startEnclosure(conv);
      expect(c.placement).toBe("enclosure");
    }
    runId = (await fx.client.openRun(conv, { approvalPolicy: "never" })).id;
    await put("lib/guards.dart", GUARDS);
    await put("lib/calls.dart", CALLS);
  });

  it("runs where it should", async () => {
    expect((await fx.client.getConversation(conv)).placement).toBe(placement);
    const d = await fx.client.describePlacement(conv);
    expect(d.components.filter((c) => c.kind === "grammar" && c.usable).map((c) => c.id)).toContain("dart");
  });

  it("matches the guard that disposes what it tested, not the one that disposes something else", async () => {
    const out = await ok("ast_grep", { pattern: "if ($X != null) $X.dispose()", path: "lib/guards.dart" });
    // Lines 3 and 5-6 (with $X bound to controller and focus), never line 4.
    await transcript(out, "guards");
  });

  it("finds dispose(x) as a call through the context ladder, never in strings or comments", async () => {
    const out = await ok("ast_grep", { pattern: "dispose(x)", path: "lib", language: "dart" });
    // Lines 2 and 3 only: the string on line 4 and the comment on line 5 are not calls.
    await transcript(out, "calls-context-ladder");
  });

  it("matches $$$ argument runs, including empty ones", async () => {
    const out = await ok("ast_grep", { pattern: "log($$$ARGS)", path: "lib/calls.dart" });
    await transcript(out, "argument-runs");
  });

  it('reads the pattern language as ast-grep documents it: "$M" in a string, $_NAME, an empty $$$ before a comma', async () => {
    await put("lang/req.js", 'const a = require("fs");\nconst b = require(name);\ntest(a);\nf(a);\n');
    const str = await ok("ast_grep", { pattern: 'require("$M")', path: "lang/req.js" });
    const wild = await ok("ast_grep", { pattern: "$_F($_F)", path: "lang/req.js" });
    const empty = await ok("ast_grep", { pattern: "f($$$A, $B)", path: "lang/req.js" });
    const staged = await ok("ast_edit", { pattern: 'require("$M")', rewrite: 'import("$M")', path: "lang/req.js" });
    const discarded = await ok("resolve", { action: "discard", reason: "only looking" });
    await transcript([str, wild, empty, staged, discarded].join("\n---\n"), "pattern-language");
  });

  it("reads patterns that need the grammar's filler and says how it read them", async () => {
    await put("fill/s.js", "class A { switch(x) { go(); } }\nfunction f(x) {\n  switch (x) { default: go(); }\n}\n");
    const js = await ok("ast_grep", { pattern: "switch ($X) { $$$ }", path: "fill/s.js" });
    await put("fill/w.c", "int f(int x) {\n  while (x) { x--; }\n  return x;\n}\n");
    const c = await ok("ast_grep", { pattern: "while ($C) { $$$ }", path: "fill/w.c" });
    await put("fill/d.c", "static int g(int a) { return a; }\nint h(void) { return 1; }\n");
    const def = await ok("ast_grep", { pattern: "static int $F($$$P) { $$$B }", path: "fill/d.c" });
    await put("fill/t.go", "package p\n\nfunc f(v any) {\n\tswitch t := v.(type) {\n\tcase int:\n\t\t_ = t\n\t}\n}\n");
    const go = await ok("ast_grep", { pattern: "switch $X := $Y.(type) { $$$ }", path: "fill/t.go" });
    await put("fill/i.ts", 'import { a, b } from "x";\n');
    const ts = await ok("ast_grep", { pattern: "import { $$$N } from $S", path: "fill/i.ts" });
    // Each says how the pattern was read (the filler supplied, or how a metavariable was taken).
    await transcript([js, c, def, go, ts].join("\n---\n"), "grammar-filler");
  });

  it("ast_edit keeps a Python body at its depth, with its comment, and the result compiles", async () => {
    const before = "def f(d):\n    for k in d.keys():\n        # why\n        a = k\n        b = k\n    return d\n";
    await put("py/keys.py", before);
    const staged = await ok("ast_edit", { pattern: "for $K in $D.keys():\n    $$$BODY", rewrite: "for $K in $D:\n    $$$BODY", path: "py/keys.py" });
    // No warning that the rewrite breaks the file.
    await transcript(staged, "python-body-staged");
    await ok("resolve", { action: "apply", reason: "drop .keys()" });
    const after = readFileSync(join(workspace, "py/keys.py"), "utf8");
    expect(after).toBe("def f(d):\n    for k in d:\n        # why\n        a = k\n        b = k\n    return d\n");
    expect(() => execFileSync("python3", ["-c", "import ast, sys; ast.parse(sys.stdin.read())"], { input: after })).not.toThrow();
  });

  it("ast_edit says which file and line a rewrite leaves unparseable, before anything is applied", async () => {
    await put("br/x.js", "const a = 1;\nfoo(a);\n");
    await put("br/y.py", "def f():\n    x = 1\n    return x\n");
    const js = await ok("ast_edit", { pattern: "foo($A)", rewrite: "foo($A", path: "br/x.js" });
    await transcript(js, "unparseable-rewrite-js");
    expect(readFileSync(join(workspace, "br/x.js"), "utf8")).toBe("const a = 1;\nfoo(a);\n");
    await ok("resolve", { action: "discard", reason: "broken" });
    const py = await ok("ast_edit", { pattern: "x = $V", rewrite: "x = $V\n  y = $V", path: "br/y.py" });
    // Python's own complaint, placed at the file and line.
    expect(py).toContain("br/y.py:3:7: unexpected indent (IndentationError)");
    await transcript(py, "unparseable-rewrite-python");
    await ok("resolve", { action: "discard", reason: "broken" });
  });

  it("reports an unparseable pattern instead of searching", async () => {
    const r = await call("ast_grep", { pattern: "if ((( {", path: "lib/calls.dart" });
    expect(r.isError).toBe(true);
    expect(r.errorCode).toBe("invalid_arguments");
    await transcript(resultText(r), "unparseable-pattern");
  });

  it("says exactly that nothing is pending", async () => {
    const r = await call("resolve", { action: "apply", reason: "nothing" });
    expect(r.errorCode).toBe("failed_precondition");
    await transcript(refusal(r, resultText(r)), "nothing-pending");
  });

  it("stages with ast_edit, steers to resolve, and applies exactly the proposed files", async () => {
    await put("app/a.dart", "void a() { old(1); }\n");
    await put("app/b.dart", "void b() { old(2); old(3); }\n");
    await put("app/c.dart", "void c() { fresh(4); }\n");
    const before = readFileSync(join(workspace, "app/c.dart"), "utf8");
    const staged = await ok("ast_edit", { pattern: "old($A)", rewrite: "fresh($A)", path: "app", language: "dart" });
    await transcript(staged, "staged-three-replacements");
    expect(readFileSync(join(workspace, "app/a.dart"), "utf8")).toBe("void a() { old(1); }\n");
    const id = /edit_id "(edit_\d+)"/.exec(staged)?.[1] ?? "";

    expect((await fx.client.listTools(runId)).requiredNextTool).toBe("resolve");
    const refused = await call("write", { path: "app/x.txt", content: "x" });
    expect(refused.errorCode).toBe("failed_precondition");
    await transcript(refusal(refused, resultText(refused)), "write-refused-while-pending");

    const applied = await ok("resolve", { edit_id: id, action: "accept", reason: "rename old to fresh" });
    expect(applied).toContain(id);
    await transcript(applied, "applied-three-replacements");
    expect(readFileSync(join(workspace, "app/a.dart"), "utf8")).toBe("void a() { fresh(1); }\n");
    expect(readFileSync(join(workspace, "app/b.dart"), "utf8")).toBe("void b() { fresh(2); fresh(3); }\n");
    expect(readFileSync(join(workspace, "app/c.dart"), "utf8")).toBe(before);
    expect((await fx.client.listTools(runId)).requiredNextTool).toBe("");
    // No temporary file of the apply is left behind.
    const listing = await ok("list", { path: "app" });
    expect(listing).not.toContain("enclave");
    expect(listing).not.toContain(".tmp");
  });

  it("refuses the whole change when a file moved after staging, and leaves every file untouched", async () => {
    await put("moved/a.dart", "void a() { old(1); }\n");
    await put("moved/b.dart", "void b() { old(2); }\n");
    const staged = await ok("ast_edit", { pattern: "old($A)", rewrite: "fresh($A)", path: "moved", language: "dart" });
    await transcript(staged, "staged-two-replacements");
    const id2 = /edit_id "(edit_\d+)"/.exec(staged)?.[1] ?? "";
    // Another writer changes one of the two files behind the staged edit's back.
    writeFileSync(join(workspace, "moved/b.dart"), "void b() { old(2); /* edited meanwhile */ }\n");
    const r = await call("resolve", { edit_id: id2, action: "apply", reason: "go" });
    expect(r.errorCode).toBe("failed_precondition");
    await transcript(refusal(r, resultText(r)), "apply-refused-file-moved");
    expect(readFileSync(join(workspace, "moved/a.dart"), "utf8")).toBe("void a() { old(1); }\n");
    expect(readFileSync(join(workspace, "moved/b.dart"), "utf8")).toBe("void b() { old(2); /* edited meanwhile */ }\n");
    expect((await fx.client.listTools(runId)).requiredNextTool).toBe("");
  });

  it("resolves two pending actions in LIFO order", async () => {
    await put("lifo/a.dart", "void a() { one(1); two(2); }\n");
    const first = await ok("ast_edit", { pattern: "one($A)", rewrite: "uno($A)", path: "lifo/a.dart" });
    // A second staging tool may run while the first change is pending (it writes nothing itself).
    const second = await ok("stage_note", { name: "lifo/note.txt", text: "second" });
    const id1 = /edit_id "(edit_\d+)"/.exec(first)?.[1] ?? "";
    const id2 = /edit_id "(edit_\d+)"/.exec(second)?.[1] ?? "";
    expect(Number(id2.slice(5))).toBeGreaterThan(Number(id1.slice(5)));
    const r1 = await ok("resolve", { action: "apply", reason: "top first" });
    await transcript(r1, "lifo-first");
    expect(readFileSync(join(workspace, "lifo/a.dart"), "utf8")).toBe("void a() { one(1); two(2); }\n");
    const r2 = await ok("resolve", { action: "apply", reason: "then the older" });
    expect(r2).toContain(id1);
    await transcript(r2, "lifo-second");
    expect(readFileSync(join(workspace, "lifo/a.dart"), "utf8")).toBe("void a() { uno(1); two(2); }\n");
  });

  it("applies and discards a custom tool's pending action", async () => {
    const staged = await ok("stage_note", { name: "notes/kept.txt", text: "kept" });
    await transcript(staged, "custom-staged");
    await transcript(await ok("resolve", { action: "apply", reason: "wanted" }), "custom-applied");
    expect(readFileSync(join(workspace, "notes/kept.txt"), "utf8")).toBe("kept (wanted)");
    await ok("stage_note", { name: "notes/dropped.txt", text: "dropped" });
    await transcript(await ok("resolve", { action: "discard", reason: "not needed" }), "custom-discarded");
    expect(() => readFileSync(join(workspace, "notes/dropped.txt"))).toThrow();
  });

  it("answers Discarded for an ast_edit without reject", async () => {
    await put("disc/a.dart", "void a() { old(1); }\n");
    await ok("ast_edit", { pattern: "old($A)", rewrite: "fresh($A)", path: "disc/a.dart" });
    await transcript(await ok("resolve", { action: "discard", reason: "no" }), "ast-edit-discarded");
    expect(readFileSync(join(workspace, "disc/a.dart"), "utf8")).toBe("void a() { old(1); }\n");
  });

  it("shows plan surfaces ast_grep only, and refuses bad paths and languages clearly", async () => {
    const plan = (await fx.client.openRun(conv, { approvalPolicy: "never", surface: "plan" })).id;
    const names = (await fx.client.listTools(plan)).tools.map((t) => t.name);
    expect(names).toContain("ast_grep");
    expect(names).not.toContain("ast_edit");
    expect(names).not.toContain("resolve");
    const escape = await call("ast_grep", { pattern: "f($X)", path: "../../etc", language: "bash" });
    expect(escape.errorCode).toBe("outside_workspace");
    const folder = await call("ast_grep", { pattern: "f($X)", path: "lib" });
    const unknown = await call("ast_grep", { pattern: "f($X)", path: "lib", language: "cobol" });
    expect([folder.errorCode, unknown.errorCode]).toEqual(["invalid_arguments", "invalid_arguments"]);
    await transcript(refusal(folder, resultText(folder)) + refusal(unknown, resultText(unknown)), "folder-and-language-refused");
    const missing = await call("ast_grep", { pattern: "f($X)", path: "nope.dart" });
    expect(missing.errorCode).toBe("not_found");
  });

  it("gives custom tools no store in a run without one", async () => {
    const bare = (await fx.client.openRun(conv, { approvalPolicy: "never", resources: ["workspace"] })).id;
    const names = (await fx.client.listTools(bare)).tools.map((t) => t.name);
    expect(names).toContain("stage_note");
    expect(names).not.toContain("resolve");
    const r = await call("stage_note", { name: "x.txt", text: "x" }, bare);
    expect(r.errorCode).toBe("failed");
    await transcript(refusal(r, resultText(r)), "custom-without-store");
  });
}

describe("structural search on host placement", () => scenario("host"));
describe("structural search inside an enclosure", () => scenario("enclosure"));
