// The language-server message writer: each message leaves in one write (header and body together),
// in order, readable by vscode-jsonrpc's own reader; a failed write fails that message and says so.
import { PassThrough, Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { type Message, StreamMessageReader } from "vscode-jsonrpc/node";
import { SingleWriteMessageWriter } from "./message-writer.js";

describe("SingleWriteMessageWriter", () => {
  it("writes each message as one framed chunk, in order, that the stock reader reads back", async () => {
    const pipe = new PassThrough();
    const chunks: Buffer[] = [];
    pipe.on("data", (c: Buffer) => chunks.push(c));
    const writer = new SingleWriteMessageWriter(pipe);
    const sent: Message[] = [
      { jsonrpc: "2.0", id: 1, method: "textDocument/hover", params: { text: "héllo 🎉" } } as Message,
      { jsonrpc: "2.0", method: "textDocument/didChange", params: { n: 2 } } as Message,
      { jsonrpc: "2.0", id: 3, method: "shutdown" } as Message,
    ];
    await Promise.all(sent.map((m) => writer.write(m)));
    expect(chunks).toHaveLength(sent.length);
    const first = chunks[0]?.toString("utf8") ?? "";
    const body = JSON.stringify(sent[0]);
    // Content-Length counts bytes, not characters (the body has non-ASCII text).
    expect(first).toBe(`Content-Length: ${Buffer.byteLength(body, "utf8")}\r\n\r\n${body}`);

    const replay = new PassThrough();
    const reader = new StreamMessageReader(replay);
    const got: Message[] = [];
    const all = new Promise<void>((resolve) => {
      reader.listen((m) => {
        got.push(m);
        if (got.length === sent.length) resolve();
      });
    });
    for (const c of chunks) replay.write(c);
    await all;
    expect(got).toEqual(sent);
    reader.dispose();
  });

  it("rejects a message whose write fails and reports the error", async () => {
    const broken = new Writable({
      write(_chunk, _enc, cb) {
        cb(new Error("EPIPE: the server is gone"));
      },
    });
    // The stream's own "error" event is reported too; keep it from being unhandled.
    const writer = new SingleWriteMessageWriter(broken);
    const errors: Error[] = [];
    writer.onError(([e]) => errors.push(e));
    await expect(writer.write({ jsonrpc: "2.0", id: 1, method: "x" } as Message)).rejects.toThrow(/EPIPE/);
    expect(errors.length).toBeGreaterThan(0);
  });
});
