// The egress audit a security team signs: each promise of a hardened enclosure checked twice. The
// outside half is authoritative: what the Docker engine says the container is, and what the host's
// kernel says its processes are (read by the control plane from the host's /proc and cgroup files,
// see placement/host-view.ts) — or, under gVisor, what gVisor's kernel says (placement/gvisor-view.ts) beside what the
// host's kernel says of the sandbox. The inside half is what the agent reports of itself; code in the
// enclosure can replace or deceive the agent, so that half only confirms, and a disagreement fails.
//
// Under runsc the host sees gVisor's sandbox, not the enclosure's processes: its outside half is the
// engine's settings, gVisor's kernel's tables, and on the host the sandbox's own confinement — every
// host process of the container is the registered runsc binary, the sandbox in a user namespace that
// maps no host root, its file proxy with file capabilities only, each under a seccomp filter and
// no-new-privileges, in network namespaces with only loopback and no socket — and the cgroup limits,
// which bound the sandbox as a whole. gVisor's /proc shows no NoNewPrivs line and no cgroup files, so
// those inside values are "not shown" there rather than a disagreement.
import type { SelfAuditResponse } from "@enclave/proto/gen/enclave/agent/v1/info.js";
import type { EnclosureRecord } from "../model/conversation.js";
import type { AuditCheck, EnclosureAuditReport, OutsideView } from "./audit-check.js";
import { ENCLOSURE_CHECKS } from "./checks/table.js";
import { checkView } from "./checks/view.js";

/** Both halves of every check, in the table's order; `ok` only when the outside half holds and the inside half agrees. */
export function enclosureChecks(
  outside: OutsideView,
  inside: SelfAuditResponse | Error,
  record: EnclosureRecord,
  expectedListening: readonly string[] = [],
): AuditCheck[] {
  const view = checkView(outside, inside, record, expectedListening);
  return ENCLOSURE_CHECKS.map((check) => check.run(view));
}

export function formatAuditReport(r: EnclosureAuditReport): string {
  const lines: string[] = [];
  if (r.placement === "host" && r.checks.length === 0) {
    lines.push(
      `conversation ${r.conversationId}: host placement, and no host agent runs now (one starts, sandboxed, on the next call that needs it); audit again once it runs, or start an enclosure with \`enclave enclosure start ${r.conversationId}\``,
    );
  } else if (r.placement === "host") {
    lines.push(`conversation ${r.conversationId}: host placement, its bubblewrap sandbox — ${r.passed ? "every check passed" : "SOME CHECKS FAILED"}`);
    if (r.relaxations.length) lines.push(`relaxed explicitly: ${r.relaxations.join("; ")}`);
    for (const c of r.checks) {
      lines.push(`${c.ok ? "ok  " : "FAIL"} ${c.item}: ${c.expected}`);
      lines.push(`       outside: ${c.outside}`);
    }
  } else {
    const failed = r.checks.some((c) => !c.ok && !c.unavailable);
    const verdict = r.passed ? "every check passed" : failed ? "SOME CHECKS FAILED" : "NOT EVERY CHECK COULD BE MADE (none failed)";
    lines.push(`conversation ${r.conversationId}: enclosure ${r.containerId.slice(0, 12)} (${r.image}, runtime ${r.runtime}) — ${verdict}`);
    if (r.relaxations.length) lines.push(`relaxed explicitly: ${r.relaxations.join("; ")}`);
    const unavailable = r.checks.filter((c) => c.unavailable);
    if (unavailable.length) {
      lines.push(
        `NOT VERIFIED: ${unavailable.length} of ${r.checks.length} item(s) could not be checked from outside (n/a below); the agent's own report is shown for them but decides nothing`,
      );
    }
    for (const c of r.checks) {
      lines.push(`${c.ok ? "ok  " : c.unavailable ? "n/a " : "FAIL"} ${c.item}: ${c.expected}`);
      lines.push(`       outside: ${c.outside}`);
      if (c.unavailable) lines.push(`       not checked: ${c.unavailable}`);
      lines.push(`       inside (reported by the agent): ${c.inside}`);
    }
  }
  lines.push(`bridge calls recorded: ${r.bridgeCalls.length}`);
  for (const e of r.bridgeCalls) {
    lines.push(
      `  ${new Date(e.timeMs).toISOString()} ${e.tool} (${e.tier}) ${e.argumentsDigest} ${e.outcome} ${e.durationMs} ms${e.kernelId ? ` from kernel ${e.kernelId}` : ""}`,
    );
  }
  lines.push(`egress requests recorded: ${r.egressRequests.length}`);
  for (const e of r.egressRequests) {
    lines.push(`  ${new Date(e.timeMs).toISOString()} ${e.tool || "(no request)"} ${e.outcome} ${e.durationMs} ms — ${e.detail}`);
  }
  return lines.join("\n");
}
