// Tools' results as data: a harness reads exec's exit code, the files a write changed, ast_edit's
// edit_id (handed to resolve as is), ast_grep's matches and the diagnostics a write introduced from
// typed fields (ToolCallResult.details), never from the model's text. Real control plane, host
// placement, real pyright. Every answer's details are checked against the schema ListTools publishes
// for its tool, so a field the tool sends but does not declare fails here.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { resultText, type ToolCallResult } from "@enclave/client/control-plane-client.js";
import { Sandbox, type ToolArgumentsMap, type ToolDetailsMap, type ToolName } from "enclave/client";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { ensureHostServers } from "../helpers/lsp-fixture.js";

let fx: Fixture;
let runId: string;
let lspRunId: string;

// Machines here are shared and slow: give diagnostics on write room, so "late" is not what we test.
process.env.ENCLAVE_LSP_DIAGNOSTICS_WAIT_MS = "30000";

beforeAll(async () => {
  ensureHostServers();
  fx = await startFixture();
  await fx.client.createConversation("details");
  runId = (await fx.client.openRun("details", { approvalPolicy: "never", resources: ["workspace", "shell", "ast"] })).id;
  lspRunId = (await fx.client.openRun("details", { approvalPolicy: "never", resources: ["workspace", "lsp", "ast"] })).id;
});
afterAll(async () => fx?.close());

/** Each run's published details schemas, as zod schemas, by tool name (resolve is listed only while something is pending). */
const schemas = new Map<string, z.ZodType>();

async function detailsSchema(run: string, tool: string): Promise<z.ZodType> {
  const key = `${run}/${tool}`;
  let schema = schemas.get(key);
  if (!schema) {
    const info = (await fx.client.listTools(run)).tools.find((t) => t.name === tool);
    expect(info?.detailsSchemaJson, `${tool} publishes a details schema`).toBeTruthy();
    schema = z.fromJSONSchema(JSON.parse(info?.detailsSchemaJson ?? "{}") as Parameters<typeof z.fromJSONSchema>[0]);
    schemas.set(key, schema);
  }
  return schema;
}

/** Calls a tool and checks its details against the schema ListTools publishes for it. */
async function call<N extends ToolName>(tool: N, args: ToolArgumentsMap[N], run = runId): Promise<ToolCallResult> {
  const schema = await detailsSchema(run, tool);
  const r = await fx.client.callTool(run, tool, args);
  expect(r.isError, resultText(r)).toBe(false);
  const parsed = schema.safeParse(r.details);
  expect(parsed.success, `${tool}'s details ${JSON.stringify(r.details)} against its schema: ${parsed.error?.message ?? ""}`).toBe(true);
  return r;
}

/** A staged change's id: ast_edit staged something. */
function stagedId(d: { edit_id: string | null }): string {
  expect(d.edit_id, "ast_edit staged a change").toMatch(/^edit_\d+$/);
  return d.edit_id ?? "";
}

/** The details of a call, checked against the published schema, typed as the client's generated types have them. */
async function details<N extends ToolName>(tool: N, args: ToolArgumentsMap[N], run = runId): Promise<NonNullable<ToolDetailsMap[N]>> {
  return (await call(tool, args, run)).details as NonNullable<ToolDetailsMap[N]>;
}

describe("exec's details", () => {
  it("gives the exit code, and standard output and error apart", async () => {
    const d = await details("exec", { command: "echo out; echo err >&2; exit 3" });
    expect(d).toMatchObject({ exit_code: 3, signal: null, timed_out: false, stdout: "out\n", stderr: "err\n" });
  });

  it("says a command ran past its timeout: no exit code", async () => {
    const d = await details("exec", { command: "echo started; sleep 60", timeout_seconds: 1 });
    expect(d).toMatchObject({ exit_code: null, timed_out: true, stdout: "started\n" });
  });
});

