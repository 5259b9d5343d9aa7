// Host agents do not outlive the control plane: each runs under bubblewrap with --die-with-parent
// and a stdin lifeline, so nothing the control plane did not start keeps running on the host. What a
// restart costs is said, not hidden: a conversation whose host agent ran when the control plane went
// away (stopped or crashed) is marked at the next start, and the next call on it carries a notice
// that its kernels, language servers and debug sessions are gone (its files are not). A placement
// put to sleep with its memory lost (lifecycle/) is reported the same way, by its next call.
import type { AuditLog } from "../audit/audit-log.js";
import type { ConversationStore } from "../conversations/conversation-store.js";
import type { ConversationRecord, SleepRecord } from "../model/conversation.js";

/** The stable word the notice starts with, for callers that act on it. */
export const HOST_AGENT_LOST = "host_agent_lost";
/** The stable word a wake's notice starts with: the placement slept and its memory was not kept. */
export const PLACEMENT_SLEPT = "placement_slept";

/** Notes that the conversation's host agent runs (written once per agent, not per call). */
export function noteHostAgentRunning(store: ConversationStore, conv: ConversationRecord, now = Date.now()): void {
  if (conv.hostAgent) return;
  conv.hostAgent = { startedAtMs: now };
  store.put(conv);
}

/** The host agent was stopped on purpose (an enclosure took the workspace over): nothing to report later. */
export function noteHostAgentStopped(conv: ConversationRecord): void {
  delete conv.hostAgent;
  delete conv.hostAgentLost;
}

/** An operator stopped the conversation's host agent: the next call says so, as for a restart's loss. */
export function noteHostAgentStoppedBy(store: ConversationStore, conversationId: string, by: string, now = Date.now()): void {
  if (!store.has(conversationId)) return;
  const conv = store.get(conversationId);
  conv.hostAgentLost = { startedAtMs: conv.hostAgent?.startedAtMs ?? now, noticedAtMs: now, stoppedBy: by };
  delete conv.hostAgent;
  store.put(conv);
}

/** At start: every host agent recorded as running did not survive the control plane's restart. Returns how many. */
export function markHostAgentsLost(store: ConversationStore, now = Date.now()): number {
  let lost = 0;
  for (const conv of store.list()) {
    if (!conv.hostAgent) continue;
    conv.hostAgentLost = { startedAtMs: conv.hostAgent.startedAtMs, noticedAtMs: now };
    delete conv.hostAgent;
    store.put(conv);
    lost++;
  }
  return lost;
}

/** The placement (started at `startedAtMs`) was put to sleep without its memory: the next call says so. */
export function noteSlept(conv: ConversationRecord, startedAtMs: number, sleep: SleepRecord): void {
  delete conv.hostAgent;
  if (sleep.memoryKept) return;
  conv.hostAgentLost = { startedAtMs, noticedAtMs: sleep.atMs, slept: sleep };
}

function sleptText(loss: { startedAtMs: number }, sleep: SleepRecord): string {
  const why =
    sleep.reason === "idle"
      ? "after its idle timeout"
      : sleep.reason === "max_lifetime"
        ? "at its maximum lifetime"
        : sleep.reason === "tenant_paused"
          ? "when its tenant was paused"
          : sleep.reason === "pause"
            ? "by a pause (PauseEnclosure) its runtime could not take with its memory"
            : "by an operator";
  const what =
    sleep.placement === "enclosure"
      ? `its enclosure (image ${sleep.enclosure?.image ?? "?"}, runtime ${sleep.enclosure?.runtime ?? "?"}) was stopped; a new enclosure with the same image and options was started for this call`
      : "its host agent was stopped; a new one was started for this call";
  return (
    `${PLACEMENT_SLEPT}: this conversation was put to sleep ${why} at ${new Date(sleep.atMs).toISOString()} (mechanism ${sleep.mechanism}, memory not kept): ` +
    `${what}. The kernels (variables defined in eval cells), language servers (their warm state) and debug sessions of the placement started ` +
    `${new Date(loss.startedAtMs).toISOString()} are gone and start over on use. Files in the workspace are unaffected.`
  );
}

/** The notice for the next call after a loss, once; recorded in the audit log when it is given. */
export function takeHostAgentLoss(store: ConversationStore, audit: AuditLog, conversationId: string): string | undefined {
  if (!store.has(conversationId)) return undefined;
  const conv = store.get(conversationId);
  const loss = conv.hostAgentLost;
  if (!loss) return undefined;
  delete conv.hostAgentLost;
  store.put(conv);
  const what = loss.stoppedBy
    ? `an operator (${loss.stoppedBy}) stopped this conversation's host agent (started ${new Date(loss.startedAtMs).toISOString()}) ` +
      `at ${new Date(loss.noticedAtMs).toISOString()}: the kernels`
    : `the control plane restarted since this conversation's last call, and its host agent ` +
      `(started ${new Date(loss.startedAtMs).toISOString()}) did not survive it: the kernels`;
  const text = loss.slept
    ? sleptText(loss, loss.slept)
    : `${HOST_AGENT_LOST}: ${what} (variables defined in eval cells), ` +
      `language servers and debug sessions it ran are gone and start over on use. Files in the workspace are unaffected. ` +
      (loss.stoppedBy ? "The next call started a new host agent." : `Run the conversation in an enclosure to keep them across a restart.`);
  audit.record({ kind: "agent_restarted", conversationId, placement: loss.slept?.placement ?? "host", detail: text });
  return text;
}
