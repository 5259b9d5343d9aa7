// The JavaScript kernel's cell rewriting, checked by running the rewritten cells on node:vm the way
// the runner does.
import vm from "node:vm";
import { describe, expect, it } from "vitest";
import { CellSyntaxError, rewriteCell } from "./rewrite-cell.js";
import { thrown } from "@enclave/test-kit/transcript-log.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";

async function runCells(...cells: string[]): Promise<unknown[]> {
  const context = vm.createContext({ __enclaveImport: (s: string) => import(s) });
  const out: unknown[] = [];
  for (const code of cells) {
    const { source, echoes } = rewriteCell(code);
    try {
      const r = (await new vm.Script(source).runInContext(context)) as { value: unknown } | undefined;
      out.push(echoes ? r?.value : "(no echo)");
    } catch (err) {
      out.push(`threw ${(err as Error).message}`);
    }
  }
  return out;
}

describe("rewriteCell", () => {
  it("keeps let, const, class and functions across cells and lets them be declared again", async () => {
    expect(
      await runCells(
        "let a = 1; const b = 2; class C { v() { return 3 } } function f() { return 4 }",
        "a + b + new C().v() + f()",
        "let a = 10; const b = 20; class C {}; a + b",
      ),
    ).toEqual(["(no echo)", 10, 30]);
  });

  it("does not poison a name whose declaration threw", async () => {
    expect(await runCells("let x = (() => { throw new Error('no') })()", "let x = 5; x")).toEqual(["threw no", 5]);
  });

  it("handles destructuring, defaults, uninitialised let and var, and var in loops", async () => {
    expect(
      await runCells(
        "let { p, q = 7 } = { p: 1 }; const [r, ...rest] = [2, 3, 4]; let u; var w = 9; for (var i = 0; i < 3; i++) {}",
        "[p, q, r, rest, u, w, i]",
        "var w; w",
      ),
    ).toEqual(["(no echo)", [1, 7, 2, [3, 4], undefined, 9, 3], 9]);
  });

  it("supports top-level await, hoisted function calls and echoes only a last expression", async () => {
    expect(await runCells("g(); function g() { return 1 }\nawait Promise.resolve(41) + g()", "const z = 1;", "'a'; 'b'")).toEqual([42, "(no echo)", "b"]);
  });

  it("does not adopt a promise returned as the last expression", async () => {
    const [v] = await runCells("Promise.resolve(1)");
    expect(typeof (v as Promise<unknown>).then).toBe("function");
  });

  it("turns static imports and import() into the runner's loader", async () => {
    const { source } = rewriteCell("import path, { join as j } from 'node:path';\nimport * as os from 'node:os';\nconst m = await import('node:fs');");
    expect(source).toContain("__enclaveImport('node:path')");
    expect(source).toContain("__enclaveImport('node:fs')");
    expect(source).not.toMatch(/\bimport\s*\(/);
    expect(await runCells("import { basename } from 'node:path'; const u = await import('node:url'); basename('/a/b') + typeof u.pathToFileURL")).toEqual([
      "bfunction",
    ]);
  });

  it("keeps the cell's line numbers", () => {
    const { source } = rewriteCell("let a = 1\nlet b = 2\nnull.x");
    expect(source.split("\n")[2]).toContain("null.x");
  });

  it("reports syntax errors with the cell's line and column", async () => {
    expect(() => rewriteCell("let ok = 1\nlet = = 2")).toThrow(CellSyntaxError);
    try {
      rewriteCell("let ok = 1\nfoo(");
    } catch (err) {
      expect((err as CellSyntaxError).line).toBe(2);
    }
    await expectTranscript(
      thrown(() => rewriteCell("export const x = 1")),
      "transcripts/js-cell-rewrite/export-has-no-meaning-in-a.txt",
    );
  });
});

describe("rewriteCell: echoes and positions as Node's REPL has them", () => {
  it("echoes a last expression in parentheses, after a statement or alone, and an object literal cell", async () => {
    expect(await runCells("let k = 3;\n({ a: 1 })", "k += 1;\n(k * 2)", "(k) // trailing comment", "{ a: 1, b: [k] }", "{ let inner = 1 }")).toEqual([
      { a: 1 },
      8,
      4,
      { a: 1, b: [4] },
      "(no echo)",
    ]);
  });

  it("maps positions in the rewritten source back to the cell's line and column", () => {
    const code = "const before = 1;\nconst result = thrower(before);\nlet x = 1, y = await f(x);\nresult";
    const { source, positions } = rewriteCell(code);
    const at = (needle: string) => {
      const gen = source.lastIndexOf(needle);
      const genLine = source.slice(0, gen).split("\n").length;
      const genCol = gen - source.lastIndexOf("\n", gen - 1);
      const orig = code.lastIndexOf(needle);
      const line = code.slice(0, orig).split("\n").length;
      const column = orig - code.lastIndexOf("\n", orig - 1);
      return { mapped: positions.toCell({ line: genLine, column: genCol }), expected: { line, column } };
    };
    for (const needle of ["thrower(before)", "f(x)", "result", "before = 1", "y = "]) {
      const { mapped, expected } = at(needle);
      expect(mapped, needle).toEqual(expected);
    }
    // The wrapper's own text is nobody's line in the cell.
    expect(positions.toCell({ line: 1, column: 2 })).toBeUndefined();
    expect(positions.toCell({ line: source.split("\n").length, column: 1 })).toBeUndefined();
  });
});