describe("the file tools' details", () => {
  it("write says whether it created the file; read gives the lines it returned", async () => {
    expect(await details("write", { path: "notes/five.txt", content: "one\ntwo\nthree\nfour\nfive\n" })).toEqual({
      files: [{ path: "notes/five.txt", change: "added", bytes: 24 }],
    });
    expect(await details("write", { path: "./notes/../notes/five.txt", content: "one\ntwo\nthree\nfour\nfive\n" })).toEqual({
      files: [{ path: "notes/five.txt", change: "modified", bytes: 24 }],
    });
    expect(await details("read", { path: "notes/five.txt", offset: 2, limit: 2 })).toEqual({
      path: "notes/five.txt",
      content: "two\nthree",
      size_bytes: 24,
      truncated: false,
      bytes_read: 24,
      total_lines: 5,
      start_line: 2,
      end_line: 3,
    });
    // Past the end: no line returned.
    expect(await details("read", { path: "notes/five.txt", offset: 9 })).toMatchObject({ content: "", total_lines: 5, start_line: 9, end_line: 8 });
  });

  it("list gives each entry's path, type and size, and says when max_entries cut it", async () => {
    for (const name of ["a", "b", "c"]) await call("write", { path: `many/${name}.txt`, content: name });
    await call("exec", { command: "mkdir -p many/sub" });
    const all = await details("list", { path: "./many/" });
    expect(all).toEqual({
      path: "many",
      entries: expect.arrayContaining([
        { path: "many/a.txt", type: "file", size: 1 },
        { path: "many/sub", type: "directory", size: null },
      ]) as unknown,
      truncated: false,
    });
    expect(all.entries).toHaveLength(4);
    const cut = await details("list", { path: "many", max_entries: 2 });
    expect(cut.entries).toHaveLength(2);
    expect(cut.truncated).toBe(true);
  });

  it("edit counts its replacements; apply_patch names each file and its change", async () => {
    await call("write", { path: "src/x.txt", content: "a\nb\na\n" });
    expect(await details("edit", { path: "src/x.txt", old_text: "a\n", new_text: "A\n", replace_all: true })).toEqual({
      files: [{ path: "src/x.txt", change: "modified", replacements: 2 }],
      replacements: 2,
    });
    const patch = "--- a/src/x.txt\n+++ b/src/x.txt\n@@ -1,3 +1,3 @@\n A\n-b\n+B\n A\n--- /dev/null\n+++ b/src/y.txt\n@@ -0,0 +1 @@\n+y\n";
    expect(await details("apply_patch", { patch })).toEqual({
      files: [
        { path: "src/x.txt", change: "modified", hunks: 1 },
        { path: "src/y.txt", change: "added", hunks: 1 },
      ],
    });
  });
});

describe("the ast tools' details", () => {
  const CODE = "function f() {\n  log(1, 2);\n  log();\n  other(3);\n}\n";

  it("ast_grep gives each match's place, text and bindings, and says when max_results cut the list", async () => {
    await call("write", { path: "js/a.js", content: CODE });
    const all = await details("ast_grep", { pattern: "log($$$ARGS)", path: "js/a.js" });
    expect(all).toMatchObject({
      language: "javascript",
      matches: [
        { path: "js/a.js", line: 2, column: 3, end_line: 2, end_column: 12, text: "log(1, 2)", bindings: { ARGS: "1, 2" } },
        { path: "js/a.js", line: 3, column: 3, end_line: 3, end_column: 8, text: "log()", bindings: { ARGS: "" } },
      ],
      total: 2,
      files: 1,
      truncated: false,
      files_searched: 1,
    });
    expect(await details("ast_grep", { pattern: "log($$$ARGS)", path: "js/a.js", max_results: 1 })).toMatchObject({ total: 1, truncated: true });
  });

  it("ast_edit's edit_id is what resolve takes; resolve says what it applied and what stays pending", async () => {
    await call("write", { path: "js/b.js", content: CODE });
    const first = await details("ast_edit", { pattern: "log($$$A)", rewrite: "console.log($$$A)", path: "js/b.js" });
    expect(first).toMatchObject({ files: [{ path: "js/b.js", replacements: 2, parse_error: null }], replacements: 2 });
    const second = await details("ast_edit", { pattern: "other($X)", rewrite: "another($X)", path: "js/a.js" });
    expect(second.edit_id).not.toBe(first.edit_id);
    // The older one, by its id: the newer stays pending.
    const applied = await details("resolve", { action: "apply", edit_id: stagedId(first) });
    expect(applied).toMatchObject({ outcome: "applied", edit_id: first.edit_id, source_tool: "ast_edit", files: ["js/b.js"], still_pending: [second.edit_id] });
    expect(await details("read", { path: "js/b.js" })).toMatchObject({ total_lines: 5 });
    const discarded = await details("resolve", { action: "discard", edit_id: stagedId(second) });
    expect(discarded).toMatchObject({ outcome: "discarded", edit_id: second.edit_id, files: ["js/a.js"], still_pending: [] });
  });

  it("ast_edit that matches nothing stages nothing: no edit_id", async () => {
    expect(await details("ast_edit", { pattern: "nowhere($X)", rewrite: "x($X)", path: "js/a.js" })).toMatchObject({
      edit_id: null,
      files: [],
      replacements: 0,
    });
  });
});

