// The command line's runs: one kept per (conversation, surface), so a change one `enclave tool call`
// stages can be resolved by the next. A kept run closes with CloseRun, or once it has gone the idle
// time with no call in flight; a fresh one (new_run) replaces it as the current one, and the old one
// stays open, listed and usable by id, until it is closed or idle too, so no staged change is
// dropped without the person seeing it listed.
import { LIMITS } from "../limits.js";
import { approvalPolicy, type RunStore, surfaceOf } from "./run-store.js";
import type { OpenRunRequest, Run } from "../model/run.js";

export interface AttachCliRunRequest {
  conversationId: string;
  surface?: string;
  approvalPolicy?: string;
  vibeMode?: boolean;
  newRun?: boolean;
}

function keyOf(conversationId: string, surface: string): string {
  return `${conversationId}\u0000${surface}`;
}

export class CliRuns {
  /** (conversation, surface) → the id of the run the CLI reuses. */
  private readonly current = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly runs: RunStore,
    private readonly idleMs: number,
    /** Opens a run the way OpenRun does (the conversation is checked there). */
    private readonly open: (req: OpenRunRequest) => Run,
    /** Closes a run the way CloseRun does (its cards withdrawn, its staged changes dropped). */
    private readonly close: (id: string) => void,
  ) {
    // Runs read back after a restart: the newest kept run of each (conversation, surface) is its current one.
    const kept = runs
      .list()
      .filter((r) => r.cli)
      .sort((a, b) => a.openedAtMs - b.openedAtMs);
    for (const run of kept) this.current.set(keyOf(run.conversationId, run.surface), run.id);
    if (kept.length > 0) this.arm();
  }

  /** The kept run for the request's (conversation, surface), opened when there is none or new_run asks. */
  attach(req: AttachCliRunRequest, now = Date.now()): Run {
    const surface = surfaceOf(req.surface);
    // Validated before anything is opened, so a bad policy leaves no run behind.
    const policy = approvalPolicy(req.approvalPolicy);
    this.expire(now);
    const key = keyOf(req.conversationId, surface);
    const id = req.newRun ? undefined : this.current.get(key);
    let run = id !== undefined && this.runs.has(id) ? this.runs.get(id) : undefined;
    if (!run) {
      run = this.open({ conversationId: req.conversationId, surface, approvalPolicy: policy, vibeMode: req.vibeMode ?? false });
      run.cli = true;
      this.current.set(key, run.id);
    }
    // Each CLI call states its own policy and vibe mode; the kept run carries only its staged changes over.
    run.approvalPolicy = policy;
    run.vibeMode = req.vibeMode ?? false;
    run.lastUsedMs = now;
    this.runs.save(run);
    this.arm();
    return run;
  }

  isCurrent(run: Run): boolean {
    return run.cli && this.current.get(keyOf(run.conversationId, run.surface)) === run.id;
  }

  /** When an idle CLI run closes; 0 for other runs and while a call is in flight. */
  idleExpiresAtMs(run: Run): number {
    return run.cli && run.callsInFlight === 0 ? run.lastUsedMs + this.idleMs : 0;
  }

  /** Closes every CLI run idle past its time; returns their ids. */
  expire(now = Date.now()): string[] {
    const closed: string[] = [];
    for (const run of this.runs.list()) {
      if (!run.cli || run.callsInFlight > 0 || now < run.lastUsedMs + this.idleMs) continue;
      this.close(run.id);
      closed.push(run.id);
    }
    for (const [key, id] of this.current) if (!this.runs.has(id)) this.current.delete(key);
    if (!this.runs.list().some((r) => r.cli)) this.disarm();
    return closed;
  }

  stop(): void {
    this.disarm();
  }

  private arm(): void {
    if (this.timer) return;
    const every = Math.max(50, Math.min(Math.floor(this.idleMs / 4), LIMITS.cliRunSweepMaxMs));
    this.timer = setInterval(() => this.expire(), every);
    // Idle CLI runs are no reason to keep a process alive.
    this.timer.unref();
  }

  private disarm(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
