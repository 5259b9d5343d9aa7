// Log lines handed to standard error together. A serving control plane writes a line per tool call
// (audit-lines.ts); written one by one, each burst of lines cost a write of its own — through libuv's
// thread pool to a pipe, a round trip that cost more than the line (a quarter of the control plane's
// CPU per `read` call at 64 callers). Lines are kept for at most LIMITS.logBatchMs and go out in one
// write; a process that exits (normally, on a signal it handles, or on an uncaught error) writes
// what it kept first. A batch past LIMITS.logBatchMaxBytes goes out at once.
import type { DestinationStream } from "pino";
import { LIMITS } from "../limits.js";

/** What a batch writes to: pino's destination (sonic-boom). */
export interface LineSink {
  write(data: string): unknown;
  flush?(cb?: (err?: Error) => void): void;
  flushSync?(): void;
}

/** Batches not yet written, for the exit hook (one hook, however many loggers were made). */
const live = new Set<LineBatch>();
let hooked = false;

function onExit(): void {
  for (const b of live) b.writeSync();
}

export class LineBatch implements DestinationStream {
  private pending = "";
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly sink: LineSink,
    private readonly delayMs: number = LIMITS.logBatchMs,
  ) {
    live.add(this);
    if (!hooked) {
      hooked = true;
      process.on("exit", onExit);
    }
  }

  write(line: string): void {
    this.pending += line;
    if (this.pending.length >= LIMITS.logBatchMaxBytes) this.handOver();
    else if (!this.timer) {
      this.timer = setTimeout(this.handOver, this.delayMs);
      // Kept lines never hold the process open: exit writes them.
      this.timer.unref();
    }
  }

  /** pino's logger.flush(): what is kept goes to the sink now. */
  flush(cb?: (err?: Error) => void): void {
    this.handOver();
    if (this.sink.flush) this.sink.flush(cb);
    else cb?.();
  }

  /** At exit: what is kept goes out before the process does. */
  writeSync(): void {
    this.handOver();
    try {
      this.sink.flushSync?.();
    } catch {
      // A sink that cannot write now (closed, not yet open): nothing more can be done at exit.
    }
  }

  /** This batch is no longer used (a logger replaced it): what it kept goes out. */
  close(): void {
    this.handOver();
    live.delete(this);
  }

  private readonly handOver = (): void => {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const lines = this.pending;
    this.pending = "";
    if (lines) this.sink.write(lines);
  };
}
