// Writes JSON-RPC messages to a language server's stdin as one write each: the header and the body
// in one buffer. vscode-jsonrpc's stream writer queues each message behind a semaphore that runs on
// setImmediate, writes the header, waits for that write's callback, then writes the body — so every
// request wakes the server twice (it reads the header, waits, reads the body) and costs the agent
// two event-loop turns before the server can start on it. Messages still leave in the order written.
import type { Writable } from "node:stream";
import { AbstractMessageWriter, type Message, type MessageWriter } from "vscode-jsonrpc/node";

export class SingleWriteMessageWriter extends AbstractMessageWriter implements MessageWriter {
  private errorCount = 0;

  constructor(private readonly stream: Writable) {
    super();
    stream.on("error", (err: Error) => this.fireError(err));
    stream.on("close", () => this.fireClose());
  }

  write(msg: Message): Promise<void> {
    let body: Buffer;
    try {
      body = Buffer.from(JSON.stringify(msg), "utf8");
    } catch (err) {
      // Not serializable (a cycle): this message fails, the connection goes on.
      this.fireError(err, msg, ++this.errorCount);
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    const framed = Buffer.concat([Buffer.from(`Content-Length: ${body.byteLength}\r\n\r\n`, "ascii"), body]);
    return new Promise<void>((resolve, reject) => {
      const done = (err?: Error | null): void => {
        if (!err) return resolve();
        this.fireError(err, msg, ++this.errorCount);
        reject(err);
      };
      try {
        this.stream.write(framed, done);
      } catch (err) {
        // A stream already destroyed throws on some Node versions rather than calling back.
        done(err instanceof Error ? err : new Error(String(err)));
      }
    });
  }

  end(): void {
    this.stream.end();
  }
}
