// Promise: a burst of 10,000 malformed tool calls (random JSON, wrong types, huge strings, invalid
// UTF-8, unknown tools) is answered call by call with a validation error; the control plane and the
// agent keep serving, and the control plane keeps nothing per refused call (its memory does not grow
// with the number of calls).
import { randomBytes } from "node:crypto";
import { runInNewContext } from "node:vm";
import { setFlagsFromString } from "node:v8";
import { credentials, Client, Metadata } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { ToolEvent } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

let fx: Fixture;
let runId: string;

beforeAll(async () => {
  fx = await startFixture();
  await fx.client.createConversation("burst");
  runId = (await fx.client.openRun("burst", { approvalPolicy: "never", resources: ["workspace", "shell"] })).id;
  await fx.client.callTool(runId, "write", { path: "keep.txt", content: "intact\n" });
});
afterAll(async () => fx?.close());

/** A protobuf CallToolRequest written by hand, so arguments_json can carry bytes that are not UTF-8. */
function rawCallTool(run: string, tool: string, args: Buffer): Buffer {
  const field = (no: number, value: Buffer): Buffer => {
    const len: number[] = [];
    let n = value.length;
    do {
      len.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
      n >>>= 7;
    } while (n > 0);
    return Buffer.concat([Buffer.from([(no << 3) | 2, ...len]), value]);
  };
  return Buffer.concat([field(1, Buffer.from(run)), field(2, Buffer.from(tool)), field(3, args)]);
}

function rawCall(client: Client, body: Buffer): Promise<ToolEvent[]> {
  return new Promise((resolve, reject) => {
    const events: ToolEvent[] = [];
    const stream = client.makeServerStreamRequest(
      "/enclave.control.v1.ControlPlane/CallTool",
      (b: Buffer) => b,
      (b: Buffer) => ToolEvent.decode(b),
      body,
      new Metadata(),
      { deadline: Date.now() + 60_000 },
    );
    stream.on("data", (e: ToolEvent) => events.push(e));
    stream.on("error", reject);
    stream.on("end", () => resolve(events));
  });
}

const huge = "x".repeat(2 * 1024 * 1024);
/** Ten kinds of bad call, each of which must come back as a refusal, never as a success or a crash. */
function malformed(i: number): { tool: string; args: Buffer } {
  const j = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));
  switch (i % 10) {
    case 0:
      return { tool: "read", args: randomBytes(64) }; // random bytes: neither JSON nor UTF-8
    case 1:
      return { tool: "write", args: Buffer.from(`{"path": "a", "content": ${randomBytes(8).toString("hex")}`) }; // cut JSON
    case 2:
      return { tool: "read", args: j({ path: 42 }) };
    case 3:
      return { tool: "write", args: j({ path: ["a"], content: { nested: true } }) };
    case 4:
      return { tool: "edit", args: j({ path: "keep.txt", old_text: 7, new_text: null }) };
    case 5:
      return { tool: "list", args: j([1, 2, 3]) };
    case 6:
      return { tool: `no_such_tool_${i}`, args: j({}) };
    case 7:
      return { tool: "read", args: Buffer.concat([Buffer.from('{"path":"'), Buffer.from([0xff, 0xfe, 0xc3, 0x28]), Buffer.from('"}')]) }; // invalid UTF-8 in a JSON string
    case 8:
      return { tool: "exec", args: j({ command: "true", timeout_seconds: "soon", unexpected: huge.slice(0, 1000) }) };
    default:
      return { tool: "write", args: j({ path: "", content: "x", extra_field: true }) };
  }
}

describe("a burst of malformed tool calls", () => {
  it("answers 10,000 of them with validation errors, keeps serving and keeps nothing per call", async () => {
    const address = fx.client.address;
    const raw = new Client(address, credentials.createInsecure(), { "grpc.max_send_message_length": 64 * 1024 * 1024 });
    // Warm up every path once so the baseline includes what the first calls allocate for good.
    for (let i = 0; i < 200; i++) await rawCall(raw, rawCallTool(runId, malformed(i).tool, malformed(i).args));
    const settledMemory = async (): Promise<number> => {
      await new Promise((r) => setTimeout(r, 200));
      gc();
      gc();
      // Buffers live outside the JavaScript heap: count both.
      const m = process.memoryUsage();
      return m.heapUsed + m.external;
    };

    const codes = new Map<string, number>();
    const total = 10_000;
    const half = total / 2;
    let next = 0;
    let limit = half;
    const worker = async (): Promise<void> => {
      while (next < limit) {
        const i = next++;
        const { tool, args } = malformed(i);
        const events = await rawCall(raw, rawCallTool(runId, tool, args));
        const result = events.find((e) => e.event?.$case === "result");
        expect(result?.event?.$case).toBe("result");
        if (result?.event?.$case !== "result") continue;
        expect(result.event.value.isError, `call ${i} (${tool}) succeeded`).toBe(true);
        codes.set(result.event.value.errorCode, (codes.get(result.event.value.errorCode) ?? 0) + 1);
      }
    };
    // Memory growth per call: the heap after N calls and after 2N, each settled by a full GC. Whatever
    // the first half keeps for good (caches, the audit log's bounded window filling) is in both
    // readings; a leak per call shows as growth between them.
    await Promise.all(Array.from({ length: 32 }, worker));
    const atHalf = await settledMemory();
    limit = total;
    await Promise.all(Array.from({ length: 32 }, worker));
    const atTotal = await settledMemory();
    // Huge strings: a path of 2 MiB is refused, not sent on.
    const big = await fx.client.callTool(runId, "read", { path: huge });
    expect(big.isError).toBe(true);
    raw.close();

    expect([...codes.values()].reduce((a, b) => a + b, 0)).toBe(total);
    expect([...codes.keys()].sort()).toEqual(["invalid_arguments", "unknown_tool"]);
    expect(codes.get("unknown_tool")).toBe(total / 10);

    // Still serving, the workspace intact, and the agent still answers.
    const read = await fx.client.callTool(runId, "read", { path: "keep.txt" });
    expect(resultText(read)).toBe("intact\n");
    const exec = await fx.client.callTool(runId, "exec", { command: "echo alive" });
    expect(resultText(exec)).toMatch(/^alive$/m);

    // Under 100 bytes a call (0.5 MB over the second half): a refused call must not keep anything.
    const perCall = (atTotal - atHalf) / half;
    expect(perCall, `memory grew from ${atHalf} to ${atTotal} bytes over ${half} calls (${perCall.toFixed(1)} a call)`).toBeLessThan(100);
  }, 600_000);
});
