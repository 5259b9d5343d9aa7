// Checking an answer against its card: pure, so the port and the unit tests share one rule set.
// A refusal is returned to the answerer (the card stays open), never to the agent.
import type { Card, CardAnswer } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { LIMITS } from "../limits.js";

export type CheckedAnswer = { ok: true; answer: CardAnswer } | { ok: false; reason: string };

function quoted(labels: readonly string[]): string {
  return labels.map((l) => `"${l}"`).join(", ");
}

export function checkAnswer(card: Card, raw: CardAnswer): CheckedAnswer {
  const selected = raw.selected;
  const freeText = raw.freeText.trim();
  const labels = card.options.map((o) => o.label);
  const offered = labels.length ? `the options are ${quoted(labels)}` : "this card has no options";
  if (raw.skip) {
    if (selected.length || freeText) return { ok: false, reason: "a skip carries no choice or text: send either a skip or an answer" };
    return { ok: true, answer: { selected: [], freeText: "", skip: true } };
  }
  const unknown = selected.filter((s) => !labels.includes(s));
  if (unknown.length) return { ok: false, reason: `no option ${quoted(unknown)} on card #${card.number}: ${offered}` };
  if (new Set(selected).size !== selected.length) return { ok: false, reason: "an option was chosen twice" };
  if (selected.length > 1 && !card.multiSelect) {
    return { ok: false, reason: `card #${card.number} takes one choice, and ${selected.length} were given (${quoted(selected)})` };
  }
  if (freeText && !card.allowFreeText) {
    return { ok: false, reason: `card #${card.number} does not take free text: choose from ${quoted(labels)}, or skip` };
  }
  if (freeText.length > LIMITS.answerFreeTextMaxChars) return { ok: false, reason: `free text is over ${LIMITS.answerFreeTextMaxChars} characters` };
  if (!selected.length && !freeText) {
    const how = [labels.length ? `choose from ${quoted(labels)}` : "", card.allowFreeText ? "write an answer" : "", "or skip"].filter(Boolean).join(", ");
    return { ok: false, reason: `the answer is empty: ${how}` };
  }
  return { ok: true, answer: { selected: [...selected], freeText, skip: false } };
}
