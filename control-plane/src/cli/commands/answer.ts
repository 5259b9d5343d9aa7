// enclave answer ID N [LABEL...]: answers a card.
import { type CommandContext, usage } from "../context.js";
import { HELP } from "../help.js";
import { say, sayJson } from "../terminal-text.js";

export async function answerCommand({ sub, rest, opts, client }: CommandContext): Promise<void> {
  const [n, ...labels] = rest;
  const number = Number(n);
  if (!sub || !Number.isInteger(number) || number < 1) usage(HELP.answer ?? "");
  const card = await client.answerCard(sub, number, { selected: labels, freeText: opts.text ?? "", skip: opts.skip ?? false });
  if (opts.json) return sayJson(card);
  say(`card #${card.number} ${card.state}`);
}
