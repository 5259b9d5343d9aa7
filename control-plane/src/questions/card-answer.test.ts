// The answer rules of the question port, and the worker brief and duration formats.
import { describe, expect, it } from "vitest";
import { Card } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { checkAnswer } from "./card-answer.js";
import { formatDuration, fullBrief } from "../vibe/worker.js";

const card = (over: Partial<Card>): Card =>
  Card.fromPartial({ number: 4, options: [{ label: "a", description: "" }, { label: "b", description: "" }], ...over });
const answer = (over: { selected?: string[]; freeText?: string; skip?: boolean }) => ({ selected: [], freeText: "", skip: false, ...over });

describe("checkAnswer", () => {
  it("accepts one existing option on a single-choice card", () => {
    expect(checkAnswer(card({}), answer({ selected: ["a"] }))).toEqual({ ok: true, answer: answer({ selected: ["a"] }) });
  });
  it("refuses what the card does not take", () => {
    const refused = (c: Card, a: ReturnType<typeof answer>) => {
      const r = checkAnswer(c, a);
      return r.ok ? "" : r.reason;
    };
    expect(refused(card({}), answer({ selected: ["c"] }))).toMatch(/no option "c" on card #4: the options are "a", "b"/);
    expect(refused(card({}), answer({ selected: ["a", "b"] }))).toMatch(/takes one choice, and 2 were given/);
    expect(refused(card({ multiSelect: true }), answer({ selected: ["a", "a"] }))).toMatch(/chosen twice/);
    expect(refused(card({}), answer({ freeText: "hi" }))).toMatch(/does not take free text/);
    expect(refused(card({}), answer({}))).toMatch(/the answer is empty: choose from "a", "b", or skip/);
    expect(refused(card({}), answer({ freeText: "   " }))).toMatch(/the answer is empty/);
    expect(refused(card({ allowFreeText: true }), answer({ freeText: "x".repeat(20_000) }))).toMatch(/over 16384 characters/);
    expect(refused(card({}), answer({ skip: true, freeText: "why" }))).toMatch(/a skip carries no choice or text/);
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
