import { describe, expect, it } from "vitest";
import { expectTranscript, masked } from "@enclave/test-kit/transcript.js";

describe("transcripts", () => {
  it("masks what varies between runs and keeps the wording", () => {
    const text = "session s-1a2b3c4d (lldb, c/prog) stopped after 12 ms in c-0011223344 at /tmp/enc-x/work on 127.0.0.1:40123";
    expect(masked(text)).toBe("session s-<id> (lldb, c/prog) stopped after <duration> in c-<id> at <tmp> on <loopback>");
    expect(masked("a b", [[/b/g, "B"]])).toBe("a B");
  });

  it("compares a whole text with its recorded file", async () => {
    await expectTranscript("line one\nrun r-abcdef012345 took 3.5 s\n", "transcripts/transcript/sample.txt");
  });
});
