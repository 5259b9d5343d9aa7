// The question port: where a run's questions (ask_user) and permission requests (the approval gate)
// become numbered cards in a conversation, and where humans attached to that conversation answer
// them. Fail-closed: with nobody attached, a card is not raised at all.
import type { Card, CardAnswer, CardOption } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";
import { checkAnswer } from "./card-answer.js";
import { bareId } from "../conversations/conversation-keys.js";

export type CardKind = "question" | "permission";

export interface RaiseRequest {
  /** The conversation the card is shown in (the run's target space). */
  space: string;
  kind: CardKind;
  question: string;
  context: string;
  options: CardOption[];
  allowFreeText: boolean;
  multiSelect: boolean;
  runId: string;
  tool?: string;
  /** The complete arguments: the card carries a preview, argumentsPage() all of it while open. */
  argumentsJson?: string;
  /** The workspace files the call would touch, and what that list cannot say. */
  files?: string[];
  filesNote?: string;
  timeoutMs: number;
  signal: AbortSignal;
}

/** One page of a card's complete arguments. */
export interface ArgumentsPage {
  card: Card;
  text: string;
  offset: number;
  nextOffset: number;
  totalChars: number;
}

/** How a raised card ended for the asker. A cancelled call rejects instead. */
export type CardOutcome =
  | { state: "answered"; card: Card; selected: string[]; freeText: string }
  | { state: "skipped"; card: Card }
  | { state: "timed_out"; card: Card }
  | { state: "no_subscriber"; space: string };

export type CardEvent = { type: "opened" | "closed"; card: Card };
type Listener = (e: CardEvent) => void;

interface OpenCard {
  card: Card;
  /** The complete arguments JSON (the card's own is a preview when long). */
  fullArguments: string;
  settle(outcome: CardOutcome | EnclaveError): void;
}

/** The end of a slice of s that does not split a surrogate pair. */
function safeEnd(s: string, end: number): number {
  if (end <= 0 || end >= s.length) return Math.max(0, Math.min(end, s.length));
  const c = s.charCodeAt(end - 1);
  return c >= 0xd800 && c <= 0xdbff ? end - 1 : end;
}

const key = (space: string, n: number): string => `${space}#${n}`;

function countInMemory(): (space: string) => number {
  const counters = new Map<string, number>();
  return (space) => {
    const n = (counters.get(space) ?? 0) + 1;
    counters.set(space, n);
    return n;
  };
}

export class QuestionPort {
  private readonly open = new Map<string, OpenCard>();
  private readonly closed = new Map<string, Card[]>();
  private readonly subscribers = new Set<{ space: string | undefined; listener: Listener }>();

  /**
   * onClosed: told of every closed card (the audit log records who decided what); not a subscriber.
   * nextNumber: takes a space's next card number; the control plane's is stored (the audit
   * database), so numbers continue across restarts. By default, counted in memory from 1.
   */
  constructor(
    private readonly onClosed: (card: Card) => void = () => undefined,
    private readonly nextNumber: (space: string) => number = countInMemory(),
  ) {}

  /**
   * Attaches a human to one conversation's cards (or every conversation's, with no space). Returns
   * the cards open right now, so a subscriber that reconnects sees what is still waiting.
   */
  subscribe(space: string | undefined, listener: Listener): { openCards: Card[]; unsubscribe(): void } {
    const sub = { space: space || undefined, listener };
    this.subscribers.add(sub);
    return { openCards: this.list(space, false), unsubscribe: () => this.subscribers.delete(sub) };
  }

  /** Whether anyone would see a card raised in this conversation. */
  attached(space: string): boolean {
    for (const s of this.subscribers) if (s.space === undefined || s.space === space) return true;
    return false;
  }

  list(space: string | undefined, includeClosed: boolean): Card[] {
    const openCards = [...this.open.values()].map((o) => o.card).filter((c) => !space || c.conversationId === space);
    const closedCards = includeClosed ? [...this.closed.entries()].filter(([s]) => !space || s === space).flatMap(([, cards]) => cards) : [];
    return [...closedCards, ...openCards].sort((a, b) => a.createdAtMs - b.createdAtMs || a.number - b.number);
  }

  /** Shows a card and waits for it to be answered, skipped, or to time out. */
  raise(req: RaiseRequest): Promise<CardOutcome> {
    if (!this.attached(req.space)) return Promise.resolve({ state: "no_subscriber", space: req.space });
    if (req.signal.aborted) return Promise.reject(new EnclaveError("cancelled", "the call was cancelled before its card was shown"));
    const number = this.nextNumber(req.space);
    const now = Date.now();
    const fullArguments = req.argumentsJson ?? "";
    const previewEnd = safeEnd(fullArguments, LIMITS.permissionArgumentsChars);
    const card: Card = {
      conversationId: req.space,
      number,
      kind: req.kind,
      question: req.question,
      context: req.context,
      options: req.options.map((o) => ({ label: o.label, description: o.description })),
      allowFreeText: req.allowFreeText,
      multiSelect: req.multiSelect,
      runId: req.runId,
      tool: req.tool ?? "",
      argumentsJson: fullArguments.slice(0, previewEnd),
      createdAtMs: now,
      expiresAtMs: now + req.timeoutMs,
      state: "open",
      answer: undefined,
      closedAtMs: 0,
      files: req.files ?? [],
      filesNote: req.filesNote ?? "",
      argumentsChars: fullArguments.length,
      argumentsTruncated: previewEnd < fullArguments.length,
    };
    return new Promise<CardOutcome>((resolve, reject) => {
      const onAbort = (): void => {
        this.close(card, "cancelled", undefined, new EnclaveError("cancelled", `the call was cancelled; card #${number} was withdrawn`));
      };
      const timer = setTimeout(() => {
        this.close(card, "timed_out", undefined, { state: "timed_out", card });
      }, req.timeoutMs);
      this.open.set(key(req.space, number), {
        card,
        fullArguments,
        settle: (outcome) => {
          clearTimeout(timer);
          req.signal.removeEventListener("abort", onAbort);
          if (outcome instanceof EnclaveError) reject(outcome);
          else resolve(outcome);
        },
      });
      req.signal.addEventListener("abort", onAbort, { once: true });
      this.publish({ type: "opened", card });
    });
  }

