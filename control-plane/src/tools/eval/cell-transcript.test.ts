import { describe, expect, it } from "vitest";
import { CellTranscript, renderDisplay } from "./cell-transcript.js";
import { LIMITS } from "../../limits.js";
import { joinLines } from "../../text/wording.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";

const item = (mimeType: string, data: string | Buffer) => ({ mimeType, data: Buffer.isBuffer(data) ? data : Buffer.from(data) });

describe("renderDisplay", () => {
  it("prefers an image, then markdown with HTML kept beside it, then plain text", () => {
    expect(renderDisplay({ echo: false, items: [item("text/plain", "<Figure>"), item("image/png", Buffer.from([1, 2]))] }).parts[0]?.type).toBe("image");
    const table = renderDisplay({ echo: true, items: [item("text/plain", "df"), item("text/markdown", "| a |"), item("text/html", "<table/>")] });
    expect(table.text).toBe("| a |");
    expect(table.parts).toEqual([{ type: "rich", mimeType: "text/html", text: "<table/>" }]);
    expect(renderDisplay({ echo: true, items: [item("text/plain", "42")] })).toEqual({ text: "42", parts: [] });
  });
});

describe("CellTranscript", () => {
  it("keeps output and displays in order, on lines of their own, and decodes split UTF-8", () => {
    const t = new CellTranscript();
    const euro = Buffer.from("€");
    t.output("stdout", Buffer.concat([Buffer.from("a "), euro.subarray(0, 1)]));
    t.output("stdout", euro.subarray(1));
    t.display({ echo: false, items: [item("image/png", Buffer.from([0x89]))] });
    t.output("stderr", Buffer.from("warn"));
    t.display({ echo: true, items: [item("text/plain", "7")] });
    expect(t.parts()).toEqual([
      { type: "text", text: "a €", streamed: true },
      { type: "image", mimeType: "image/png", data: Buffer.from([0x89]), streamed: true },
      { type: "text", text: "warn\n7", streamed: true },
    ]);
  });

  it("sets markdown off with blank lines: two tables stay two, and printed text is not a row", () => {
    const t = new CellTranscript();
    const table = (n: number) => ({ echo: false, items: [item("text/plain", "df"), item("text/markdown", `| n |\n|---|\n| ${n} |`)] });
    t.output("stdout", Buffer.from("before\n"));
    t.display(table(1));
    t.display(table(2));
    t.output("stdout", Buffer.from("after\n"));
    t.display({ echo: true, items: [item("text/plain", "7")] });
    expect(t.parts()).toEqual([{ type: "text", text: "before\n\n| n |\n|---|\n| 1 |\n\n| n |\n|---|\n| 2 |\n\nafter\n7", streamed: true }]);
    // With the tables' HTML parts between them, the text parts still join into separate tables.
    const rich = new CellTranscript();
    const html = (n: number) => ({ echo: false, items: [item("text/markdown", `| n |\n|---|\n| ${n} |`), item("text/html", "<table/>")] });
    rich.display(html(1));
    rich.display(html(2));
    rich.output("stdout", Buffer.from("after"));
    const text = rich
      .parts()
      .map((p) => (p.type === "text" ? p.text : ""))
      .join("");
    expect(text).toBe("| n |\n|---|\n| 1 |\n\n| n |\n|---|\n| 2 |\n\nafter");
  });

  it("shows the JSON of an object whose text is only a placeholder, as a notebook renders it", () => {
    const json = renderDisplay({ echo: true, items: [item("text/plain", "<IPython.core.display.JSON object>"), item("application/json", '{\n  "a": 1\n}')] });
    expect(json.text).toBe('{\n  "a": 1\n}');
    expect(renderDisplay({ echo: true, items: [item("text/plain", "Result(a=1)"), item("application/json", "{}")] }).text).toBe("Result(a=1)");
  });

  it("cuts the middle of long output with a marker, keeping head and tail", async () => {
    const t = new CellTranscript();
    t.output("stdout", Buffer.from(`HEAD${"x".repeat(LIMITS.evalResultTextBytes * 2)}TAIL`));
    const [part] = t.parts();
    const text = part?.type === "text" ? part.text : "";
    expect(text.startsWith("HEAD")).toBe(true);
    expect(text.endsWith("TAIL")).toBe(true);
    // The marker between the kept head and tail, recorded whole.
    await expectTranscript(text.replace(/^HEADx+/, "HEAD<x…>").replace(/x+TAIL$/, "<x…>TAIL"), "transcripts/cell-transcript/middle-cut.txt");
    expect(Buffer.byteLength(text)).toBeLessThan(LIMITS.evalResultTextBytes + 200);
  });

  it("keeps at most the image cap and says how many were dropped", () => {
    const t = new CellTranscript();
    for (let i = 0; i < LIMITS.evalMaxImages + 3; i++) t.display({ echo: false, items: [item("image/png", Buffer.from([i]))] });
    const parts = t.parts();
    expect(parts.filter((p) => p.type === "image")).toHaveLength(LIMITS.evalMaxImages);
    expect(parts.at(-1)).toEqual({ type: "text", text: `[3 more image(s) not kept: a cell keeps at most ${LIMITS.evalMaxImages}]` });
  });

  it("keeps what streamed apart from the notes added once the cell ended, reading as the same text", () => {
    const t = new CellTranscript();
    t.output("stdout", Buffer.from("printed"));
    t.line("Traceback: boom");
    t.line("[output beyond the kernel's per-cell cap was dropped]");
    const parts = t.parts();
    expect(parts).toEqual([
      { type: "text", text: "printed\n", streamed: true },
      { type: "text", text: "Traceback: boom\n[output beyond the kernel's per-cell cap was dropped]" },
    ]);
    // Concatenated, or joined as resultText joins them, the text is what one part used to hold.
    const texts = parts.map((p) => (p.type === "text" ? p.text : ""));
    expect(texts.join("")).toBe("printed\nTraceback: boom\n[output beyond the kernel's per-cell cap was dropped]");
    expect(joinLines(texts)).toBe(texts.join(""));
  });
});
