// A server-sent-events stream to one open console page: named events with JSON data, a comment
// heartbeat so proxies and the browser keep it open, and one cleanup when either side ends it.
// What waits for a page that does not read is bounded (LIMITS.streamBufferedBytes): past it the
// page gets a last `end` event saying why (code slow_reader) and the stream ends; a socket that
// still holds its bytes after the grace is destroyed.
import type { ServerResponse } from "node:http";
import { EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";

const HEARTBEAT_MS = 15_000;

export class SseStream {
  private closed = false;
  private readonly cleanups: (() => void)[] = [];
  private readonly heartbeat: NodeJS.Timeout;

  private readonly maxBufferedBytes: number;
  /** Told when the page is cut off for falling behind (for the audit log). */
  private readonly onSlowReader: (err: EnclaveError) => void;

  constructor(
    private readonly res: ServerResponse,
    opts: { maxBufferedBytes?: number; onSlowReader?: (err: EnclaveError) => void } = {},
  ) {
    this.maxBufferedBytes = opts.maxBufferedBytes ?? LIMITS.streamBufferedBytes.console_events;
    this.onSlowReader = opts.onSlowReader ?? (() => undefined);
    res.writeHead(200, {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-store",
      Connection: "keep-alive",
      "X-Accel-Buffering": "no",
    });
    // Tells EventSource how long to wait before reconnecting after a drop.
    res.write("retry: 1000\n\n");
    this.heartbeat = setInterval(() => this.write(": ping\n\n"), HEARTBEAT_MS);
    this.heartbeat.unref();
    res.on("close", () => this.close());
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Runs when the stream ends (unsubscribe from whatever feeds it). */
  onClose(cleanup: () => void): void {
    if (this.closed) cleanup();
    else this.cleanups.push(cleanup);
  }

  send(event: string, data: unknown): void {
    // JSON has no raw line breaks, so one data: line carries it.
    this.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /** Ends the stream with a last `end` event naming why (its code, and a message for people). */
  end(err: EnclaveError): void {
    if (this.closed) return;
    this.res.write(`event: end\ndata: ${JSON.stringify({ code: err.code, message: err.message })}\n\n`);
    this.close();
  }

  private write(text: string): void {
    if (this.closed) return;
    // writableLength: bytes the socket has not sent yet, i.e. what the page has not taken. One event
    // of any size still goes to a page that took everything before it.
    const behind = this.res.writableLength;
    if (behind > 0 && behind + Buffer.byteLength(text) > this.maxBufferedBytes) {
      const err = new EnclaveError(
        "slow_reader",
        `the page is ${behind} bytes behind and the next event would take it past the ${this.maxBufferedBytes} the console holds for one page; reload it`,
      );
      this.end(err);
      this.onSlowReader(err);
      return;
    }
    this.res.write(text);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    for (const c of this.cleanups.splice(0)) {
      try {
        c();
      } catch {
        // Cleanup of one feed must not stop the others.
      }
    }
    if (!this.res.writableEnded) this.res.end();
    if (!this.res.writableFinished) {
      // A reader that takes nothing would keep what is queued for it for as long as it holds the socket.
      const timer = setTimeout(() => this.res.destroy(), LIMITS.streamCutGraceMs);
      timer.unref();
      this.res.once("finish", () => clearTimeout(timer));
      this.res.once("close", () => clearTimeout(timer));
    }
  }
}
