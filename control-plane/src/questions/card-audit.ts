// A closed card as an audit event: who decided what, on which card, for which tool.
import type { Card } from "@enclave/proto/gen/enclave/control/v1/control.js";
import type { AuditInput } from "../audit/audit-log.js";

export function cardAuditEvent(card: Card): AuditInput {
  const a = card.answer;
  const decided = a ? `: ${a.skip ? "skipped" : [...a.selected, a.freeText].filter(Boolean).join(", ")}` : "";
  return {
    kind: "card_closed",
    conversationId: card.conversationId,
    runId: card.runId,
    tool: card.tool,
    cardNumber: card.number,
    outcome: card.state,
    durationMs: card.closedAtMs - card.createdAtMs,
    detail: `#${card.number} ${card.kind}${decided}`.slice(0, 500),
  };
}
