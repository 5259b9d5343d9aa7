// The agent's side of a traced call: it records only when the call carries a valid traceparent, and
// what it returns stays under the trailer's size bound however much it recorded.
import { describe, expect, it } from "vitest";
import { Metadata } from "@grpc/grpc-js";
import { AGENT_SPANS_TRAILER, AGENT_TRACE_LIMITS, trailerSpans } from "@enclave/proto/agent-trace.js";
import { callTraceFor, span, withCallTrace } from "./call-trace.js";

function metadata(traceparent?: string): Metadata {
  const md = new Metadata();
  if (traceparent !== undefined) md.set("traceparent", traceparent);
  return md;
}

describe("the agent's call trace", () => {
  it("is made only for a call with a valid traceparent", () => {
    expect(callTraceFor(metadata())).toBeUndefined();
    expect(callTraceFor(metadata("00-xyz"))).toBeUndefined();
    expect(callTraceFor(metadata("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"))).toBeDefined();
  });

  it("records spans made under it, and nothing outside one", async () => {
    expect(await span("lsp.request", { "lsp.method": "x" }, () => Promise.resolve(7))).toBe(7);
    const trace = callTraceFor(metadata("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"))!;
    await withCallTrace(trace, () => span("lsp.request", { "lsp.method": "textDocument/hover" }, () => Promise.resolve()));
    await withCallTrace(trace, () => span("lsp.request", {}, () => Promise.reject(new Error("boom")))).catch(() => undefined);
    const batch = trailerSpans(trace.trailers());
    expect(batch?.spans.map((s) => [s.name, s.error])).toEqual([
      ["lsp.request", false],
      ["lsp.request", true],
    ]);
    expect(batch?.spans[0]?.attributes).toEqual([{ key: "lsp.method", value: { $case: "stringValue", value: "textDocument/hover" } }]);
  });

  it("keeps what it returns under the trailer bound, counting what it left out", () => {
    const trace = callTraceFor(metadata("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"))!;
    for (let i = 0; i < 100; i++) {
      const attrs = Object.fromEntries(Array.from({ length: 20 }, (_, j) => [`k${j}`, "v".repeat(1_000)]));
      trace.start("x".repeat(1_000), attrs).end();
    }
    const raw = trace.trailers().get(AGENT_SPANS_TRAILER)[0] as Buffer;
    expect(raw.length).toBeLessThanOrEqual(AGENT_TRACE_LIMITS.batchMaxBytes);
    const batch = trailerSpans(trace.trailers())!;
    expect(batch.spans.length + batch.dropped).toBe(100);
    expect(batch.spans.length).toBeLessThanOrEqual(AGENT_TRACE_LIMITS.spansPerCall);
    expect(batch.spans.every((s) => s.name.length <= AGENT_TRACE_LIMITS.nameMaxChars && s.attributes.length <= AGENT_TRACE_LIMITS.attributesPerSpan)).toBe(
      true,
    );
  });
});
