// ask_user (tier read): the one way a run asks the operator something. Shows a numbered card in the
// run's target space and blocks until an answer, a skip (a success) or the timeout (an error). With
// nobody attached to that conversation it fails at once instead of waiting for no one.
import { z } from "zod";
import { EnclaveError } from "../../errors.js";
import { LIMITS } from "../../limits.js";
import { defineTool } from "../tool.js";
import type { CardOutcome, QuestionPort } from "../../questions/question-port.js";
import { bareId } from "../../conversations/conversation-keys.js";

const PROCEED = "Do not ask this again: proceed on a reasonable assumption, and state the assumption you are making.";

function answerText(o: Extract<CardOutcome, { state: "answered" }>): string {
  const lines = [`The operator answered card #${o.card.number}.`];
  if (o.selected.length) lines.push(`${o.selected.length > 1 ? "Chosen" : "Chose"}: ${o.selected.map((s) => `"${s}"`).join(", ")}`);
  if (o.freeText) lines.push(`Wrote: ${o.freeText}`);
  return lines.join("\n");
}

/** ask_user's details: how the card was settled and what the operator answered. */
export const ASK_USER_DETAILS = z.object({
  card: z.number().int().describe("the card's number in the conversation"),
  outcome: z
    .enum(["answered", "skipped", "timed_out"])
    .describe("skipped: the operator declined to answer; timed_out: nobody answered in time (an error result)"),
  selected: z.array(z.string()).describe("the labels of the options chosen, in the operator's order; empty unless answered"),
  free_text: z.string().nullable().describe("what the operator wrote; null when nothing"),
});

const optionSchema = z.strictObject({
  label: z.string().trim().min(1).max(200).describe("what the operator picks; returned as the answer"),
  description: z.string().max(LIMITS.questionTextMaxChars).optional().describe("what choosing it means"),
});

const argsSchema = z
  .strictObject({
    question: z.string().trim().min(1).max(LIMITS.questionTextMaxChars).describe("the question, as the operator will read it"),
    context: z.string().max(LIMITS.questionTextMaxChars).optional().describe("why you ask, and what depends on the answer"),
    options: z.array(optionSchema).max(LIMITS.questionMaxOptions).optional().describe("choices to offer; omit for a free-text question"),
    allow_free_text: z.boolean().optional().describe("whether the operator may write an answer (default: true without options, false with)"),
    multi_select: z.boolean().optional().describe("whether several options may be chosen (default false)"),
  })
  .superRefine((a, ctx) => {
    const labels = (a.options ?? []).map((o) => o.label);
    const dup = labels.find((l, i) => labels.indexOf(l) !== i);
    if (dup !== undefined) ctx.addIssue({ code: "custom", path: ["options"], message: `option "${dup}" appears twice; labels must be distinct` });
    if (!labels.length && a.allow_free_text === false) {
      ctx.addIssue({ code: "custom", path: ["allow_free_text"], message: "with no options, the operator could only skip: give options or allow free text" });
    }
    if (a.multi_select && !labels.length) ctx.addIssue({ code: "custom", path: ["multi_select"], message: "multi_select needs options" });
  });

export function askUserTool(port: QuestionPort, defaultTimeoutMs: () => number) {
  return defineTool({
    name: "ask_user",
    tier: "read",
    resource: "questions",
    description:
      "Ask the human operator a question and wait for the answer (shown as a numbered card in the conversation; do not ask in a chat message, that ends the turn). " +
      "Offer options when you can. A skip means: proceed on a stated assumption and do not ask again.",
    parallelSafe: true,
    args: argsSchema,
    details: ASK_USER_DETAILS,
    async run(args, ctx) {
      const options = (args.options ?? []).map((o) => ({ label: o.label, description: o.description ?? "" }));
      const timeoutMs = ctx.run.questionTimeoutMs || defaultTimeoutMs();
      const outcome = await port.raise({
        space: ctx.run.targetSpace,
        kind: "question",
        question: args.question,
        context: args.context ?? "",
        options,
        allowFreeText: args.allow_free_text ?? options.length === 0,
        multiSelect: args.multi_select ?? false,
        runId: ctx.run.id,
        timeoutMs,
        signal: ctx.signal,
      });
      switch (outcome.state) {
        case "answered":
          return {
            parts: [{ type: "text", text: answerText(outcome) }],
            details: { card: outcome.card.number, outcome: "answered" as const, selected: outcome.selected, free_text: outcome.freeText || null },
          };
        case "skipped":
          return {
            parts: [{ type: "text", text: `The operator dismissed card #${outcome.card.number} without answering. ${PROCEED}` }],
            details: { card: outcome.card.number, outcome: "skipped" as const, selected: [], free_text: null },
          };
        case "timed_out": {
          // An error that still says which card went unanswered: returned, not thrown, so its details go with it.
          const message = `Nobody answered card #${outcome.card.number} within ${Math.round(timeoutMs / 1000)} s. ${PROCEED}`;
          return {
            parts: [{ type: "text", text: message }],
            error: { code: "timeout" as const },
            audit: { detail: message },
            details: { card: outcome.card.number, outcome: "timed_out" as const, selected: [], free_text: null },
          };
        }
        case "no_subscriber":
          throw new EnclaveError(
            "failed_precondition",
            `Nobody is attached to conversation \`${bareId(outcome.space)}\` to answer questions, so none was asked. ${PROCEED}`,
          );
      }
    },
  });
}
