// A worker's start (of an attempt) or end as an audit event.
import type { AuditInput } from "../audit/audit-log.js";
import type { Worker } from "./worker.js";

export function workerAuditEvent(w: Worker): AuditInput {
  return {
    kind: w.state === "running" ? "worker_started" : "worker_settled",
    conversationId: w.conversationId,
    outcome: w.state,
    durationMs: w.settledAtMs ? w.settledAtMs - w.startedAtMs : 0,
    placement: w.placement,
    detail: `${w.id} "${w.label}" (${w.tier}, attempt ${w.attempt}, host ${w.host.name})`.slice(0, 500),
  };
}
