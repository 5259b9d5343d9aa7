// The language-server message reader: every message is handed on in the turn its last byte
// arrives (the stock reader waits a setImmediate and an async decoder), in order, however the bytes
// are split across reads; a message that cannot be read is reported and the next one still read.
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { Message } from "vscode-jsonrpc/node";
import { DirectMessageReader } from "./message-reader.js";
import { SingleWriteMessageWriter } from "./message-writer.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";

const frame = (body: string, head = ""): Buffer => {
  const b = Buffer.from(body, "utf8");
  return Buffer.concat([Buffer.from(`${head}Content-Length: ${b.length}\r\n\r\n`, "ascii"), b]);
};

function reader(): { stream: PassThrough; got: Message[]; errors: string[] } {
  const stream = new PassThrough();
  const got: Message[] = [];
  const errors: string[] = [];
  const r = new DirectMessageReader(stream);
  r.onError((e) => errors.push(e.message));
  r.listen((m) => got.push(m));
  return { stream, got, errors };
}

const MESSAGES: Message[] = [
  { jsonrpc: "2.0", id: 1, result: { contents: "héllo 🎉 wörld" } } as Message,
  { jsonrpc: "2.0", method: "window/logMessage", params: { message: "x".repeat(300) } } as Message,
  { jsonrpc: "2.0", id: 3, result: null } as Message,
];

describe("DirectMessageReader", () => {
  it("hands a message on in the same turn as the data that completes it", () => {
    const { stream, got } = reader();
    // emit("data") calls the listener synchronously: nothing may be left for a later turn.
    stream.emit("data", frame(JSON.stringify(MESSAGES[0])));
    expect(got).toEqual([MESSAGES[0]]);
  });

  it("reads messages split at every byte, and several in one read, in order", () => {
    const bytes = Buffer.concat(MESSAGES.map((m) => frame(JSON.stringify(m))));
    for (let cut = 1; cut < bytes.length; cut++) {
      const { stream, got, errors } = reader();
      stream.emit("data", bytes.subarray(0, cut));
      stream.emit("data", bytes.subarray(cut));
      expect(errors).toEqual([]);
      expect(got).toEqual(MESSAGES);
    }
    const { stream, got } = reader();
    for (const b of bytes) stream.emit("data", Buffer.from([b]));
    expect(got).toEqual(MESSAGES);
  });

  it("takes a large message in many reads, other headers in any case, and a leading BOM", () => {
    const big = { jsonrpc: "2.0", id: 9, result: "é".repeat(500_000) } as Message;
    const bytes = frame(JSON.stringify(big), "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n");
    const { stream, got } = reader();
    for (let i = 0; i < bytes.length; i += 65_536) stream.emit("data", bytes.subarray(i, i + 65_536));
    expect(got).toEqual([big]);
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(MESSAGES[2]))]);
    stream.emit("data", Buffer.concat([Buffer.from(`content-length: ${body.length}\r\n\r\n`), body]));
    expect(got).toEqual([big, MESSAGES[2]]);
  });

  it("reports an unreadable message and reads the next one", async () => {
    const { stream, got, errors } = reader();
    stream.emit("data", Buffer.concat([frame("{not json"), Buffer.from("X-Nothing: 1\r\n\r\n"), frame(JSON.stringify(MESSAGES[2]))]));
    expect(errors).toHaveLength(2);
    // The first is JSON.parse's own words; the second is ours, recorded whole.
    await expectTranscript(String(errors[1]), "transcripts/lsp-message-reader/no-length.txt");
    expect(got).toEqual([MESSAGES[2]]);
  });

  it("reads what the message writer writes, through a real stream", async () => {
    const pipe = new PassThrough();
    const got: Message[] = [];
    const all = new Promise<void>((resolve) => {
      new DirectMessageReader(pipe).listen((m) => {
        got.push(m);
        if (got.length === MESSAGES.length) resolve();
      });
    });
    const writer = new SingleWriteMessageWriter(pipe);
    await Promise.all(MESSAGES.map((m) => writer.write(m)));
    await all;
    expect(got).toEqual(MESSAGES);
  });

  it("reports the stream closing", async () => {
    const stream = new PassThrough();
    const r = new DirectMessageReader(stream);
    const closed = new Promise<void>((resolve) => r.onClose(() => resolve()));
    r.listen(() => undefined);
    stream.destroy();
    await closed;
  });
});