  /**
   * A page of an open card's complete arguments (offset and limit in UTF-16 code units; limit 0 or
   * over the page maximum gives the largest page). Kept only while the card is open: that is when a
   * person decides on them; the audit log keeps their digest.
   */
  argumentsPage(space: string, number: number, offset = 0, limit = 0): ArgumentsPage {
    const entry = this.openForArguments(space, number);
    const total = entry.fullArguments.length;
    if (!Number.isSafeInteger(offset) || offset < 0 || offset > total) {
      throw new EnclaveError("invalid_arguments", `offset ${offset} is outside the arguments of card #${number} (0 to ${total} characters)`);
    }
    if (!Number.isSafeInteger(limit) || limit < 0) throw new EnclaveError("invalid_arguments", `limit ${limit} is not 0 or a positive number of characters`);
    const size = limit === 0 ? LIMITS.cardArgumentsPageChars : Math.min(limit, LIMITS.cardArgumentsPageChars);
    let end = safeEnd(entry.fullArguments, offset + size);
    // A limit of 1 at a surrogate pair still moves forward: the pair is returned whole.
    if (end <= offset && offset < total) end = Math.min(total, offset + 2);
    return { card: entry.card, text: entry.fullArguments.slice(offset, end), offset, nextOffset: end, totalChars: total };
  }

  /** An open card's complete arguments JSON at once (the console's download). */
  argumentsText(space: string, number: number): { card: Card; text: string } {
    const entry = this.openForArguments(space, number);
    return { card: entry.card, text: entry.fullArguments };
  }

  private openForArguments(space: string, number: number): OpenCard {
    const entry = this.open.get(key(space, number));
    if (!entry) {
      const past = this.closed.get(space)?.find((c) => c.number === number);
      if (past) {
        throw new EnclaveError(
          "failed_precondition",
          `card #${number} of \`${space}\` is closed (${past.state.replace("_", " ")}); complete arguments are kept only while a card is open (the audit log has their digest)`,
        );
      }
      throw new EnclaveError("not_found", `no card #${number} in conversation \`${bareId(space)}\``);
    }
    return entry;
  }

  /** An answer from a human. A bad one is refused to them and the card stays open. */
  answer(space: string, number: number, raw: CardAnswer | undefined): Card {
    const entry = this.open.get(key(space, number));
    if (!entry) {
      const past = this.closed.get(space)?.find((c) => c.number === number);
      if (past) throw new EnclaveError("failed_precondition", `card #${number} of \`${space}\` is already closed (${past.state.replace("_", " ")})`);
      throw new EnclaveError("not_found", `no card #${number} in conversation \`${bareId(space)}\``);
    }
    const checked = checkAnswer(entry.card, raw ?? { selected: [], freeText: "", skip: false });
    if (!checked.ok) throw new EnclaveError("invalid_arguments", `answer refused, card #${number} is still open: ${checked.reason}`);
    const a = checked.answer;
    const card = entry.card;
    return a.skip
      ? this.close(card, "skipped", a, { state: "skipped", card })
      : this.close(card, "answered", a, { state: "answered", card, selected: a.selected, freeText: a.freeText });
  }

  /** Withdraws the open cards of a run that closed: nobody is waiting for them any more. */
  cancelRun(runId: string): void {
    for (const { card } of [...this.open.values()]) {
      if (card.runId === runId)
        this.close(card, "cancelled", undefined, new EnclaveError("cancelled", `run \`${runId}\` closed; card #${card.number} was withdrawn`));
    }
  }

  /** A deleted conversation: its open cards are withdrawn and its history dropped. */
  forget(space: string): void {
    for (const { card } of [...this.open.values()]) {
      if (card.conversationId === space)
        this.close(card, "cancelled", undefined, new EnclaveError("cancelled", `conversation \`${bareId(space)}\` was deleted`));
    }
    this.closed.delete(space);
  }

  closeAll(): void {
    for (const { card } of [...this.open.values()])
      this.close(card, "cancelled", undefined, new EnclaveError("cancelled", "the control plane is shutting down"));
  }

  private close(card: Card, state: string, answer: CardAnswer | undefined, outcome: CardOutcome | EnclaveError): Card {
    const k = key(card.conversationId, card.number);
    const entry = this.open.get(k);
    if (!entry) return card;
    this.open.delete(k);
    card.state = state;
    card.answer = answer;
    card.closedAtMs = Date.now();
    const kept = this.closed.get(card.conversationId) ?? [];
    kept.push(card);
    if (kept.length > LIMITS.closedCardsKept) kept.shift();
    this.closed.set(card.conversationId, kept);
    entry.settle(outcome);
    this.onClosed(card);
    this.publish({ type: "closed", card });
    return card;
  }

  private publish(e: CardEvent): void {
    for (const s of this.subscribers) {
      if (s.space !== undefined && s.space !== e.card.conversationId) continue;
      try {
        s.listener(e);
      } catch {
        // A subscriber whose stream broke is removed by its own close handler.
      }
    }
  }
}
