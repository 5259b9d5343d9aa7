import { describe, expect, it } from "vitest";
import { formatTraceparent, parseTraceparent } from "./traceparent.js";

const good = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

describe("parseTraceparent", () => {
  it("reads version 00 and writes it back the same", () => {
    const p = parseTraceparent(good);
    expect(p).toEqual({ traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", flags: 1 });
    expect(formatTraceparent(p!)).toBe(good);
  });

  it.each([
    ["empty", ""],
    ["not a string", 42],
    ["upper-case hex", good.toUpperCase()],
    ["another version", good.replace(/^00/, "01")],
    ["version ff", good.replace(/^00/, "ff")],
    ["a trailing field", `${good}-extra`],
    ["surrounding space", ` ${good}`],
    ["a trailing newline", `${good}\n`.slice(1)],
    ["all-zero trace id", "00-00000000000000000000000000000000-b7ad6b7169203331-01"],
    ["all-zero span id", "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01"],
    ["non-hex", "00-0af7651916cd43dd8448eb211c80319z-b7ad6b7169203331-01"],
    ["short flags", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-1"],
    ["huge", "0".repeat(100_000)],
  ])("ignores %s", (_what, value) => {
    expect(parseTraceparent(value)).toBeUndefined();
  });
});
