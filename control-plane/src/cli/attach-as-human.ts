// The terminal as the human for one tool call's permission cards.
import { createInterface, type Interface } from "node:readline";
import type { Card, Run } from "@enclave/proto/gen/enclave/control/v1/control.js";
import type { ControlPlaneClient } from "@enclave/client/control-plane-client.js";
import { showCardWithArguments } from "./show.js";
import { sayError } from "./terminal-text.js";

/**
 * Attaches as the human to the run's cards while its call runs: each permission card this run raises
 * after attaching (the call's own, and those of the bridge calls its cell makes) is shown with its
 * complete arguments and asked about on the terminal, one at a time (answered allow with --yes).
 * Other runs' cards are left to whoever else is attached. A card closed meanwhile (answered elsewhere,
 * timed out) is no longer asked about. Returns the detach.
 */
export async function attachAsHuman(client: ControlPlaneClient, run: Run, tool: string, yes: boolean): Promise<() => void> {
  if (run.approvalPolicy === "never") return () => undefined;
  // Attached only when this call can raise a card: while attached, other runs' cards in the
  // conversation wait for an answer instead of failing at once.
  if (run.approvalPolicy === "write") {
    // A tool not listed (resolve is hidden while nothing is pending) may still be gated: attach.
    const tier = (await client.listTools(run.id)).tools.find((t) => t.name === tool)?.tier;
    if (tier === "read") return () => undefined;
  }
  let attached = false;
  let detached = false;
  let reader: Interface | undefined;
  let stdinEnded = false;
  /** The answer typed, "" at the end of input, undefined when the card closed first. */
  const askLine = (prompt: string, closed: AbortSignal): Promise<string | undefined> =>
    new Promise((resolve) => {
      if (stdinEnded) {
        process.stderr.write(`${prompt}(no input: deny)\n`);
        resolve("");
        return;
      }
      if (!reader) {
        reader = createInterface({ input: process.stdin, output: process.stderr, terminal: Boolean(process.stdin.isTTY) });
        reader.on("close", () => (stdinEnded = true));
      }
      const r = reader;
      const onEnd = (): void => resolve("");
      const onClosed = (): void => {
        r.off("close", onEnd);
        process.stderr.write("\n");
        resolve(undefined);
      };
      r.once("close", onEnd);
      closed.addEventListener("abort", onClosed, { once: true });
      r.question(prompt, { signal: closed }, (answer) => {
        r.off("close", onEnd);
        closed.removeEventListener("abort", onClosed);
        resolve(answer);
      });
    });
  const open = new Map<number, AbortController>();
  const ask = async (c: Card): Promise<void> => {
    const closed = open.get(c.number);
    if (detached || !closed || closed.signal.aborted) return;
    sayError(await showCardWithArguments(client, c));
    let allow: boolean;
    if (yes) {
      sayError("allow? [y/N] y (--yes)");
      allow = true;
    } else {
      const answer = await askLine("allow? [y/N] ", closed.signal);
      if (answer === undefined) {
        sayError(`card #${c.number} closed before it was answered here`);
        return;
      }
      allow = /^\s*y(es)?\s*$/i.test(answer);
    }
    if (detached) return;
    await client
      .answerCard(c.conversationId, c.number, { selected: [allow ? "allow" : "deny"] })
      .catch((err: unknown) => sayError(`card #${c.number} could not be answered (${(err as Error).message})`));
  };
  let asking = Promise.resolve();
  const watch = client.subscribeCards(run.targetSpace, (e) => {
    const ev = e.event;
    if (ev?.$case === "subscribed") attached = true;
    if (ev?.$case === "closed") open.get(ev.value.number)?.abort();
    // Cards open before this call attached belong to other calls.
    if (!attached || ev?.$case !== "opened") return;
    const c = ev.value;
    if (c.kind !== "permission" || c.runId !== run.id || c.state !== "open" || open.has(c.number)) return;
    open.set(c.number, new AbortController());
    asking = asking.then(() => ask(c));
  });
  await watch.ready;
  return () => {
    detached = true;
    watch.cancel();
    for (const c of open.values()) c.abort();
    reader?.close();
  };
}
