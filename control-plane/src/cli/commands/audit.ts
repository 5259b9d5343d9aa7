// enclave audit ID: the egress audit; with --log or --follow (or no ID), the audit log. With --json:
// the egress audit as one object, the log as one object per line.
import type { AuditEvent } from "@enclave/proto/gen/enclave/control/v1/control.js";
import type { CommandContext } from "../context.js";
import type { Outcome } from "../exit-codes.js";
import { say, sayJson } from "../terminal-text.js";

function showEvent(e: AuditEvent): string {
  const when = new Date(e.timeMs).toISOString();
  return `${when} #${e.seq} ${e.conversationId} ${e.kind}${e.tool ? ` ${e.tool} (${e.tier}, ${e.origin})` : ""}${e.outcome ? ` ${e.outcome}` : ""}${e.durationMs ? ` ${e.durationMs} ms` : ""}${e.placement ? ` @ ${e.placement}` : ""}${e.detail ? ` — ${e.detail}` : ""}`;
}

export async function auditCommand({ sub, opts, client }: CommandContext): Promise<Outcome> {
  if (sub && !opts.log && !opts.follow) {
    const report = await client.auditEnclosure(sub);
    if (opts.json) sayJson(report);
    else say(report.text);
    return report.checks.length > 0 && !report.passed ? "checkFailed" : "ok";
  }
  const stream = client.subscribeAudit({ conversationId: sub || undefined, includeHistory: true, historyOnly: !opts.follow }, (e) => {
    if (opts.json) sayJson(e);
    else say(showEvent(e));
  });
  await stream.done;
  return "ok";
}
