// The push channel of one open console page: every open card (sent at connect, then opened/closed as
// they happen: a card answered anywhere disappears from every page) and audit events of the page's
// scope, with the rendered row when the page shows an audit table with filters, and the page's
// recent tool calls as they start and finish.
// An open page is a human attached to every conversation's cards, as `enclave cards --follow` is.
import type { ServerResponse } from "node:http";
import type { Card } from "@enclave/proto/gen/enclave/control/v1/control.js";
import type { AuditEvent } from "../audit/audit-log.js";
import type { ControlPlaneApi } from "../control-plane-api.js";
import { type AuditFilter, matchesAuditFilter } from "./audit-filter.js";
import type { Session } from "./access.js";
import { SseStream } from "./sse.js";
import { auditRow } from "./views/audit-view.js";
import { cardKey, renderCard } from "./views/cards-view.js";
import { recentCallRow, runningCallRow } from "./views/recent-calls-view.js";

export interface EventScope {
  /** "" none, "*" every conversation, else one conversation's audit events. */
  audit: string;
  /** Set when the page shows audit rows: new matching events come with their rendered row. */
  rows?: AuditFilter;
}

function openedCard(card: Card, csrf: string) {
  return { key: cardKey(card), space: card.conversationId, number: card.number, html: renderCard(card, csrf, "/").value };
}

export function openEventStream(cp: ControlPlaneApi, res: ServerResponse, session: Session, scope: EventScope): SseStream {
  // Counted against the session's tenant (quota_exceeded past its bound), and ended with its token.
  let stream: SseStream | undefined;
  const owner = { tenant: session.viewer?.name, tokenId: session.tokenId };
  const release = cp.streams.open("console_events", owner, (err) => stream?.end(err));
  stream = new SseStream(res, { onSlowReader: (err) => cp.streams.cutOff("console_events", owner, err) });
  stream.onClose(release);
  const cards = cp.subscribeCards(undefined, (e) => {
    if (e.type === "opened") stream.send("card-opened", openedCard(e.card, session.csrf));
    else stream.send("card-closed", { key: cardKey(e.card), space: e.card.conversationId, number: e.card.number, state: e.card.state });
  });
  stream.onClose(cards.unsubscribe);
  stream.send("cards", { cards: cards.openCards.map((c) => openedCard(c, session.csrf)) });
  if (scope.audit) {
    const unsubscribe = cp.subscribeAudit((e: AuditEvent) => {
      // The audit log calls listeners inside record(): nothing here may throw into a tool call.
      try {
        if (scope.audit !== "*" && e.conversationId !== scope.audit) return;
        const rowHtml = scope.rows && matchesAuditFilter(e, scope.rows) ? auditRow(e).value : undefined;
        stream.send("audit", { seq: e.seq, conversationId: e.conversationId, kind: e.kind, rowHtml });
      } catch {
        stream.close();
      }
    });
    stream.onClose(unsubscribe);
  }
  // Tool calls as they start and finish, for a conversation page's recent calls (one conversation's only).
  if (scope.audit && scope.audit !== "*") {
    const unsubscribeCalls = cp.subscribeCalls((e) => {
      try {
        if (e.call.conversationId !== scope.audit) return;
        const rowHtml = e.type === "started" ? runningCallRow(e.call).value : recentCallRow(e.event, e.call.callId).value;
        stream.send("call", { key: String(e.call.callId), seq: e.type === "finished" ? e.event.seq : 0, conversationId: e.call.conversationId, rowHtml });
      } catch {
        stream.close();
      }
    });
    stream.onClose(unsubscribeCalls);
  }
  return stream;
}