describe("diagnostics on write, as data", () => {
  it("a write that introduces a type error lists it (pyright), with its file checked fresh", async () => {
    await call("write", { path: "py/pyproject.toml", content: '[project]\nname = "demo"\nversion = "0.1.0"\n' }, lspRunId);
    const d = await details("write", { path: "py/bad.py", content: 'def f() -> int:\n    return 1\n\n\ncount: int = "many"\n' }, lspRunId);
    expect(d.files).toEqual([{ path: "py/bad.py", change: "added", bytes: 51 }]);
    expect(d.diagnostics?.files).toEqual([expect.objectContaining({ path: "py/bad.py", state: "fresh", new_count: 1 })]);
    expect(d.diagnostics?.new).toEqual([expect.objectContaining({ path: "py/bad.py", line: 5, column: 14, severity: "error" })]);
    expect(d.diagnostics?.new[0]?.source).toMatch(/pyright/i);
    // Fixed: nothing new, the file still checked.
    const fixed = await details("edit", { path: "py/bad.py", old_text: '"many"', new_text: "3" }, lspRunId);
    expect(fixed.diagnostics).toEqual({ files: [expect.objectContaining({ path: "py/bad.py", state: "fresh", new_count: 0 })], new: [], truncated: false });
  });

  it("resolve's apply reports what its rewrite introduced", async () => {
    await call("write", { path: "py/g.py", content: 'def greet(name: str) -> str:\n    return "hello " + name\n' }, lspRunId);
    const staged = await details("ast_edit", { pattern: '"hello " + $X', rewrite: "len($X)", path: "py/g.py" }, lspRunId);
    const applied = await details("resolve", { action: "apply", edit_id: stagedId(staged) }, lspRunId);
    expect(applied).toMatchObject({ outcome: "applied", files: ["py/g.py"] });
    expect(applied.diagnostics?.new).toEqual([expect.objectContaining({ path: "py/g.py", line: 2, severity: "error" })]);
  });

  it("a run without lsp wired gives no diagnostics field", async () => {
    const d = await details("write", { path: "py/plain.py", content: 'n: int = "x"\n' });
    expect(d.diagnostics).toBeUndefined();
  });
});

describe("Sandbox", () => {
  it("answers the file and ast tools as their details: write, read, list, stage and resolve, no text read", async () => {
    await using sandbox = await Sandbox.create({ address: fx.client.address, approvalPolicy: "never", resources: ["workspace", "ast"] });
    expect((await sandbox.files.write("s/a.js", "f(1);\nf(2);\n")).details.files).toEqual([{ path: "s/a.js", change: "added", bytes: 12 }]);
    expect(await sandbox.files.read("s/a.js")).toBe("f(1);\nf(2);\n");
    expect(await sandbox.files.read("s/a.js", { offset: 2 })).toBe("f(2);\n");
    expect((await sandbox.files.list("s")).details.entries).toEqual([{ path: "s/a.js", type: "file", size: 12 }]);
    const staged = await sandbox.stage("f($X)", "g($X)", { path: "s/a.js" });
    expect(staged.details.replacements).toBe(2);
    expect((await sandbox.resolve("apply", stagedId(staged.details))).details).toMatchObject({ outcome: "applied", files: ["s/a.js"], still_pending: [] });
  });
});
