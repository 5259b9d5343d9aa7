// The CLI's one output filter: control characters an agent wrote become visible escapes.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { SafeStream, terminalSafe } from "./terminal-text.js";

describe("terminalSafe", () => {
  it("escapes C0 (but newline and tab), DEL, C1 and bidi overrides, and leaves other text alone", () => {
    expect(terminalSafe("a\tb\nc")).toBe("a\tb\nc");
    expect(terminalSafe("\x1b[2J\x07\r\x00\x7f")).toBe("\\x1b[2J\\x07\\x0d\\x00\\x7f");
    expect(terminalSafe("\u009b31m\u0085\u0080\u009f")).toBe("\\u009b31m\\u0085\\u0080\\u009f");
    expect(terminalSafe("abc\u202etxt.exe\u2066x\u2069")).toBe("abc\\u202etxt.exe\\u2066x\\u2069");
    expect(terminalSafe("größe — 日本語 😀 \\x1b")).toBe("größe — 日本語 😀 \\x1b");
    // JSON stays JSON: C1 characters JSON.stringify leaves raw become \u escapes of the same value.
    const json = JSON.stringify({ s: "\u009b\x1b" });
    expect(JSON.parse(terminalSafe(json))).toEqual({ s: "\u009b\x1b" });
  });

  it("decodes streamed UTF-8 across chunk boundaries before escaping", () => {
    const sink = new PassThrough();
    const chunks: string[] = [];
    sink.on("data", (c: Buffer) => chunks.push(c.toString("utf8")));
    const out = new SafeStream(sink);
    const bytes = Buffer.from("é\u009b\x1b[0m😀", "utf8");
    for (const b of bytes) out.write(Buffer.from([b]));
    out.end();
    expect(chunks.join("")).toBe("é\\u009b\\x1b[0m😀");
  });
});
