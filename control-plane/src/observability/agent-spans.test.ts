// What an enclosure can make of the control plane's trace by the spans it sends back: a forged batch
// (too many spans, names and attributes that are not names, the control plane's own attribute names,
// times outside the call, values past every bound) lands only under the agent call's own span, in its
// trace, within its window and its bounds.
import { describe, expect, it } from "vitest";
import { status } from "@grpc/grpc-js";
import { ROOT_CONTEXT, trace, TraceFlags } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { AgentSpanBatch } from "@enclave/proto/gen/enclave/agent/v1/trace.js";
import { AGENT_TRACE_LIMITS, decodeSpanBatch } from "@enclave/proto/agent-trace.js";
import { inTraceScope, startAgentCallSpan } from "./trace-scope.js";

function recorder() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, tracer: provider.getTracer("test") };
}

const otherTrace = "11111111111111111111111111111111";

function forged(): AgentSpanBatch {
  const spans = Array.from({ length: 500 }, (_, i) => ({
    name: i === 0 ? "x".repeat(10_000) : i === 1 ? "Bad Name\u001b[31m" : "process.run",
    startUnixMs: i % 2 ? -1e15 : Number.NaN,
    endUnixMs: 1e15,
    error: true,
    attributes: [
      { key: "enclave.tenant", value: { $case: "stringValue" as const, value: "someone-else" } },
      { key: "enclave.agent_reported", value: { $case: "boolValue" as const, value: false } },
      { key: "trace_id", value: { $case: "stringValue" as const, value: otherTrace } },
      { key: "Not A Key", value: { $case: "stringValue" as const, value: "v" } },
      { key: "big", value: { $case: "stringValue" as const, value: "v".repeat(i < 20 ? 100_000 : 200) } },
      ...Array.from({ length: 50 }, (_, j) => ({ key: `k${j}`, value: { $case: "intValue" as const, value: j } })),
    ],
  }));
  return { spans, dropped: 2 ** 31 };
}

describe("spans an agent sends back", () => {
  it("are bounded, clamped and forced under the agent call's span in its trace", () => {
    const { exporter, tracer } = recorder();
    const parent = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: "0af7651916cd43dd8448eb211c80319c",
      spanId: "b7ad6b7169203331",
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
    });
    const apiSpan = tracer.startSpan("api", {}, parent);
    const before = Date.now();
    inTraceScope({ tracer, context: trace.setSpan(parent, apiSpan), ended: false }, () => {
      const call = startAgentCallSpan("/enclave.agent.v1.Process/Exec");
      expect(call?.traceparent).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
      call?.end(status.OK, forged());
    });
    const after = Date.now();
    const spans = exporter.getFinishedSpans();
    const call = spans.find((s) => s.name === "agent Process/Exec");
    expect(call).toBeDefined();
    const agent = spans.filter((s) => s !== call);
    expect(agent).toHaveLength(AGENT_TRACE_LIMITS.spansPerCall);
    expect(call?.attributes["enclave.agent_spans_dropped"]).toBe(1_000_000 + 500 - AGENT_TRACE_LIMITS.spansPerCall);
    for (const s of agent) {
      expect(s.spanContext().traceId).toBe("0af7651916cd43dd8448eb211c80319c");
      expect(s.parentSpanContext?.spanId).toBe(call?.spanContext().spanId);
      expect(s.name === "process.run" || s.name === "agent.span").toBe(true);
      const startMs = s.startTime[0] * 1000 + s.startTime[1] / 1e6;
      const endMs = s.endTime[0] * 1000 + s.endTime[1] / 1e6;
      expect(startMs).toBeGreaterThanOrEqual(before - 1);
      expect(endMs).toBeLessThanOrEqual(after + 1);
      expect(endMs).toBeGreaterThanOrEqual(startMs);
      expect(s.attributes["enclave.agent_reported"]).toBe(true);
      expect(s.attributes["enclave.tenant"]).toBeUndefined();
      expect(s.attributes["Not A Key"]).toBeUndefined();
      expect(String(s.attributes.big).length).toBe(AGENT_TRACE_LIMITS.attributeValueMaxChars);
      // The agent's kept attributes, then the control plane's own mark.
      expect(Object.keys(s.attributes).length).toBeLessThanOrEqual(AGENT_TRACE_LIMITS.attributesPerSpan + 1);
    }
    expect(JSON.stringify(spans.map((s) => s.spanContext().traceId))).not.toContain(otherTrace);
  });

  it("are not read at all from a trailer over the size bound, or one that does not decode", () => {
    const big = Buffer.from(AgentSpanBatch.encode(forged()).finish());
    expect(big.length).toBeGreaterThan(AGENT_TRACE_LIMITS.batchMaxBytes);
    expect(decodeSpanBatch(big)).toBeUndefined();
    expect(decodeSpanBatch(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f]))).toBeUndefined();
  });

  it("record nothing outside a traced call, and nothing after the call it belonged to answered", () => {
    expect(startAgentCallSpan("/enclave.agent.v1.Lsp/Query")).toBeUndefined();
    const { exporter, tracer } = recorder();
    const scope = { tracer, context: ROOT_CONTEXT, ended: true };
    inTraceScope(scope, () => expect(startAgentCallSpan("/enclave.agent.v1.Lsp/Query")).toBeUndefined());
    expect(exporter.getFinishedSpans()).toHaveLength(0);
  });
});
