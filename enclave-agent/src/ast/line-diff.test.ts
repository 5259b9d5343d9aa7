// Diffs built from a rewrite's edits must be real unified diffs: the project's own patch applier
// turns the old text into the new one with them.
import { describe, expect, it } from "vitest";
import { diffFromEdits, type TextEdit } from "./line-diff.js";
import { applyHunks, parseUnifiedDiff } from "@enclave/proto/unified-diff.js";

function applyEdits(before: string, edits: TextEdit[]): string {
  let out = "";
  let at = 0;
  for (const e of [...edits].sort((a, b) => a.start - b.start)) {
    out += before.slice(at, e.start) + e.text;
    at = e.end;
  }
  return out + before.slice(at);
}

function roundTrip(before: string, edits: TextEdit[]): string {
  const diff = diffFromEdits("f.txt", before, edits);
  const [patch] = parseUnifiedDiff(diff);
  const after = applyHunks(before, patch?.hunks ?? [], "f.txt");
  expect(after).toBe(applyEdits(before, edits));
  return diff;
}

function edit(before: string, find: string, text: string, nth = 0): TextEdit {
  let at = -1;
  for (let i = 0; i <= nth; i++) at = before.indexOf(find, at + 1);
  return { start: at, end: at + find.length, text };
}

describe("diffs from edits", () => {
  const lines = Array.from({ length: 40 }, (_, i) => `line ${i} old(${i});`).join("\n") + "\n";

  it("one edit in the middle, with three lines of context", () => {
    const d = roundTrip(lines, [edit(lines, "old(20)", "fresh(20)")]);
    expect(d).toContain("@@ -18,7 +18,7 @@\n line 17 old(17);");
    expect(d).toContain("-line 20 old(20);\n+line 20 fresh(20);");
  });

  it("near edits share a hunk, far ones do not; line counts change", () => {
    const d = roundTrip(lines, [
      edit(lines, "old(2)", "a(\n  2)"),
      edit(lines, "old(5)", "b(5)"),
      edit(lines, "line 30 old(30);\n", ""),
      edit(lines, "old(39)", "z"),
    ]);
    expect(d.match(/^@@/gm)).toHaveLength(3);
  });

  it("several edits on one line, a file without a final newline, an edit at the very start", () => {
    const src = "f(1); f(2);\ng(3)";
    roundTrip(src, [edit(src, "f(1)", "h(1)"), edit(src, "f(2)", "h(2)"), edit(src, "g(3)", "k(3)")]);
    roundTrip("a\nb\n", [{ start: 0, end: 1, text: "A" }]);
  });

  it("round-trips many random non-overlapping edits (fixed seed)", () => {
    let seed = 42;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const pieces = ["a", "bb", "\n", "ccc", " ", "\n\n", "d(e)"];
    for (let round = 0; round < 200; round++) {
      let text = "";
      for (let i = 0, n = rnd(60); i < n; i++) text += pieces[rnd(pieces.length)];
      const edits: TextEdit[] = [];
      let at = 0;
      while (at < text.length && edits.length < 8) {
        const start = at + rnd(Math.max(1, text.length - at));
        const end = Math.min(text.length, start + rnd(6));
        edits.push({ start, end, text: ["", "X", "Y\nZ", "\n"][rnd(4)] as string });
        at = end + 1;
      }
      if (edits.length) roundTrip(text, edits);
    }
  });
});
