// Sleep and wake of a conversation's placement, the idle policy's actions: a host agent stopped, an
// enclosure paused with its memory (a checkpoint, under runsc) or stopped with its options kept; the
// next use wakes it (resumed, or started again with the same options, its first result saying what
// was lost). One sleep or wake runs at a time per conversation; the sweeper decides when.
import { within } from "@enclave/proto/wait.js";
import type { AuditLog } from "../audit/audit-log.js";
import { debugServiceClient } from "../agent-client/debug-service-client.js";
import type { ConversationStore } from "../conversations/conversation-store.js";
import { asEnclaveError, EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";
import { type ConversationRecord, type EnclosureRecord, type SleepReason, type SleepRecord, startedWith } from "../model/conversation.js";
import { log, scopeOf } from "../observability/log.js";
import { noteSlept } from "../placement/host-agent-loss.js";
import type { HostAgents } from "../placement/host-agents.js";
import type { Placements } from "../placement/placements.js";
import { IdleSweeper } from "./idle-sweeper.js";
import type { LifecycleConfig } from "../config.js";
import { type EffectiveLifecycle, effectiveLifecycle, sleepMechanism } from "./lifecycle-policy.js";

export interface ConversationSleepParts {
  conversations: ConversationStore;
  placements: Placements;
  hostAgents: HostAgents;
  audit: AuditLog;
  /** Open question and permission cards of a conversation (an open card keeps it awake). */
  openCards(id: string): number;
  /** Whether an operator paused the tenant: a placement of its that runs (one started or woken while the pause began) is put to sleep. */
  tenantPaused(tenant: string): boolean;
}

export class ConversationSleep {
  /** The idle policy's one timer over every conversation (see idle-sweeper.ts). */
  readonly sweeper: IdleSweeper;
  /** A sleep or wake under way per conversation: the next one (and every call) waits for it. */
  private readonly transitions = new Map<string, Promise<void>>();
  private readonly conversations: ConversationStore;
  private readonly placements: Placements;
  private readonly hostAgents: HostAgents;
  private readonly audit: AuditLog;
  private readonly tenantPaused: (tenant: string) => boolean;

  constructor(
    parts: ConversationSleepParts,
    private readonly defaults: LifecycleConfig,
  ) {
    this.conversations = parts.conversations;
    this.placements = parts.placements;
    this.hostAgents = parts.hostAgents;
    this.audit = parts.audit;
    this.tenantPaused = parts.tenantPaused;
    this.sweeper = new IdleSweeper(
      {
        awake: () => this.awakeConversations(),
        openCards: (id) => parts.openCards(id),
        agentBusy: (id) => this.agentBusy(id),
        sleep: async (id, reason) => void (await this.sleep(id, reason)),
        failed: (id, err) => log().warn(scopeOf({ conversationId: id }), `conversation ${id} could not be put to sleep: ${(err as Error).message}`),
      },
      defaults.sweepMs,
      LIMITS.lifecycleSleepsAtOnce,
    );
  }

  /** Waits for a sleep or wake of the conversation under way. */
  async settled(id: string): Promise<void> {
    for (let t = this.transitions.get(id); t; t = this.transitions.get(id)) await t;
  }

  /**
   * Runs one sleep or wake of the conversation at a time: after the one registered before it (not
   * through settled(), which would find this one registered and wait for itself).
   */
  private transition<T>(id: string, fn: () => Promise<T>): Promise<T> {
    const run = (this.transitions.get(id) ?? Promise.resolve()).then(fn);
    // What waits on it needs its end, not its outcome (the caller has that): it never rejects.
    const tracked: Promise<void> = run.then(
      () => undefined,
      () => undefined,
    );
    this.transitions.set(id, tracked);
    void tracked.then(() => {
      if (this.transitions.get(id) === tracked) this.transitions.delete(id);
    });
    return run;
  }

  /** Forgets the conversation's sleep (its enclosure was started or stopped by hand): nothing is left to wake. */
  dropSleep(id: string, why: string): void {
    const conv = this.conversations.get(id);
    if (!conv.lifecycle?.sleep) return;
    delete conv.lifecycle.sleep;
    if (conv.hostAgentLost?.slept) delete conv.hostAgentLost;
    this.conversations.put(conv);
    this.audit.record({ kind: "conversation_woke", conversationId: id, outcome: "dropped", detail: `no longer asleep: ${why}` });
  }

  /** Conversations whose placement runs now, for the sweeper. */
  private *awakeConversations(): Iterable<{ id: string; startedAtMs: number; policy: EffectiveLifecycle; tenantPaused: boolean }> {
    for (const conv of this.conversations.list()) {
      if (conv.lifecycle?.sleep || this.transitions.has(conv.id)) continue;
      const enc = conv.enclosure;
      let startedAtMs: number | undefined;
      if (enc) startedAtMs = enc.state === "running" ? enc.startedAtMs : undefined;
      else if (this.hostAgents.pid(conv.id) !== undefined) startedAtMs = conv.hostAgent?.startedAtMs ?? Date.now();
      if (startedAtMs === undefined) continue;
      yield { id: conv.id, startedAtMs, policy: effectiveLifecycle(conv, this.defaults), tenantPaused: this.tenantPaused(conv.tenant) };
    }
  }

  /** Why the running agent is busy with no call in flight: a cell running, a debug session stopped at a breakpoint. */
  private async agentBusy(id: string): Promise<string | undefined> {
    const ep = await this.placements.running(id).catch(() => undefined);
    if (!ep) return undefined;
    const ask = async (): Promise<string | undefined> => {
      const kernels = await ep.client.listKernels().catch(() => undefined);
      const running = kernels?.kernels.find((k) => k.busy);
      if (running) return `a ${running.info?.language ?? ""} cell is running`;
      const debug = await debugServiceClient(ep.client)
        .status(id)
        .catch(() => undefined);
      if (debug?.active && debug.state === "stopped") return "a debug session is stopped at a breakpoint";
      return undefined;
    };
    // An agent that cannot say in time is not counted as busy: a hung placement must not stay awake forever.
    return within(ask(), LIMITS.lifecycleProbeTimeoutMs, undefined);
  }

  /**
   * Puts the conversation's placement to sleep: its host agent stopped, or its enclosure stopped (its
   * workspace copied back in copy mode) with its options kept for the wake. Nothing of it runs after;
   * the workspace stays. A conversation with nothing running is left as it is.
   */
  sleep(id: string, reason: SleepReason): Promise<ConversationRecord> {
    return this.transition(id, async () => {
      const conv = this.conversations.get(id);
      if (conv.lifecycle?.sleep) return conv;
      const now = Date.now();
      const enc = conv.enclosure;
      let sleep: SleepRecord;
      let startedAtMs: number;
      if (enc) {
        if (enc.state !== "running") return conv;
        const kept = sleepMechanism(enc) === "checkpoint" ? await this.sleepWithMemory(id, reason) : undefined;
        if (kept?.sleep) return kept.conv;
        const mechanism = "stop";
        await this.placements.stop(id);
        startedAtMs = enc.startedAtMs;
        sleep = {
          reason,
          atMs: now,
          mechanism,
          memoryKept: false,
          placement: "enclosure",
          detail:
            `enclosure ${enc.containerId.slice(0, 12)} stopped (${enc.runtime}); kernels, language servers and debug sessions were not kept; the next call starts a new enclosure from image ${enc.image} with the same options` +
            (kept?.why ? ` (a checkpoint could not be taken: ${kept.why})` : ""),
          enclosure: keptOptions(enc),
        };
      } else {
        if (this.hostAgents.pid(id) === undefined) return conv;
        startedAtMs = conv.hostAgent?.startedAtMs ?? now;
        await this.hostAgents.stop(id);
        this.placements.forget(id);
        sleep = {
          reason,
          atMs: now,
          mechanism: "stop",
          memoryKept: false,
          placement: "host",
          detail: `host agent stopped; kernels, language servers and debug sessions were not kept; the next call starts a new one`,
        };
      }
      noteSlept(conv, startedAtMs, sleep);
      conv.lifecycle = { ...conv.lifecycle, sleep };
      this.conversations.put(conv);
      this.audit.record({ kind: "conversation_slept", conversationId: id, placement: sleep.placement, outcome: reason, detail: `${reason}: ${sleep.detail}` });
      return conv;
    });
  }

  /**
   * Sleep with memory: the enclosure paused (checkpointed), staying recorded, resumed by the wake.
   * A pause the engine cannot take leaves it running: `why`, and the caller stops it instead.
   */
  private async sleepWithMemory(id: string, reason: SleepReason): Promise<{ sleep?: SleepRecord; conv: ConversationRecord; why?: string }> {
    const enc = this.conversations.get(id).enclosure;
    try {
      await this.placements.pause(id, `the idle policy (${reason})`);
    } catch (err) {
      const e = asEnclaveError(err);
      // A dead enclosure is not put to sleep: its next call says it died.
      if (this.conversations.get(id).enclosure?.state !== "running") throw e;
      return { conv: this.conversations.get(id), why: `${e.code}: ${e.message}` };
    }
    const conv = this.conversations.get(id);
    const paused = conv.enclosure?.pause;
    const sleep: SleepRecord = {
      reason,
      atMs: Date.now(),
      mechanism: "checkpoint",
      memoryKept: true,
      placement: "enclosure",
      detail: `enclosure ${enc?.containerId.slice(0, 12) ?? "?"} paused with its memory (runsc checkpoint${paused?.bytes ? `, ${paused.bytes} bytes` : ""}); the next call resumes it with its kernels and language servers`,
      ...(enc ? { enclosure: keptOptions(enc) } : {}),
    };
    conv.lifecycle = { ...conv.lifecycle, sleep };
    this.conversations.put(conv);
    this.audit.record({ kind: "conversation_slept", conversationId: id, placement: "enclosure", outcome: reason, detail: `${reason}: ${sleep.detail}` });
    return { sleep, conv };
  }

  /**
   * Wakes a sleeping conversation before its placement is used: an enclosure is started again with the
   * options it had (its result, through the next call, says what was lost); a host agent starts on use
   * as always. A failed wake leaves it asleep and says why.
   */
  wake(id: string): Promise<void> {
    const pending = this.transitions.get(id);
    if (!pending && !this.conversations.get(id).lifecycle?.sleep) return Promise.resolve();
    return this.transition(id, async () => {
      const conv = this.conversations.get(id);
      const sleep = conv.lifecycle?.sleep;
      if (!sleep) return;
      if (sleep.memoryKept) {
        // Paused with its memory: resumed from its checkpoint (a failed resume keeps it paused, and asleep).
        if (conv.enclosure?.state === "paused") {
          try {
            await this.placements.resume(id, "the wake of a sleeping conversation (a call)");
          } catch (err) {
            const e = asEnclaveError(err);
            this.audit.record({ kind: "conversation_woke", conversationId: id, placement: "enclosure", outcome: `error:${e.code}`, detail: e.message });
            throw e;
          }
        }
      } else if (sleep.placement === "enclosure" && sleep.enclosure) {
        const e = sleep.enclosure;
        // A start forgets a host agent's loss; this one is the enclosure's, for the call to tell.
        const loss = conv.hostAgentLost;
        try {
          await this.placements.start(id, e.request, { operator: e.startedByOperator });
          if (loss) conv.hostAgentLost = loss;
        } catch (err) {
          const failure = asWakeError(err);
          this.audit.record({
            kind: "conversation_woke",
            conversationId: id,
            placement: "enclosure",
            outcome: `error:${failure.code}`,
            detail: failure.message,
          });
          throw new EnclaveError(
            failure.code,
            `conversation \`${id}\` sleeps and its enclosure (image ${e.image}, runtime ${e.runtime}) could not be started again: ${failure.message}. It stays asleep; the next call tries again, or stop the enclosure to continue on the host.`,
          );
        }
      }
      delete conv.lifecycle?.sleep;
      this.conversations.put(conv);
      this.sweeper.touch(id);
      this.audit.record({
        kind: "conversation_woke",
        conversationId: id,
        placement: sleep.placement,
        outcome: "ok",
        detail: `asleep since ${new Date(sleep.atMs).toISOString()} (${sleep.reason}); memory ${sleep.memoryKept ? "kept" : "not kept"}`,
      });
    });
  }
}

/** A wake's failure keeps its code (an image gone is image_unusable); anything else is placement_unavailable. */
function asWakeError(err: unknown): EnclaveError {
  if (err instanceof EnclaveError) return err;
  return new EnclaveError("placement_unavailable", err instanceof Error ? err.message : String(err));
}

/** What a sleep keeps of an enclosure for its wake: the options it was started with, and by whom. */
function keptOptions(enc: EnclosureRecord): NonNullable<SleepRecord["enclosure"]> {
  return { request: startedWith(enc), startedByOperator: enc.startedByOperator ?? false, image: enc.image, runtime: enc.runtime };
}
