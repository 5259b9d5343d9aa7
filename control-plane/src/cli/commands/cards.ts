// enclave cards [ID] [--follow]: the cards, or every card as it opens and closes. With --json: the
// cards as one array, or with --follow one event object per line.
import type { CommandContext } from "../context.js";
import { showCardFull } from "../show.js";
import { say, sayError, sayJson } from "../terminal-text.js";

export async function cardsCommand({ sub: id, opts, client }: CommandContext): Promise<void> {
  const full = opts.full ?? false;
  if (!opts.follow) {
    const cards = await client.listCards(id, opts.all ?? false);
    if (opts.json) return sayJson(cards);
    const shown: string[] = [];
    for (const c of cards) shown.push(await showCardFull(client, c, full));
    say(shown.length ? shown.join("\n\n") : `no ${opts.all ? "" : "open "}cards${id ? ` in ${id}` : ""}`);
    return;
  }
  // One at a time, in the order they came: a card's complete arguments are read before the next event prints.
  let printing = Promise.resolve();
  const watch = client.subscribeCards(id, (e) => {
    const ev = e.event;
    printing = printing.then(async () => {
      if (opts.json) return ev && sayJson({ event: ev.$case, value: ev.value });
      if (ev?.$case === "opened") say(`${await showCardFull(client, ev.value, full)}\n`);
      else if (ev?.$case === "closed") say(`#${ev.value.number} ${ev.value.conversationId} closed: ${ev.value.state}\n`);
    });
  });
  await watch.ready;
  sayError(`attached to ${id ? `conversation ${id}` : "every conversation"}; answer with \`enclave answer ID N ...\` (Ctrl-C to detach)`);
  await watch.done;
  await printing;
}
