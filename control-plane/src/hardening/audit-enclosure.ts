// The egress audit of one enclosure: its views read through the placement's port (the engine's, the
// host kernel's, gVisor's under runsc), the agent's own report, every check of the table, the origin
// check, and on a remote engine the verdict that the host kernel's half cannot be made.
import type { EnclosureRecord } from "../model/conversation.js";
import type { AuditCheck, OutsideView } from "./audit-check.js";
import { enclosureChecks } from "./enclosure-audit.js";
import { originCheck } from "./origin-check.js";
import type { AgentSelfReport, EnclosureViews } from "./port.js";
import { judgeOnRemoteEngine } from "./remote-engine-audit.js";

/** `egressListener`: the port of the egress proxy's listener while the conversation has a policy (the one listener expected). */
export async function auditInEnclosure(
  conversationId: string,
  enc: EnclosureRecord,
  views: EnclosureViews,
  agent: AgentSelfReport,
  egressListener?: number,
): Promise<AuditCheck[]> {
  const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));
  const [info, inside, volume] = await Promise.all([views.containerInfo(enc), agent.selfAudit().catch(asError), views.workspaceVolumeInfo(enc)]);
  // The host's view first, then gVisor's: the reader gVisor's view starts is no process of the host's.
  const outside: OutsideView = { info, volume, host: await views.hostView(info).catch(asError) };
  if (enc.runtime === "runsc") {
    outside.gvisor = await views.gvisorView(enc).catch(asError);
    outside.runsc = await views.runscRegistration().catch(asError);
  }
  const computed = enclosureChecks(outside, inside, enc, egressListener === undefined ? [] : [`tcp 127.0.0.1:${egressListener}`]);
  computed.push(originCheck(conversationId, enc, info, await agent.health().then((h) => h.conversationId, asError)));
  return views.engine.remote ? judgeOnRemoteEngine(computed, info, enc, views.engine.name) : computed;
}
