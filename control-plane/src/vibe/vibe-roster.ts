// The vibe roster: every background worker of every conversation, and the hosts that run them.
// Workers belong to the conversation, not to the run that spawned them: they outlive its closing
// until they finish or are killed, and any vibe run of the conversation can wait on or kill them.
import { EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";
import { type Assignment, assignmentOf, type VibeTier, type Worker, type WorkerHost, type WorkerSink } from "./worker.js";
import { bareId } from "../conversations/conversation-keys.js";

type Watcher = { onOutput(text: string): void; onSettled(): void };

function tail(s: string, max: number): string {
  return s.length <= max ? s : s.slice(s.length - max);
}

export class VibeRoster {
  private readonly hosts: WorkerHost[] = [];
  private readonly workers = new Map<string, Map<string, Worker>>();
  private readonly counters = new Map<string, number>();
  private readonly watchers = new Map<Worker, Set<Watcher>>();

  /** builtin: the command host, used when no connected host serves the worker. */
  /** onChange: told when a worker starts an attempt or settles (for the audit log). */
  constructor(
    private readonly builtin: WorkerHost | undefined,
    private readonly onChange: (w: Worker) => void = () => undefined,
  ) {}

  addHost(host: WorkerHost): void {
    this.hosts.push(host);
  }

  removeHost(host: WorkerHost): void {
    const i = this.hosts.indexOf(host);
    if (i >= 0) this.hosts.splice(i, 1);
  }

  /** The hosts a conversation may use (a tenant's own hosts and the shared ones, never another tenant's). */
  hostNames(conversationId: string): string[] {
    const builtin = this.builtin && (this.builtin.serves("", "fast") || this.builtin.serves("", "good")) ? [this.builtin.name] : [];
    return [...this.hosts.filter((h) => h.admits?.(conversationId) ?? true).map((h) => h.name), ...builtin];
  }

  /** A harness-side host first (least loaded), the built-in command host otherwise. */
  private pickHost(conversationId: string, tier: VibeTier): WorkerHost {
    const remote = this.hosts.filter((h) => h.serves(conversationId, tier)).sort((a, b) => a.load() - b.load())[0];
    if (remote) return remote;
    if (this.builtin?.serves(conversationId, tier)) return this.builtin;
    throw new EnclaveError(
      "failed_precondition",
      `no worker host runs \`${tier}\` workers for conversation \`${bareId(conversationId)}\`, so no worker was started. ` +
        "Connect one over ConnectWorkerHost, or configure the built-in host with ENCLAVE_VIBE_COMMAND (or ENCLAVE_VIBE_COMMAND_FAST / _GOOD).",
    );
  }

  list(conversationId: string): Worker[] {
    return [...(this.workers.get(conversationId)?.values() ?? [])];
  }

  get(conversationId: string, id: string): Worker {
    const w = this.workers.get(conversationId)?.get(id);
    if (!w) {
      const ids = this.list(conversationId).map((x) => x.id);
      throw new EnclaveError("not_found", `no worker \`${id}\` in this conversation${ids.length ? ` (it has ${ids.join(", ")})` : " (it has none)"}`);
    }
    return w;
  }

  spawn(conversationId: string, workspacePath: string, req: { brief: string; label: string; tier: VibeTier }): Worker {
    const live = this.list(conversationId).filter((w) => w.state === "running").length;
    if (live >= LIMITS.vibeMaxLiveWorkers) {
      throw new EnclaveError("failed_precondition", `this conversation already has ${live} running workers (the most at once); wait for one or kill one first`);
    }
    const host = this.pickHost(conversationId, req.tier);
    const n = (this.counters.get(conversationId) ?? 0) + 1;
    this.counters.set(conversationId, n);
    const now = Date.now();
    const w: Worker = {
      id: `w${n}`,
      conversationId,
      label: req.label,
      tier: req.tier,
      brief: req.brief,
      messages: [],
      workspacePath,
      state: "running",
      attempt: 1,
      host,
      spawnedAtMs: now,
      startedAtMs: now,
      settledAtMs: 0,
      result: "",
      detail: "",
      outputTail: "",
      placement: "",
    };
    const kept = this.workers.get(conversationId) ?? new Map<string, Worker>();
    kept.set(w.id, w);
    this.workers.set(conversationId, kept);
    this.evictSettled(kept);
    host.start(assignmentOf(w), this.sinkFor(w, w.attempt));
    this.onChange(w);
    return w;
  }

  /** Appends a message to the brief and re-runs: a running attempt is stopped first. */
  async send(conversationId: string, id: string, message: string): Promise<Worker> {
    const w = this.get(conversationId, id);
    const previous = assignmentOf(w);
    const wasRunning = w.state === "running";
    const host =
      w.host.serves(conversationId, w.tier) && (w.host === this.builtin || this.hosts.includes(w.host)) ? w.host : this.pickHost(conversationId, w.tier);
    if (!wasRunning && this.list(conversationId).filter((x) => x.state === "running").length >= LIMITS.vibeMaxLiveWorkers) {
      throw new EnclaveError(
        "failed_precondition",
        `this conversation already has ${LIMITS.vibeMaxLiveWorkers} running workers; wait for one or kill one first`,
      );
    }
    w.messages.push(message);
    w.attempt += 1;
    w.state = "running";
    w.settledAtMs = 0;
    w.startedAtMs = Date.now();
    w.detail = "";
    w.outputTail = "";
    w.placement = "";
    if (wasRunning) await w.host.kill(previous);
    w.host = host;
    host.start(assignmentOf(w), this.sinkFor(w, w.attempt));
    this.onChange(w);
    return w;
  }

  async kill(conversationId: string, id: string): Promise<{ worker: Worker; wasRunning: boolean }> {
    const w = this.get(conversationId, id);
    if (w.state !== "running") return { worker: w, wasRunning: false };
    const a: Assignment = assignmentOf(w);
    this.settle(w, "killed", w.result, "killed by vibe_kill");
    await w.host.kill(a);
    return { worker: w, wasRunning: true };
  }

  /**
   * Waits until the worker settles or the timeout (when given) passes; onOutput sees its output
   * meanwhile. Resolves true when it settled; rejects with cancelled when the signal aborts.
   */
  wait(w: Worker, timeoutMs: number | undefined, signal: AbortSignal, onOutput: (text: string) => void): Promise<boolean> {
    if (w.state !== "running") return Promise.resolve(true);
    if (signal.aborted) return Promise.reject(new EnclaveError("cancelled", `the wait was cancelled; worker ${w.id} keeps running`));
    return new Promise<boolean>((resolve, reject) => {
      const watchers = this.watchers.get(w) ?? new Set<Watcher>();
      this.watchers.set(w, watchers);
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        watchers.delete(watcher);
      };
      const watcher: Watcher = {
        onOutput,
        onSettled: () => {
          done();
          resolve(true);
        },
      };
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              done();
              resolve(false);
            }, timeoutMs);
      const onAbort = (): void => {
        done();
        reject(new EnclaveError("cancelled", `the wait was cancelled; worker ${w.id} keeps running`));
      };
      signal.addEventListener("abort", onAbort, { once: true });
      watchers.add(watcher);
    });
  }

  /** Kills a conversation's workers and forgets them (the conversation was deleted). */
  async forget(conversationId: string): Promise<void> {
    await Promise.all(this.list(conversationId).map((w) => this.kill(conversationId, w.id)));
    this.workers.delete(conversationId);
    this.counters.delete(conversationId);
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.workers.keys()].map((c) => this.forget(c)));
  }

  private sinkFor(w: Worker, attempt: number): WorkerSink {
    const current = (): boolean => w.attempt === attempt && w.state === "running";
    return {
      progress: (text) => {
        if (!current()) return;
        w.outputTail = tail(w.outputTail + text, LIMITS.vibeOutputTailChars);
        for (const watcher of this.watchers.get(w) ?? []) watcher.onOutput(text);
      },
      settle: (state, result) => {
        if (current()) this.settle(w, state, tail(result, LIMITS.vibeResultChars), state === "failed" ? "failed" : "");
      },
      placed: (where) => {
        if (current()) w.placement = where;
      },
    };
  }

  private settle(w: Worker, state: Worker["state"], result: string, detail: string): void {
    w.state = state;
    w.result = result;
    w.detail = detail;
    w.settledAtMs = Date.now();
    this.onChange(w);
    const watchers = this.watchers.get(w);
    this.watchers.delete(w);
    for (const watcher of watchers ?? []) watcher.onSettled();
  }

  private evictSettled(kept: Map<string, Worker>): void {
    for (const [id, w] of kept) {
      if (kept.size <= LIMITS.vibeMaxKeptWorkers) break;
      if (w.state !== "running") kept.delete(id);
    }
  }
}
