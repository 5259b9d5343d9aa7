// One log line per audit event (tool calls, enclosure and agent lifecycle, cards), with the event's
// conversation, run and tenant as fields: the log pipeline sees what the audit log records, as it
// happens. Arguments are never logged, only their digest; details are clipped.
import type { AuditEvent } from "../audit/audit-log.js";
import { log, scopeOf } from "./log.js";

const WARN_KINDS = new Set(["enclosure_died", "agent_restarted", "agent_bundle_refused"]);
const DETAIL_CHARS = 300;

/** Subscribed to the audit log, so called inside its record(): never throws. */
export function logAuditEvent(e: AuditEvent): void {
  try {
    const scope = scopeOf(e);
    if (e.kind === "tool_call") {
      log().info(
        {
          ...scope,
          event: e.kind,
          tool: e.tool,
          origin: e.origin,
          outcome: e.outcome,
          durationMs: e.durationMs,
          argumentsDigest: e.argumentsDigest,
          ...(e.placement ? { placement: e.placement } : {}),
          ...(e.kernelId ? { kernel: e.kernelId } : {}),
        },
        `tool call ${e.tool}: ${e.outcome} in ${e.durationMs} ms`,
      );
      return;
    }
    const fields = { ...scope, event: e.kind, ...(e.placement ? { placement: e.placement } : {}), ...(e.outcome ? { outcome: e.outcome } : {}) };
    const message = `${e.kind.replace(/_/g, " ")}${e.detail ? `: ${e.detail.slice(0, DETAIL_CHARS)}` : ""}`;
    if (WARN_KINDS.has(e.kind)) log().warn(fields, message);
    else log().info(fields, message);
  } catch {
    // Logging must never fail the event it reports.
  }
}
