// The egress audit's check of where an enclosure came from: started cold for this conversation, or
// pre-started in the warm pool and claimed by it. Outside: the engine's labels agree with the record
// (a pool container carries the pool label and no conversation's; a cold one this conversation's).
// Inside: the agent says it serves this conversation (it accepts being told only once).
import type Docker from "dockerode";
import type { EnclosureRecord } from "../model/conversation.js";
import { LABELS, POOL_LABEL } from "../model/labels.js";
import type { AuditCheck } from "./audit-check.js";

export function originCheck(
  conversationId: string,
  record: EnclosureRecord,
  info: Docker.ContainerInspectInfo,
  insideConversation: string | Error,
): AuditCheck {
  const labels = info.Config.Labels ?? {};
  const poolLabel = labels[POOL_LABEL];
  const pool = record.pool;
  const outsideOk = pool ? poolLabel === pool.profile && !labels[LABELS.conversation] : !poolLabel && labels[LABELS.conversation] === conversationId;
  const outside = pool
    ? `from the warm pool: label ${POOL_LABEL}=${poolLabel ?? "(missing!)"}, pre-started ${new Date(pool.createdAtMs).toISOString()}, claimed by this conversation ${new Date(pool.claimedAtMs).toISOString()}`
    : `started cold for this conversation: label ${LABELS.conversation}=${labels[LABELS.conversation] ?? "(missing!)"}${poolLabel ? `, yet it carries ${POOL_LABEL}!` : ""}`;
  const inside =
    insideConversation instanceof Error
      ? `not read: ${insideConversation.message}`
      : `the agent serves conversation \`${insideConversation || "(none told)"}\``;
  return {
    item: "origin",
    expected: "an enclosure that serves this conversation alone: started for it, or taken from the warm pool by it (never used before, never handed on)",
    outside,
    inside,
    ok: outsideOk && insideConversation === conversationId,
  };
}
