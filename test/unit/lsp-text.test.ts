// Pure parts of lsp: symbol positions in UTF-16, shown columns, applying text edits, the ledger, and
// the files a patch touches.
import { describe, expect, it } from "vitest";
import { DiagnosticsLedger } from "@enclave/control-plane/tools/lsp/diagnostics-ledger.js";
import { patchedPaths } from "@enclave/control-plane/tools/lsp/diagnostics-on-write.js";
import type { Run } from "@enclave/control-plane/model/run.js";
import { displayColumn, locateSymbol, parseSymbol, splitLines } from "@enclave/agent/lsp/text-positions.js";
import { applyTextEdits } from "@enclave/agent/lsp/workspace-edit.js";
import { thrown, TranscriptLog } from "@enclave/test-kit/transcript-log.js";

describe("symbol positions", () => {
  const text = 'first\ns = "é 🎉"; x = max(x, 1)\n';

  it("counts UTF-16 units for the server and code points for people", () => {
    const pos = locateSymbol(text, "f.py", 2, "max");
    // s = "é 🎉"; x =  → the emoji is 2 UTF-16 units, so max is at unit 16, character 15.
    expect(pos).toEqual({ line: 1, character: 16 });
    expect(displayColumn('s = "é 🎉"; x = max(x, 1)', pos.character)).toBe(16);
  });

  it("prefers whole words and takes name#N", () => {
    expect(locateSymbol(text, "f.py", 2, "x").character).toBe(12);
    expect(locateSymbol(text, "f.py", 2, "x#2").character).toBe(20);
    expect(parseSymbol("a#b")).toEqual({ name: "a#b", occurrence: 1 });
    expect(locateSymbol("self.total = 0\n", "f.py", 1, "self.total").character).toBe(5);
  });

  it("explains a missing symbol, a missing occurrence and a line out of range", async () => {
    const log = new TranscriptLog();
    for (const [line, symbol] of [
      [2, "min"],
      [2, "x#3"],
      [9, "x"],
      [2, undefined],
    ] as const) {
      log.add(
        `line ${line}, symbol ${symbol ?? "(none)"}`,
        thrown(() => locateSymbol(text, "f.py", line, symbol)),
      );
    }
    await log.expect("transcripts/lsp-text/unlocated-symbols.txt");
  });
});

describe("splitting a document into lines", () => {
  it("splits an unchanged text once (a query splits it twice, the next query again), and never hands out lines to change", () => {
    const doc = "a = 1\r\nb = 2\rc = 3\nd = 4";
    const lines = splitLines(doc);
    expect(lines).toEqual(["a = 1", "b = 2", "c = 3", "d = 4"]);
    // The same text again, as the same string or an equal one: the same lines, not a new split.
    expect(splitLines(doc)).toBe(lines);
    expect(splitLines(`${doc} `.slice(0, -1))).toBe(lines);
    expect(Object.isFrozen(lines)).toBe(true);
    // Another text is split afresh, and placing a symbol uses it.
    const edited = doc.replace("c = 3", "c = 3\nnew_name = c");
    expect(splitLines(edited)).toEqual(["a = 1", "b = 2", "c = 3", "new_name = c", "d = 4"]);
    expect(locateSymbol(edited, "f.py", 4, "new_name")).toEqual({ line: 3, character: 0 });
    expect(locateSymbol(doc, "f.py", 4, "d")).toEqual({ line: 3, character: 0 });
    expect(splitLines(doc)).toEqual(lines);
  });
});

describe("applying text edits", () => {
  it("applies UTF-16 ranges from the end, across lines and CRLF", () => {
    const text = "a = '🎉'; b = a\r\nprint(a)\n";
    const out = applyTextEdits(text, [
      { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, newText: "alpha" },
      { range: { start: { line: 0, character: 14 }, end: { line: 0, character: 15 } }, newText: "alpha" },
      { range: { start: { line: 1, character: 6 }, end: { line: 1, character: 7 } }, newText: "alpha" },
    ]);
    expect(out).toBe("alpha = '🎉'; b = alpha\r\nprint(alpha)\n");
  });

  it("refuses overlapping edits", async () => {
    const r = (s: number, e: number) => ({ start: { line: 0, character: s }, end: { line: 0, character: e } });
    const log = new TranscriptLog();
    log.add(
      "edits over 0-3 and 2-4",
      thrown(() =>
        applyTextEdits("abcdef", [
          { range: r(0, 3), newText: "x" },
          { range: r(2, 4), newText: "y" },
        ]),
      ),
    );
    await log.expect("transcripts/lsp-text/overlapping-edits.txt");
  });
});

describe("diagnostics ledger", () => {
  const run = { id: "r1" } as Run;
  const d = (message: string, line: number, code = "2322", severity = "error") => ({
    path: "a.ts",
    line,
    column: 1,
    severity,
    code,
    message,
    source: "ts",
    lineText: "",
  });

  it("reports new ones, not moved ones; fixed then re-broken is new again; copies count", () => {
    const ledger = new DiagnosticsLedger();
    expect(ledger.update(run, "a.ts", [d("bad type", 3)])).toHaveLength(1);
    expect(ledger.update(run, "a.ts", [d("bad type", 7)])).toHaveLength(0);
    expect(ledger.update(run, "a.ts", [d("bad type", 7), d("other", 1, "2339")]).map((x) => x.message)).toEqual(["other"]);
    expect(ledger.update(run, "a.ts", [d("bad type", 7), d("bad type", 9), d("other", 1, "2339")]).map((x) => x.line)).toEqual([9]);
    expect(ledger.update(run, "a.ts", [])).toHaveLength(0);
    expect(ledger.update(run, "a.ts", [d("bad type", 2)])).toHaveLength(1);
    // Severity and code are part of the key; another file and another run keep their own.
    expect(ledger.update(run, "a.ts", [d("bad type", 2, "2322", "warning"), d("bad type", 2)])).toHaveLength(1);
    expect(ledger.update(run, "b.ts", [d("bad type", 2)])).toHaveLength(1);
    expect(ledger.update({ id: "r2" } as Run, "a.ts", [d("bad type", 2)])).toHaveLength(1);
  });
});

describe("patched paths", () => {
  it("names added, modified and deleted files", () => {
    const patch =
      "--- a/x.ts\n+++ b/x.ts\n@@ -1 +1 @@\n-a\n+b\n--- /dev/null\n+++ b/new.py\n@@ -0,0 +1 @@\n+x\n--- a/gone.c\t2024-01-01\n+++ /dev/null\n@@ -1 +0,0 @@\n-y\n";
    expect(patchedPaths(patch)).toEqual(["x.ts", "new.py", "gone.c"]);
    const rename = "diff --git a/old.py b/moved.py\nsimilarity index 100%\nrename from old.py\nrename to moved.py\n";
    expect(patchedPaths(rename)).toEqual(["old.py", "moved.py"]);
    expect(patchedPaths("not a diff")).toEqual([]);
  });
});
