// What a gRPC status can carry: a message made well-formed and cut to a bounded percent-encoded size,
// and a caller's string quoted in an error cut to a bounded length.
import { describe, expect, it } from "vitest";
import { statusMessage } from "@enclave/proto/status-message.js";
import { LIMITS as AGENT_LIMITS } from "@enclave/agent/limits.js";
import { LIMITS } from "@enclave/control-plane/limits.js";
import { quoted } from "@enclave/control-plane/text/wording.js";

/** Whether a string holds no lone surrogate (encodeURI throws on one). */
function wellFormed(s: string): boolean {
  try {
    encodeURI(s);
    return true;
  } catch {
    return false;
  }
}

describe("statusMessage", () => {
  it("keeps a short message as it is", () => {
    expect(statusMessage("run `r1` is not open")).toBe("run `r1` is not open");
  });

  for (const [name, text] of [
    ["ASCII", "a".repeat(500_000)],
    ["two-byte", "é".repeat(300_000)],
    ["three-byte", "€".repeat(300_000)],
    ["astral", "😀".repeat(200_000)],
  ] as const) {
    it(`cuts a long ${name} message to the percent-encoded bound, never splitting a character`, () => {
      const out = statusMessage(text);
      expect(Buffer.byteLength(encodeURI(out))).toBeLessThanOrEqual(AGENT_LIMITS.statusMessageMaxBytes);
      expect(out.startsWith(text.slice(0, 100))).toBe(true);
      expect(wellFormed(out)).toBe(true);
    });
  }

  it("replaces lone surrogates, which cannot be percent-encoded", () => {
    const out = statusMessage("a\uD800b\uDC00c");
    expect(out).toBe("a\uFFFDb\uFFFDc");
    expect(() => encodeURI(out)).not.toThrow();
  });
});

describe("quoted", () => {
  it("quotes a short string whole and cuts a long one to the limit", () => {
    expect(quoted("plan")).toBe("`plan`");
    const long = quoted("x".repeat(100_000));
    expect(long.length).toBeLessThan(LIMITS.errorQuoteMaxChars + 40);
    expect(long.startsWith(`\`${"x".repeat(LIMITS.errorQuoteMaxChars)}`)).toBe(true);
  });

  it("never splits a surrogate pair", () => {
    expect(wellFormed(quoted("😀".repeat(1_000)))).toBe(true);
  });
});
