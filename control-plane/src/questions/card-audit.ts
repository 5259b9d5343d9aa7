// A closed card as an audit event: who decided what, on which card, for which tool.
import type { Card } from "../../../proto/gen/enclave/control/v1/control.js";
import type { AuditEvent, AuditInput } from "../audit/audit-log.js";

export function cardAuditEvent(card: Card): AuditInput {
  const a = card.answer;
  const decided = a ? `: ${a.skip ? "skipped" : [...a.selected, a.freeText].filter(Boolean).join(", ")}` : "";
  return {
    kind: "card_closed",
    conversationId: card.conversationId,
    runId: card.runId,
    tool: card.tool,
    outcome: card.state,
    durationMs: card.closedAtMs - card.createdAtMs,
    detail: `#${card.number} ${card.kind}${decided}`.slice(0, 500),
  };
}

/** The highest card number the audit log has seen closed in a conversation (0 when none). */
export function lastAuditedCardNumber(history: readonly AuditEvent[]): number {
  let max = 0;
  for (const e of history) {
    if (e.kind !== "card_closed") continue;
    const n = Number(/^#(\d+) /.exec(e.detail)?.[1] ?? 0);
    if (n > max) max = n;
  }
  return max;
}
