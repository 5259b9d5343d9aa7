// DAP's wire format: each message is a JSON body preceded by a `Content-Length: N\r\n\r\n` header
// (the same base protocol as LSP). The reader copes with messages split across or packed into
// chunks; the length counts bytes, not characters.
import type { DebugProtocol } from "@vscode/debugprotocol";

const HEADER_END = Buffer.from("\r\n\r\n");

export class FramingError extends Error {}

export function encodeMessage(message: DebugProtocol.ProtocolMessage): Buffer {
  const body = Buffer.from(JSON.stringify(message), "utf8");
  return Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`, "ascii"), body]);
}

export class MessageReader {
  private buffer: Buffer = Buffer.alloc(0);

  constructor(private readonly maxMessageBytes: number) {}

  /** Feeds a chunk; returns every message it completed. Throws FramingError on a broken stream. */
  push(chunk: Buffer): DebugProtocol.ProtocolMessage[] {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const out: DebugProtocol.ProtocolMessage[] = [];
    for (;;) {
      const headerEnd = this.buffer.indexOf(HEADER_END);
      if (headerEnd < 0) {
        if (this.buffer.length > 8192) throw new FramingError("no DAP header within 8 KiB of input");
        return out;
      }
      const header = this.buffer.subarray(0, headerEnd).toString("ascii");
      const match = /^content-length:\s*(\d+)\s*$/im.exec(header);
      if (!match) throw new FramingError(`DAP header without Content-Length: ${JSON.stringify(header.slice(0, 200))}`);
      const length = Number(match[1]);
      if (length > this.maxMessageBytes) throw new FramingError(`DAP message of ${length} bytes is over the ${this.maxMessageBytes}-byte limit`);
      const start = headerEnd + HEADER_END.length;
      if (this.buffer.length < start + length) return out;
      const body = this.buffer.subarray(start, start + length).toString("utf8");
      this.buffer = this.buffer.subarray(start + length);
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch (err) {
        throw new FramingError(`DAP message is not JSON: ${(err as Error).message}`);
      }
      if (!parsed || typeof parsed !== "object" || typeof (parsed as { type?: unknown }).type !== "string") {
        throw new FramingError("DAP message has no `type`");
      }
      out.push(parsed as DebugProtocol.ProtocolMessage);
    }
  }
}
