// A fake agent that forges the spans it returns, reached through the real AgentClient: on a muxed
// call (MuxReply.spans) and on a stream (its trailers). Whatever it claims, its spans land only under
// the control plane's span for that call, in the caller's trace, inside the call's window and bounds;
// the traceparent it was sent is the agent call span's; an untraced call sends it none.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Metadata, Server, ServerCredentials, type ServerDuplexStream } from "@grpc/grpc-js";
import { ROOT_CONTEXT, trace, TraceFlags } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { AgentInfoService, DescribeResponse } from "@enclave/proto/gen/enclave/agent/v1/info.js";
import { CallMuxService, type MuxReply, type MuxRequest } from "@enclave/proto/gen/enclave/agent/v1/mux.js";
import { type ExecEvent, type ExecRequest, ProcessService } from "@enclave/proto/gen/enclave/agent/v1/process.js";
import { AgentSpanBatch } from "@enclave/proto/gen/enclave/agent/v1/trace.js";
import { AGENT_SPANS_TRAILER, AGENT_TRACE_LIMITS } from "@enclave/proto/agent-trace.js";
import { AgentClient } from "./agent-client.js";
import { inTraceScope } from "../observability/trace-scope.js";

const CALLER_TRACE = "0af7651916cd43dd8448eb211c80319c";
const OTHER_TRACE = "22222222222222222222222222222222";

/** Many small spans claiming another trace, the control plane's attributes and times far outside the call. */
function forged(n: number): AgentSpanBatch {
  return {
    spans: Array.from({ length: n }, (_, i) => ({
      name: i % 2 ? "process.run" : "evil\nname",
      startUnixMs: 1,
      endUnixMs: 4e12,
      error: false,
      attributes: [
        { key: "enclave.tenant", value: { $case: "stringValue" as const, value: "other-tenant" } },
        { key: "trace_id", value: { $case: "stringValue" as const, value: OTHER_TRACE } },
      ],
    })),
    dropped: 0,
  };
}

let dir = "";
let server: Server;
let client: AgentClient;
/** The traceparent each call arrived with, by method. */
const seen: Record<string, string> = {};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "enclave-fake-agent-"));
  server = new Server();
  server.addService(CallMuxService, {
    calls(stream: ServerDuplexStream<MuxRequest, MuxReply>) {
      stream.on("data", (req: MuxRequest) => {
        seen[req.method] = req.traceparent;
        const response = Buffer.from(DescribeResponse.encode({ components: [], placement: "host", platform: "fake" }).finish());
        stream.write({ id: req.id, outcome: { $case: "response", value: response }, spans: forged(200) });
      });
      stream.on("end", () => stream.end());
    },
  });
  server.addService(AgentInfoService, {});
  server.addService(ProcessService, {
    exec(call: ServerDuplexStream<ExecRequest, ExecEvent>) {
      seen.exec = String(call.metadata.get("traceparent")[0] ?? "");
      call.on("data", () => {
        call.write({ event: { $case: "exit", value: { code: 0, signal: "", timedOut: false, durationMs: 1, outputTruncated: false } } });
        const trailers = new Metadata();
        // As much as fits the trailer bound.
        let n = 40;
        let bytes = Buffer.from(AgentSpanBatch.encode(forged(n)).finish());
        while (bytes.length > AGENT_TRACE_LIMITS.batchMaxBytes) bytes = Buffer.from(AgentSpanBatch.encode(forged(--n)).finish());
        trailers.set(AGENT_SPANS_TRAILER, bytes);
        call.end(trailers);
      });
    },
  });
  const socket = join(dir, "agent.sock");
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${socket}`, ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())),
  );
  client = new AgentClient(socket, () => "a fake agent");
});

afterAll(async () => {
  client?.close();
  await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
  rmSync(dir, { recursive: true, force: true });
});

function traced<T>(fn: () => Promise<T>): { exporter: InMemorySpanExporter; done: Promise<T>; apiSpanId: string } {
  const exporter = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("t");
  const parent = trace.setSpanContext(ROOT_CONTEXT, { traceId: CALLER_TRACE, spanId: "b7ad6b7169203331", traceFlags: TraceFlags.SAMPLED, isRemote: true });
  const api = tracer.startSpan("api", {}, parent);
  const done = inTraceScope({ tracer, context: trace.setSpan(parent, api), ended: false }, fn);
  return { exporter, done, apiSpanId: api.spanContext().spanId };
}

function checkForgedLanded(exporter: InMemorySpanExporter, apiSpanId: string, callName: string, startedMs: number, endedMs: number): void {
  const spans = exporter.getFinishedSpans();
  const call = spans.find((s) => s.name === callName);
  expect(call, spans.map((s) => s.name).join()).toBeDefined();
  expect(call?.parentSpanContext?.spanId).toBe(apiSpanId);
  const agent = spans.filter((s) => s.parentSpanContext?.spanId === call?.spanContext().spanId);
  expect(agent.length).toBe(AGENT_TRACE_LIMITS.spansPerCall);
  expect(spans.every((s) => s.spanContext().traceId === CALLER_TRACE)).toBe(true);
  expect(spans.length).toBe(agent.length + 1);
  for (const s of agent) {
    expect(["process.run", "agent.span"]).toContain(s.name);
    expect(s.attributes["enclave.tenant"]).toBeUndefined();
    expect(s.attributes["enclave.agent_reported"]).toBe(true);
    const start = s.startTime[0] * 1000 + s.startTime[1] / 1e6;
    const end = s.endTime[0] * 1000 + s.endTime[1] / 1e6;
    expect(start).toBeGreaterThanOrEqual(startedMs - 1);
    expect(end).toBeLessThanOrEqual(endedMs + 1);
  }
  expect(call?.attributes["enclave.agent_spans_dropped"]).toBeGreaterThan(0);
}

describe("spans a fake agent forges", () => {
  it("on a muxed call land under that call's span only, bounded and clamped", async () => {
    const started = Date.now();
    const { exporter, done, apiSpanId } = traced(() => client.describe());
    expect((await done).platform).toBe("fake");
    checkForgedLanded(exporter, apiSpanId, "agent AgentInfo/Describe", started, Date.now());
    const call = exporter.getFinishedSpans().find((s) => s.name === "agent AgentInfo/Describe");
    expect(seen[AgentInfoService.describe.path]).toBe(`00-${CALLER_TRACE}-${call?.spanContext().spanId}-01`);
  });

  it("in a stream's trailers land under that call's span only, bounded and clamped", async () => {
    const started = Date.now();
    const { exporter, done, apiSpanId } = traced(
      () =>
        new Promise<void>((resolve, reject) => {
          const stream = client.exec(10_000);
          stream.on("data", () => undefined);
          stream.on("error", reject);
          stream.on("status", () => resolve());
          stream.write({ message: { $case: "start", value: { argv: ["true"], shellCommand: "", cwd: "", env: {}, timeoutMs: 0 } } });
          stream.end();
        }),
    );
    await done;
    checkForgedLanded(exporter, apiSpanId, "agent Process/Exec", started, Date.now());
    expect(seen.exec).toMatch(new RegExp(`^00-${CALLER_TRACE}-[0-9a-f]{16}-01$`));
  });

  it("outside a traced call: the agent is sent no traceparent and nothing is recorded", async () => {
    await client.describe();
    expect(seen[AgentInfoService.describe.path]).toBe("");
  });
});
