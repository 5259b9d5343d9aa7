// Watches the engine's events stream for deaths of managed containers, and keeps watching: when the
// stream fails or ends it is subscribed again with backoff, from the time the last one was last
// known to be healthy, so a death that happened in between is still delivered.
import { LIMITS } from "../limits.js";

export type EventStream = NodeJS.ReadableStream & { destroy?: (err?: Error) => void };

/** Opens a stream of container events, newline-delimited JSON, starting at `since` (unix seconds) when given. */
export type Subscribe = (since: number | undefined) => Promise<EventStream>;

export class DeathWatch {
  private stream: EventStream | undefined;
  private stopped = false;
  private retryMs: number = LIMITS.deathWatchRetryFirstMs;
  private retryTimer: NodeJS.Timeout | undefined;
  /** Unix seconds up to which events are known to have been seen; a new subscription replays from here. */
  private seenUntil: number | undefined;
  /** While failing, the failure was logged already: one line per outage, not one per retry. */
  private failing = false;
  private subscriptions = 0;

  constructor(
    private readonly subscribe: Subscribe,
    private readonly onDeath: (containerId: string) => void,
    private readonly log: (line: string) => void,
  ) {
    void this.open();
  }

  /** How many times the stream was (re)subscribed successfully. */
  get subscribed(): number {
    return this.subscriptions;
  }

  /**
   * Drops the current stream the way a lost connection to the engine does (an error on the client
   * side); the watch subscribes again on its own.
   */
  interrupt(why: string): void {
    this.stream?.destroy?.(new Error(why));
  }

  stop(): void {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.stream?.destroy?.();
    this.stream = undefined;
  }

  private async open(): Promise<void> {
    if (this.stopped) return;
    const since = this.seenUntil;
    // Events are stamped in whole seconds: replaying from the second of the last one only repeats a
    // death (handled idempotently), never loses one.
    let stream: EventStream;
    try {
      stream = await this.subscribe(since);
    } catch (err) {
      this.failed(`cannot subscribe to the Docker events stream: ${(err as Error).message}`);
      return;
    }
    if (this.stopped) {
      stream.destroy?.();
      return;
    }
    this.stream = stream;
    this.subscriptions++;
    if (this.failing) this.log("enclosure death watch: the Docker events stream is back; deaths are reported again");
    this.failing = false;
    this.retryMs = LIMITS.deathWatchRetryFirstMs;
    // Ours, not docker-modem's followProgress: that keeps every event in memory for its final callback
    // and throws out of the data handler on a line that is not JSON; this stream never ends.
    let buffered = "";
    let ended = false;
    const end = (why: string): void => {
      if (ended) return;
      ended = true;
      if (this.stream === stream) this.stream = undefined;
      // Events up to shortly before the failure were delivered; those in flight are replayed.
      this.seenUntil = Math.max(this.seenUntil ?? 0, Math.floor(Date.now() / 1000) - 2);
      this.failed(why);
    };
    stream.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      let nl;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        let ev: { id?: string; time?: number };
        try {
          ev = JSON.parse(line) as { id?: string; time?: number };
        } catch {
          continue; // A partial or foreign line.
        }
        if (typeof ev.time === "number") this.seenUntil = Math.max(this.seenUntil ?? 0, ev.time);
        if (ev.id) this.onDeath(ev.id);
      }
    });
    stream.on("error", (err: Error) => end(`the Docker events stream failed: ${err.message}`));
    stream.on("end", () => end("the Docker events stream ended"));
    stream.on("close", () => end("the Docker events stream closed"));
  }

  private failed(why: string): void {
    if (this.stopped) return;
    if (!this.failing) {
      this.log(
        `enclosure death watch: ${why}; until it is back, an enclosure that dies is noticed only by the next call to it ` +
          `(no enclosure_died event at the time of death); subscribing again with backoff`,
      );
      this.failing = true;
    }
    const wait = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, LIMITS.deathWatchRetryMaxMs);
    this.retryTimer = setTimeout(() => void this.open(), wait);
    this.retryTimer.unref();
  }
}
