import { describe, expect, it } from "vitest";
import { applyHunks, PatchError, parseUnifiedDiff } from "../../enclave-agent/src/fs/unified-diff.js";

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
  it("refuses context that is not there and text that is no diff", () => {
    const [p] = parseUnifiedDiff("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-zzz\n+y\n");
    expect(() => applyHunks("a\n", p?.hunks ?? [], "f")).toThrow(PatchError);
    expect(() => parseUnifiedDiff("hello")).toThrow(/no file changes/);
  });
});
