// Reads JSON-RPC messages from a language server's stdout and hands each to the connection in the
// turn its last byte arrives. vscode-jsonrpc's stream reader passes every message through a
// semaphore that runs on setImmediate and an async decoder before the connection queues it (on a
// setImmediate of its own), so every answer cost the agent one more event-loop turn (an epoll wait,
// the timers, the promises) than it needs. Messages are still delivered one at a time, in order;
// the framing is the same (Content-Length counts the UTF-8 body's bytes; other headers ignored).
import type { Readable } from "node:stream";
import { AbstractMessageReader, type DataCallback, type Disposable, type Message, type MessageReader } from "vscode-jsonrpc/node";

const HEADER_END = Buffer.from("\r\n\r\n", "ascii");
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** The body length a header block gives, or why it gives none. */
function contentLength(head: string): number | Error {
  // What every server sends: that one header alone.
  if (head.startsWith("Content-Length: ") && /^\d+$/.test(head.slice(16))) return Number(head.slice(16));
  let value: string | undefined;
  for (const line of head.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon < 0) return new Error(`Message header must separate key and value using ':'\n${head}`);
    if (line.slice(0, colon).trim().toLowerCase() === "content-length") value = line.slice(colon + 1).trim();
  }
  if (!value) return new Error(`Header must provide a Content-Length property.\n${head}`);
  const length = Number.parseInt(value, 10);
  if (Number.isNaN(length) || length < 0) return new Error(`Content-Length value must be a number. Got ${value}`);
  return length;
}

export class DirectMessageReader extends AbstractMessageReader implements MessageReader {
  /** Bytes received and not yet read, in order (joined only when a header or a body needs it). */
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** The body length of the message being read; -1 while its header is incomplete. */
  private bodyLength = -1;
  private callback: DataCallback | undefined;

  constructor(private readonly stream: Readable) {
    super();
  }

  listen(callback: DataCallback): Disposable {
    this.callback = callback;
    const onData = (chunk: Buffer): void => this.onData(chunk);
    const onError = (err: Error): void => this.fireError(err);
    const onClose = (): void => this.fireClose();
    this.stream.on("data", onData);
    this.stream.on("error", onError);
    this.stream.on("close", onClose);
    return { dispose: () => this.stream.off("data", onData) };
  }

  /** The first `n` buffered bytes, removed (n <= buffered). */
  private take(n: number): Buffer {
    if (n === 0) return Buffer.alloc(0);
    const first = this.chunks[0] as Buffer;
    let out: Buffer;
    if (first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
    } else {
      const all = Buffer.concat(this.chunks, this.buffered);
      out = all.subarray(0, n);
      this.chunks = all.length > n ? [all.subarray(n)] : [];
    }
    this.buffered -= n;
    return out;
  }

  private onData(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    for (;;) {
      if (this.bodyLength < 0) {
        if (this.buffered === 0) return;
        let end = (this.chunks[0] as Buffer).indexOf(HEADER_END);
        if (end < 0 && this.chunks.length > 1) {
          // A header split across reads: join what is buffered and look again.
          this.chunks = [Buffer.concat(this.chunks, this.buffered)];
          end = (this.chunks[0] as Buffer).indexOf(HEADER_END);
        }
        if (end < 0) return;
        const head = this.take(end + HEADER_END.length).toString("ascii", 0, end);
        const length = contentLength(head);
        if (length instanceof Error) {
          this.fireError(length);
          continue;
        }
        this.bodyLength = length;
      }
      if (this.buffered < this.bodyLength) return;
      let body = this.take(this.bodyLength);
      this.bodyLength = -1;
      // As a TextDecoder would (the stock reader's): a leading byte-order mark is not text.
      if (body.length >= 3 && body[0] === BOM[0] && body[1] === BOM[1] && body[2] === BOM[2]) body = body.subarray(3);
      let message: Message;
      try {
        message = JSON.parse(body.toString("utf8")) as Message;
      } catch (err) {
        this.fireError(err);
        continue;
      }
      try {
        this.callback?.(message);
      } catch (err) {
        this.fireError(err);
      }
    }
  }
}
