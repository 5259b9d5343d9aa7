// enclave audit ID: the egress audit; with --log or --follow (or no ID), the audit log.
import type { CommandContext } from "../context.js";
import { say } from "../terminal-text.js";

export async function auditCommand({ sub, opts, client }: CommandContext): Promise<void> {
  if (sub && !opts.log && !opts.follow) {
    const report = await client.auditEnclosure(sub);
    say(report.text);
    if (report.checks.length > 0 && !report.passed) process.exitCode = 3;
    return;
  }
  const stream = client.subscribeAudit({ conversationId: sub || undefined, includeHistory: true, historyOnly: !opts.follow }, (e) => {
    const when = new Date(e.timeMs).toISOString();
    say(
      `${when} #${e.seq} ${e.conversationId} ${e.kind}${e.tool ? ` ${e.tool} (${e.tier}, ${e.origin})` : ""}${e.outcome ? ` ${e.outcome}` : ""}${e.durationMs ? ` ${e.durationMs} ms` : ""}${e.placement ? ` @ ${e.placement}` : ""}${e.detail ? ` — ${e.detail}` : ""}`,
    );
  });
  await stream.done;
}
