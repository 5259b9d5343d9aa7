import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { applyHunks, PatchError, parseUnifiedDiff } from "./unified-diff.js";
import { thrown } from "@enclave/test-kit/transcript-log.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";

describe("unified diffs", () => {
  it("applies a moved hunk and keeps a missing final newline", () => {
    const [p] = parseUnifiedDiff("--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n\\ No newline at end of file\n");
    expect(applyHunks("x\na\nb", p?.hunks ?? [], "f")).toBe("x\na\nB");
  });
  it("creates and deletes files", () => {
    const [add, del] = parseUnifiedDiff("--- /dev/null\n+++ b/n\n@@ -0,0 +1,2 @@\n+1\n+2\n--- a/o\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n");
    expect(add?.oldPath).toBeNull();
    expect(applyHunks("", add?.hunks ?? [], "n")).toBe("1\n2\n");
    expect(del?.newPath).toBeNull();
    expect(applyHunks("gone\n", del?.hunks ?? [], "o")).toBe("");
  });
  it("refuses context that is not there and text that is no diff", async () => {
    const [p] = parseUnifiedDiff("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-zzz\n+y\n");
    expect(() => applyHunks("a\n", p?.hunks ?? [], "f")).toThrow(PatchError);
    await expectTranscript(
      thrown(() => parseUnifiedDiff("hello")),
      "transcripts/unified-diff/no-file-changes.txt",
    );
  });
});

/** The `git diff` of a change made in a scratch repository: the text real tools hand to apply_patch. */
function gitDiff(before: Record<string, string>, after: Record<string, string | null>): string {
  const dir = mkdtempSync(join(tmpdir(), "unified-diff-"));
  try {
    const git = (...args: string[]): string =>
      execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", "-c", "core.autocrlf=false", ...args], { cwd: dir, encoding: "utf8" });
    git("init", "-q");
    writeFileSync(join(dir, ".keep"), "");
    for (const [f, c] of Object.entries(before)) writeFileSync(join(dir, f), c);
    git("add", "-A");
    git("commit", "-qm", "before");
    for (const [f, c] of Object.entries(after))
      if (c === null) rmSync(join(dir, f));
      else writeFileSync(join(dir, f), c);
    git("add", "-A");
    return git("diff", "--cached");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Applies a diff to `before` file by file, as apply_patch computes new contents. */
function applyAll(diff: string, before: Record<string, string>): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const p of parseUnifiedDiff(diff)) {
    const old = p.oldPath === null ? "" : (before[p.oldPath] ?? "");
    const path = p.newPath ?? p.oldPath ?? "";
    if (p.rename && p.oldPath !== null) out[p.oldPath] = null;
    out[path] = p.newPath === null ? null : applyHunks(old, p.hunks, path);
  }
  return out;
}

describe("real git diffs", () => {
  const forty = Array.from({ length: 40 }, (_, i) => `line ${i}`);
  const cases: Record<string, [Record<string, string>, Record<string, string | null>]> = {
    "a changed last line without a final newline": [{ f: "a\nb\nc" }, { f: "a\nb\nC" }],
    "a final newline added": [{ f: "a\nb" }, { f: "a\nb\n" }],
    "a final newline removed": [{ f: "a\nb\n" }, { f: "a\nb" }],
    "a CRLF file": [{ f: "a\r\nb\r\nc\r\n" }, { f: "a\r\nB\r\nc\r\n" }],
    "a CRLF file losing its last break": [{ f: "a\r\nb\r\n" }, { f: "a\r\nb" }],
    "several hunks": [{ f: forty.join("\n") + "\n" }, { f: forty.map((l, i) => (i % 15 === 3 ? l.toUpperCase() : l)).join("\n") + "\n" }],
    "a file deleted and one created": [{ gone: "old\ntext\n" }, { gone: null, made: "new\nfile\n" }],
    "an empty file created": [{}, { empty: "" }],
    "a file renamed unchanged": [{ old: forty.join("\n") + "\n" }, { old: null, moved: forty.join("\n") + "\n" }],
    "a file renamed and changed": [{ old: forty.join("\n") + "\n" }, { old: null, moved: forty.map((l, i) => (i === 20 ? "changed" : l)).join("\n") + "\n" }],
  };
  for (const [name, [before, after]] of Object.entries(cases)) {
    it(`applies ${name}`, () => {
      expect(applyAll(gitDiff(before, after), before)).toEqual(after);
    });
  }
  it("knows a rename from git's extended headers, and a file section naming two files without them", () => {
    const [p] = parseUnifiedDiff(gitDiff({ old: forty.join("\n") + "\n" }, { old: null, moved: forty.join("\n") + "\n" }));
    expect(p).toMatchObject({ oldPath: "old", newPath: "moved", rename: true, hunks: [] });
    const [q] = parseUnifiedDiff("--- a/x\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n");
    expect(q).toMatchObject({ oldPath: "x", newPath: "y", rename: false });
  });
  it("names the first hunk that does not apply", async () => {
    const diff = gitDiff({ f: forty.join("\n") + "\n" }, { f: forty.map((l, i) => (i % 15 === 3 ? l.toUpperCase() : l)).join("\n") + "\n" });
    const [p] = parseUnifiedDiff(diff);
    await expectTranscript(
      thrown(() => applyHunks(forty.join("\n").replace("line 18", "other") + "\n", p?.hunks ?? [], "f")),
      "transcripts/unified-diff/hunk-2-16-7-16-7.txt",
    );
  });
  it("reads a patch carried with CRLF breaks as the LF patch it was", () => {
    const before = { f: "a\nb\nc\n" };
    const after = { f: "a\nB\nc\n" };
    expect(applyAll(gitDiff(before, after).replace(/\n/g, "\r\n"), before)).toEqual(after);
  });
});
