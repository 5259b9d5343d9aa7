// One sweeper for every conversation's idle policy: a timer that, each pass, reads what is in memory
// (calls in flight, open cards, when each placement started and was last busy) and puts to sleep the
// placements idle past their timeout or running past their maximum lifetime. An agent is asked
// (is a cell running? is a debug session stopped at a breakpoint?) only for a conversation already
// idle past its timeout, so a pass over thousands of conversations costs a loop over a map; sleeps
// run a few at a time, the rest wait for the next pass.
import type { SleepReason } from "../model/conversation.js";
import type { EffectiveLifecycle } from "./lifecycle-policy.js";

/** A conversation whose placement runs now. */
export interface AwakeConversation {
  id: string;
  /** When its placement started or woke (a lifetime counts from there). */
  startedAtMs: number;
  policy: EffectiveLifecycle;
  /**
   * Its tenant is paused: it sleeps at the first moment no call runs, whatever its policy. A pause
   * puts its tenant's placements to sleep once; one whose start or wake was under way then would
   * otherwise run on until its idle timeout.
   */
  tenantPaused?: boolean;
}

/** What the sweeper reads and does, so it holds no control plane of its own. */
export interface SweeperPort {
  awake(): Iterable<AwakeConversation>;
  openCards(id: string): number;
  /** Why the running agent is busy with no call in flight (a cell running, a debug session stopped), or undefined. */
  agentBusy(id: string): Promise<string | undefined>;
  sleep(id: string, reason: SleepReason): Promise<void>;
  /** A sleep that failed: said in the log; the conversation is looked at again later. */
  failed(id: string, err: unknown): void;
}

export class IdleSweeper {
  private readonly inFlight = new Map<string, number>();
  private readonly lastActive = new Map<string, number>();
  private readonly sleeping = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private sweeping = false;
  private readonly startedAtMs = Date.now();

  constructor(
    private readonly port: SweeperPort,
    private readonly sweepMs: number,
    private readonly sleepsAtOnce: number,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.sweep(), this.sweepMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** A call starts on the conversation; the returned function ends it (once). Its end starts the idle clock again. */
  enter(id: string): () => void {
    this.inFlight.set(id, (this.inFlight.get(id) ?? 0) + 1);
    this.lastActive.set(id, Date.now());
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const n = (this.inFlight.get(id) ?? 1) - 1;
      if (n <= 0) this.inFlight.delete(id);
      else this.inFlight.set(id, n);
      this.lastActive.set(id, Date.now());
    };
  }

  /** Something happened on the conversation (a wake, a card answered): its idle clock starts again. */
  touch(id: string): void {
    this.lastActive.set(id, Date.now());
  }

  callsInFlight(id: string): number {
    return this.inFlight.get(id) ?? 0;
  }

  forget(id: string): void {
    this.inFlight.delete(id);
    this.lastActive.delete(id);
  }

  /** One pass; also what tests and the timer call. Overlapping passes are skipped. */
  async sweep(now = Date.now()): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      const due: Array<{ id: string; reason: SleepReason }> = [];
      for (const c of this.port.awake()) {
        if (this.sleeping.has(c.id)) continue;
        if (this.callsInFlight(c.id) > 0) continue;
        if (c.tenantPaused) {
          due.push({ id: c.id, reason: "tenant_paused" });
          continue;
        }
        // A lifetime is a bound, not a preference: reached, the placement sleeps at the first moment no call runs.
        if (c.policy.maxLifetimeSeconds > 0 && now - c.startedAtMs >= c.policy.maxLifetimeSeconds * 1000) {
          due.push({ id: c.id, reason: "max_lifetime" });
          continue;
        }
        if (c.policy.idleTimeoutSeconds <= 0) continue;
        if (this.port.openCards(c.id) > 0) {
          this.touch(c.id);
          continue;
        }
        const since = Math.max(this.lastActive.get(c.id) ?? 0, c.startedAtMs, this.startedAtMs);
        if (now - since >= c.policy.idleTimeoutSeconds * 1000) due.push({ id: c.id, reason: "idle" });
      }
      for (let i = 0; i < due.length; i += this.sleepsAtOnce) {
        await Promise.all(due.slice(i, i + this.sleepsAtOnce).map((d) => this.sleepOne(d.id, d.reason)));
      }
    } finally {
      this.sweeping = false;
    }
  }

  private async sleepOne(id: string, reason: SleepReason): Promise<void> {
    this.sleeping.add(id);
    try {
      if (reason === "idle") {
        const busy = await this.port.agentBusy(id);
        // Busy with no call in flight: the idle time starts again from now.
        if (busy !== undefined || this.callsInFlight(id) > 0) return this.touch(id);
      }
      if (this.callsInFlight(id) > 0) return;
      await this.port.sleep(id, reason);
      this.forget(id);
    } catch (err) {
      this.port.failed(id, err);
      this.touch(id);
    } finally {
      this.sleeping.delete(id);
    }
  }
}
