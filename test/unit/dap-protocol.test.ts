// DAP framing, the connection's request/response/reverse-request logic over in-memory streams, and
// the bounded output buffer. The real adapters are exercised by the debug integration tests.
import { PassThrough } from "node:stream";
import type { DebugProtocol } from "@vscode/debugprotocol";
import { describe, expect, it } from "vitest";
import { cutValue } from "@enclave/control-plane/tools/debug/debug-format.js";
import { DapConnection, DapTimeoutError } from "@enclave/agent/dap/dap-connection.js";
import { encodeMessage, FramingError, MessageReader } from "@enclave/agent/dap/dap-framing.js";
import { OutputBuffer } from "@enclave/agent/dap/output-buffer.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";
import { rejected, thrown } from "@enclave/test-kit/transcript-log.js";

const event = (seq: number, name: string, body?: unknown): DebugProtocol.Event => ({ seq, type: "event", event: name, body });

describe("DAP framing", () => {
  it("reads messages split at any byte and packed together, counting bytes not characters", () => {
    const a = encodeMessage(event(1, "output", { output: "héllo ✓" }));
    const b = encodeMessage(event(2, "stopped", { reason: "breakpoint" }));
    const all = Buffer.concat([a, b]);
    for (let cut = 1; cut < all.length; cut += 7) {
      const r = new MessageReader(1 << 20);
      const got = [...r.push(all.subarray(0, cut)), ...r.push(all.subarray(cut))];
      expect(got.map((m) => (m as DebugProtocol.Event).event)).toEqual(["output", "stopped"]);
      expect((got[0] as DebugProtocol.OutputEvent).body.output).toBe("héllo ✓");
    }
  });

  it("refuses a header without Content-Length, a body that is not JSON, and an oversized message", async () => {
    expect(() => new MessageReader(100).push(Buffer.from("X-Other: 1\r\n\r\n{}"))).toThrow(FramingError);
    await expectTranscript(
      thrown(() => new MessageReader(100).push(Buffer.from("Content-Length: 3\r\n\r\n{x}"))).replace(/(is not JSON: ).*/, "$1<JSON.parse's words>"),
      "transcripts/dap-protocol/not-json.txt",
    );
    await expectTranscript(
      thrown(() => new MessageReader(10).push(Buffer.from("Content-Length: 11\r\n\r\n"))),
      "transcripts/dap-protocol/over-the-10-byte-limit.txt",
    );
  });
});

function pair(): { conn: DapConnection; adapterIn: MessageReader; toClient: PassThrough; fromClient: PassThrough } {
  const toClient = new PassThrough();
  const fromClient = new PassThrough();
  return { conn: new DapConnection(toClient, fromClient, 1 << 20), adapterIn: new MessageReader(1 << 20), toClient, fromClient };
}

describe("DAP connection", () => {
  it("matches responses by request_seq and formats an adapter's error message", async () => {
    const { conn, adapterIn, toClient, fromClient } = pair();
    fromClient.on("data", (d: Buffer) => {
      for (const m of adapterIn.push(d) as DebugProtocol.Request[]) {
        const ok = m.command === "threads";
        const res: DebugProtocol.Response = {
          seq: 100 + m.seq,
          type: "response",
          request_seq: m.seq,
          command: m.command,
          success: ok,
          body: ok ? { threads: [{ id: 1, name: "main" }] } : { error: { id: 1, format: "no frame {id}", variables: { id: "7" } } },
        };
        toClient.write(encodeMessage(res));
      }
    });
    const threads = await conn.request<DebugProtocol.ThreadsResponse>("threads", undefined, 1000);
    expect(threads.body.threads[0]?.name).toBe("main");
    await expectTranscript(await rejected(conn.request("scopes", { frameId: 7 }, 1000)), "transcripts/dap-protocol/no-frame-7.txt");
  });

  it("answers reverse requests, and refuses ones it has no handler for", async () => {
    const { conn, adapterIn, toClient, fromClient } = pair();
    conn.handleReverse("runInTerminal", async (a) => ({ processId: (a as { args: string[] }).args.length }));
    const answers: DebugProtocol.Response[] = [];
    fromClient.on("data", (d: Buffer) => answers.push(...(adapterIn.push(d) as DebugProtocol.Response[])));
    toClient.write(encodeMessage({ seq: 5, type: "request", command: "runInTerminal", arguments: { cwd: "/", args: ["a", "b"] } } as DebugProtocol.Request));
    toClient.write(encodeMessage({ seq: 6, type: "request", command: "startDebugging", arguments: {} } as DebugProtocol.Request));
    await new Promise((r) => setTimeout(r, 50));
    expect(answers.find((a) => a.request_seq === 5)).toMatchObject({ success: true, body: { processId: 2 } });
    expect(answers.find((a) => a.request_seq === 6)).toMatchObject({ success: false });
  });

  it("times out a request the adapter never answers, and fails pending ones when it closes", async () => {
    const { conn, toClient } = pair();
    await expect(conn.request("next", {}, 30)).rejects.toBeInstanceOf(DapTimeoutError);
    const pending = conn.request("continue", {}, 5000);
    toClient.end();
    toClient.destroy();
    await expectTranscript(await rejected(pending), "transcripts/dap-protocol/closed-before-it-answered-continue.txt");
    await expectTranscript(await rejected(conn.request("threads", {}, 100)), "transcripts/dap-protocol/closed.txt");
  });

  it("waits for an event, bounded", async () => {
    const { conn, toClient } = pair();
    const stopped = conn.waitForEvent((e) => e.event === "stopped", 1000);
    toClient.write(encodeMessage(event(1, "output", { output: "x" })));
    toClient.write(encodeMessage(event(2, "stopped", { reason: "step" })));
    expect((await stopped)?.seq).toBe(2);
    expect(await conn.waitForEvent((e) => e.event === "never", 20)).toBeUndefined();
  });
});

describe("output buffer", () => {
  it("keeps the newest bytes, counts what it dropped, and turns CRLF into LF", () => {
    const b = new OutputBuffer(10);
    b.append("hello\r\n");
    b.append("world!\n");
    const s = b.snapshot();
    expect(s.text).toBe("lo\nworld!\n");
    expect(Buffer.byteLength(s.text)).toBeLessThanOrEqual(10);
    expect(s.droppedBytes).toBe(3);
    expect(s.totalBytes).toBe(13);
  });
});

describe("value cap", () => {
  it("cuts a value at 400 characters and says how long it was", async () => {
    expect(cutValue("short")).toBe("short");
    const cut = cutValue("y".repeat(1000));
    expect(cut.startsWith("y".repeat(400) + "…")).toBe(true);
    await expectTranscript(cut.slice(400), "transcripts/dap-protocol/value-cut.txt");
  });
});
