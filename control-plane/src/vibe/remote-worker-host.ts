// A worker host on the harness's side, connected over the ConnectWorkerHost stream: assignments and
// kills go down the stream, progress and results come back tagged with the attempt they belong to.
import type { WorkerHostCommand, WorkerProgress, WorkerResult } from "@enclave/proto/gen/enclave/control/v1/control.js";
import type { Assignment, VibeTier, WorkerHost, WorkerSink } from "./worker.js";

/** How the host's caller names conversations (bare ids in its tenant's namespace) and how the roster does (keys). */
export interface HostIds {
  /** The key of an id the host sent; throws for one its caller could not name. */
  toKey(id: string): string;
  toView(key: string): string;
  /** False when the caller may not learn host paths (a token tenant): its assignments name no workspace folder. */
  seesHostPaths?: boolean;
}

const SAME_IDS: HostIds = { toKey: (id) => id, toView: (key) => key };

const keyOf = (conversationId: string, workerId: string, attempt: number): string => `${conversationId}/${workerId}/${attempt}`;

export class RemoteWorkerHost implements WorkerHost {
  private readonly attempts = new Map<string, WorkerSink>();

  constructor(
    readonly name: string,
    private readonly conversationIds: readonly string[],
    private readonly tiers: readonly string[],
    private readonly send: (command: WorkerHostCommand) => void,
    /** The conversations its caller may serve at all (its tenant's); every one when absent. */
    private readonly within: (conversationId: string) => boolean = () => true,
    private readonly ids: HostIds = SAME_IDS,
  ) {}

  admits(conversationId: string): boolean {
    return this.within(conversationId);
  }

  serves(conversationId: string, tier: VibeTier): boolean {
    return (
      this.within(conversationId) &&
      (!this.conversationIds.length || this.conversationIds.includes(conversationId)) &&
      (!this.tiers.length || this.tiers.includes(tier))
    );
  }

  load(): number {
    return this.attempts.size;
  }

  start(a: Assignment, sink: WorkerSink): void {
    this.attempts.set(keyOf(a.conversationId, a.workerId, a.attempt), sink);
    const workspacePath = this.ids.seesHostPaths === false ? "" : a.workspacePath;
    this.send({ command: { $case: "assign", value: { ...a, conversationId: this.ids.toView(a.conversationId), workspacePath } } });
  }

  async kill(a: Assignment): Promise<void> {
    this.attempts.delete(keyOf(a.conversationId, a.workerId, a.attempt));
    this.send({ command: { $case: "kill", value: { conversationId: this.ids.toView(a.conversationId), workerId: a.workerId, attempt: a.attempt } } });
  }

  progress(p: WorkerProgress): void {
    const key = this.keyOf(p.conversationId);
    if (key !== undefined) this.attempts.get(keyOf(key, p.workerId, p.attempt))?.progress(p.text);
  }

  result(r: WorkerResult): void {
    const key = this.keyOf(r.conversationId);
    if (key === undefined) return; // no conversation its caller could name, so none of its attempts
    const k = keyOf(key, r.workerId, r.attempt);
    const sink = this.attempts.get(k);
    if (!sink) return; // killed, superseded by a re-run, or never ours
    this.attempts.delete(k);
    if (r.state === "done" || r.state === "failed") sink.settle(r.state, r.result);
    else sink.settle("failed", `${r.result}\n[the worker host reported an unknown state \`${r.state}\`]`.trim());
  }

  private keyOf(id: string): string | undefined {
    try {
      return this.ids.toKey(id);
    } catch {
      return undefined;
    }
  }

  /** The stream closed: every attempt still out is lost. */
  disconnected(): void {
    const sinks = [...this.attempts.values()];
    this.attempts.clear();
    for (const s of sinks) s.settle("failed", `the worker host \`${this.name}\` disconnected while the worker ran`);
  }
}
