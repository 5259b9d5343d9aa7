// A server-sent-events stream to one open console page: named events with JSON data, a comment
// heartbeat so proxies and the browser keep it open, and one cleanup when either side ends it.
import type { ServerResponse } from "node:http";

const HEARTBEAT_MS = 15_000;

export class SseStream {
  private closed = false;
  private readonly cleanups: (() => void)[] = [];
  private readonly heartbeat: NodeJS.Timeout;

  constructor(private readonly res: ServerResponse) {
    res.writeHead(200, {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-store",
      Connection: "keep-alive",
      "X-Accel-Buffering": "no",
    });
    // Tells EventSource how long to wait before reconnecting after a drop.
    res.write("retry: 1000\n\n");
    this.heartbeat = setInterval(() => this.res.write(": ping\n\n"), HEARTBEAT_MS);
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
    if (this.closed) return;
    // JSON has no raw line breaks, so one data: line carries it.
    this.res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
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
  }
}
