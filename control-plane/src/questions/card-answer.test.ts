// The answer rules of the question port, and the worker brief and duration formats.
import { describe, expect, it } from "vitest";
import { Card } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { checkAnswer } from "./card-answer.js";
import { formatDuration, fullBrief } from "../vibe/worker.js";
import { TranscriptLog } from "@enclave/test-kit/transcript-log.js";

const card = (over: Partial<Card>): Card =>
  Card.fromPartial({
    number: 4,
    options: [
      { label: "a", description: "" },
      { label: "b", description: "" },
    ],
    ...over,
  });
const answer = (over: { selected?: string[]; freeText?: string; skip?: boolean }) => ({ selected: [], freeText: "", skip: false, ...over });

describe("checkAnswer", () => {
  it("accepts one existing option on a single-choice card", () => {
    expect(checkAnswer(card({}), answer({ selected: ["a"] }))).toEqual({ ok: true, answer: answer({ selected: ["a"] }) });
  });
  it("refuses what the card does not take", async () => {
    // A refusal has one outcome (the answer is not taken); what tells the cases apart is its reason,
    // recorded whole, a header line per case.
    const log = new TranscriptLog();
    const refused = (name: string, c: Card, a: ReturnType<typeof answer>) => {
      const r = checkAnswer(c, a);
      expect(r.ok, name).toBe(false);
      log.add(name, r.ok ? "" : r.reason);
    };
    refused("an option the card lacks", card({}), answer({ selected: ["c"] }));
    refused("two choices on a single-choice card", card({}), answer({ selected: ["a", "b"] }));
    refused("one option chosen twice", card({ multiSelect: true }), answer({ selected: ["a", "a"] }));
    refused("free text on a card without it", card({}), answer({ freeText: "hi" }));
    refused("nothing", card({}), answer({}));
    refused("blank free text", card({}), answer({ freeText: "   " }));
    refused("free text over the cap", card({ allowFreeText: true }), answer({ freeText: "x".repeat(20_000) }));
    refused("a skip with text", card({}), answer({ skip: true, freeText: "why" }));
    await log.expect("transcripts/card-answer/refusals.txt");
  });
  it("accepts several choices with text where allowed, and a bare skip", () => {
    expect(checkAnswer(card({ multiSelect: true, allowFreeText: true }), answer({ selected: ["b", "a"], freeText: " both " }))).toEqual({
      ok: true,
      answer: answer({ selected: ["b", "a"], freeText: "both" }),
    });
    expect(checkAnswer(card({}), answer({ skip: true }))).toEqual({ ok: true, answer: answer({ skip: true }) });
  });
});

describe("vibe formats", () => {
  it("appends follow-ups after the brief", () => {
    expect(fullBrief({ brief: "do x", messages: [] })).toBe("do x\n");
    expect(fullBrief({ brief: "do x", messages: ["also y", "and z"] })).toBe("do x\n\n--- follow-up 1 ---\nalso y\n\n--- follow-up 2 ---\nand z\n");
  });
  it("formats durations", () => {
    expect(formatDuration(1234)).toBe("1.2 s");
    expect(formatDuration(125_000)).toBe("2 min 5 s");
    expect(formatDuration(3_720_000)).toBe("1 h 2 min");
  });
});
