// A cell's budget of running time: it counts only while the cell runs on its own, and is suspended
// while a bridge call is pending (a cell fanning out to subagents is not killed mid-fan-out).
export class RunBudget {
  private usedMs = 0;
  private since: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    readonly limitMs: number,
    private readonly onExpire: () => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** Starts (or resumes) counting. */
  resume(): void {
    if (this.stopped || this.since !== undefined) return;
    this.since = this.now();
    this.timer = setTimeout(
      () => {
        this.pause();
        this.stopped = true;
        this.onExpire();
      },
      Math.max(0, this.limitMs - this.usedMs),
    );
  }

  pause(): void {
    if (this.since === undefined) return;
    this.usedMs += this.now() - this.since;
    this.since = undefined;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  stop(): void {
    this.pause();
    this.stopped = true;
  }

  get used(): number {
    return this.usedMs + (this.since === undefined ? 0 : this.now() - this.since);
  }
}
