// Which files a permission card names for a call, from its arguments alone.
import { describe, expect, it } from "vitest";
import { displayPath, touchedFiles } from "./touched-files.js";
import { PendingActionStore } from "../pending/pending-action-store.js";
import { TranscriptLog } from "@enclave/test-kit/transcript-log.js";

describe("touchedFiles", () => {
  it("takes every file of a patch as the agent parses it: added, changed, deleted, quoted, with timestamps", async () => {
    const patch = [
      "diff --git a/src/x.ts b/src/x.ts",
      "--- a/src/x.ts\t2024-01-01 00:00:00",
      "+++ b/src/x.ts\t2024-01-01 00:00:01",
      "@@ -1 +1 @@",
      "-a",
      "+b",
      "--- /dev/null",
      '+++ "b/with space\\tand tab.txt"',
      "@@ -0,0 +1 @@",
      "+new",
      "--- a/gone.txt",
      "+++ /dev/null",
      "@@ -1 +0,0 @@",
      "-old",
      "",
    ].join("\n");
    expect(touchedFiles("apply_patch", { patch })).toEqual({ files: ["src/x.ts", "with space\tand tab.txt", "gone.txt"], note: "" });
    const broken = touchedFiles("apply_patch", { patch: "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n" });
    expect(broken.files).toEqual([]);
    const log = new TranscriptLog();
    log.add("apply_patch with a hunk shorter than its header", broken.note);
    await log.expect("transcripts/touched-files/unparsed-patch.txt");
  });

  it("names the files of the staged change a resolve would apply, or says it would apply nothing", async () => {
    const store = new PendingActionStore();
    const a = store.push({ label: "first", files: ["a.py", "b.py"], apply: () => "ok" });
    const b = store.push({ label: "second", apply: () => "ok", sourceToolName: "my_tool" });
    const lookup = (id: string | undefined) => (id === undefined ? store.peek() : store.lookup(id));
    expect(touchedFiles("resolve", { edit_id: a.id, action: "apply", reason: "" }, lookup)).toEqual({ files: ["a.py", "b.py"], note: "" });
    const unnamed = touchedFiles("resolve", { action: "apply", reason: "" }, lookup).note;
    // It names the staged change it means (its id varies from run to run).
    expect(unnamed.startsWith(`${b.id} `)).toBe(true);
    const log = new TranscriptLog();
    log.add("resolve apply of a change that names no files", unnamed.replace(b.id, "<edit id>"));
    expect(touchedFiles("resolve", { edit_id: a.id, action: "discard", reason: "" }, lookup)).toEqual({
      files: [],
      note: `discards ${a.id} (first); writes nothing`,
    });
    expect(touchedFiles("resolve", { edit_id: "edit_9", action: "apply", reason: "" }, lookup).note).toBe(
      "no pending action `edit_9`: the call will fail and change nothing",
    );
    await log.expect("transcripts/touched-files/unnamed-change.txt");
  });

  it("lists paths of file tools, and says what a list cannot for commands, renames and unknown tools", async () => {
    expect(touchedFiles("write", { path: "a/b.txt", content: "x" })).toEqual({ files: ["a/b.txt"], note: "" });
    expect(touchedFiles("edit", { path: "../escape", old_text: "a", new_text: "b" }).files).toEqual(["../escape"]);
    expect(touchedFiles("exec", { command: "make" }).note).toBe(
      "runs a shell command: it can read and change any file of the workspace, so no list is complete",
    );
    const log = new TranscriptLog();
    log.add("eval", touchedFiles("eval", { code: "open('x','w')" }).note);
    const rename = touchedFiles("lsp_rename", { file: "m.py", line: 1, symbol: "f", new_name: "g" });
    expect(rename.files).toEqual(["m.py"]);
    log.add("lsp_rename", rename.note);
    expect(touchedFiles("debug", { op: "launch", program: "main.py" })).toMatchObject({ files: ["main.py"] });
    expect(touchedFiles("drop_table", { path: "db.sqlite", files: ["x", 3, "y"] })).toEqual({
      files: ["db.sqlite", "x", "y"],
      note: "`drop_table` is not a built-in tool: files are taken from its path/file arguments, and it may touch others",
    });
    expect(touchedFiles("write", "not an object")).toEqual({ files: [], note: "" });
  });

  it("quotes a listed path that could pass for more than one name or for the text around it", () => {
    expect(displayPath("src/a b.ts")).toBe("src/a b.ts");
    expect(displayPath("a.txt\nFiles it touches: none")).toBe('"a.txt\\nFiles it touches: none"');
    expect(displayPath("a.txt, b.txt")).toBe('"a.txt, b.txt"');
    expect(displayPath(" lead")).toBe('" lead"');
    expect(displayPath("x\u202etxt.exe")).toBe('"x\u202etxt.exe"');
  });
});
