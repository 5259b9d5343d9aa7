// A gRPC stream's writes, bounded in bytes its reader has not taken: each message counts from its
// write until grpc-js has handed it to the connection (the write's callback, which waits on the
// reader's flow-control window). A message that would take a reader already behind past the bound
// is not written: the stream is cut off instead, once, with slow_reader. One message of any size
// still goes to a reader that has taken everything before it.
import type { Writable } from "node:stream";
import { EnclaveError } from "../errors.js";

export class WriteBudget<T> {
  private pending = 0;
  private cutOff = false;
  private closed = false;
  /** Wakes a writer waiting for room (writeWhenRoom). */
  private wake: (() => void) | undefined;

  constructor(
    private readonly stream: Writable,
    /** The message's encoded size (protobuf bytes). */
    private readonly size: (message: T) => number,
    /** Ends the stream with the reason (once). */
    private readonly cut: (err: EnclaveError) => void,
    /** The stream's bound (LIMITS.streamBufferedBytes of its kind). */
    private readonly maxBytes: number,
  ) {}

  get isCut(): boolean {
    return this.cutOff;
  }

  /** Whether the stream was cut or has ended (nothing more goes to it). */
  get isOver(): boolean {
    return this.cutOff || this.closed;
  }

  /** Writes the message unless the stream was cut; false when it was (now or before). */
  write(message: T): boolean {
    if (this.cutOff) return false;
    const n = this.size(message);
    if (this.pending > 0 && this.pending + n > this.maxBytes) {
      this.cutOff = true;
      this.cut(
        new EnclaveError(
          "slow_reader",
          `the reader is ${this.pending} bytes behind and the next message would take it past the ${this.maxBytes} the control plane holds for one reader; the stream was cut off (open it again and read it)`,
        ),
      );
      return false;
    }
    this.send(message, n);
    return true;
  }

  /**
   * Writes the message once the reader has taken enough of what came before that it fits the bound
   * (a replay waits for its reader instead of cutting it off); false when the stream was cut or closed.
   */
  async writeWhenRoom(message: T): Promise<boolean> {
    const n = this.size(message);
    while (!this.cutOff && !this.closed && this.pending > 0 && this.pending + n > this.maxBytes) {
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
    if (this.cutOff || this.closed) return false;
    this.send(message, n);
    return true;
  }

  /** The stream ended (cancelled, closed): a waiting writer gives up. */
  close(): void {
    this.closed = true;
    this.wakeWriter();
  }

  private send(message: T, n: number): void {
    this.pending += n;
    this.stream.write(message, () => {
      this.pending -= n;
      this.wakeWriter();
    });
  }

  private wakeWriter(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
