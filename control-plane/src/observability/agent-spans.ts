// The spans an agent sent back for one of its calls, made into real spans under that call's span.
// Everything an enclosure writes is hostile: the batch names no trace or parent (each span becomes a
// child of the control plane's own span for the call, so it cannot land in another trace or another
// tenant's), its times are clamped into the call's window, names and attribute keys must look like
// names, values are cut short, the `enclave.` attributes are the control plane's alone, and only so
// many spans and attributes are kept.
import { type Attributes, type Context, type Span, SpanKind, SpanStatusCode, type Tracer } from "@opentelemetry/api";
import { AGENT_TRACE_LIMITS } from "@enclave/proto/agent-trace.js";
import type { AgentSpanAttribute, AgentSpanBatch } from "@enclave/proto/gen/enclave/agent/v1/trace.js";

/** A span or attribute name: lowercase dotted words, as the agent's own are. */
const NAME = /^[a-z][a-z0-9_.]*$/;

/** What an agent's span is called when its name is not a name. */
export const UNNAMED_AGENT_SPAN = "agent.span";

function clamp(v: number, lo: number, hi: number): number {
  return Number.isFinite(v) ? Math.min(Math.max(v, lo), hi) : lo;
}

function attributesOf(list: AgentSpanAttribute[]): Attributes {
  const out: Attributes = {};
  let kept = 0;
  for (const a of list) {
    if (kept >= AGENT_TRACE_LIMITS.attributesPerSpan) break;
    const key = a.key;
    if (key.length > AGENT_TRACE_LIMITS.attributeKeyMaxChars || !NAME.test(key) || key.startsWith("enclave.") || key in out) continue;
    const v = a.value;
    if (v?.$case === "stringValue") out[key] = v.value.slice(0, AGENT_TRACE_LIMITS.attributeValueMaxChars);
    else if (v?.$case === "intValue" && Number.isSafeInteger(v.value)) out[key] = v.value;
    else if (v?.$case === "boolValue") out[key] = v.value === true;
    else continue;
    kept++;
  }
  return out;
}

/**
 * Records `batch` as children of `parent` (the agent call's span, in `parentContext`), each within
 * [windowStart, windowEnd] (ms since the epoch). What was left out is counted on the parent.
 */
export function replayAgentSpans(tracer: Tracer, parentContext: Context, parent: Span, batch: AgentSpanBatch, windowStart: number, windowEnd: number): void {
  const kept = batch.spans.slice(0, AGENT_TRACE_LIMITS.spansPerCall);
  const reported = Number.isSafeInteger(batch.dropped) && batch.dropped > 0 ? Math.min(batch.dropped, 1_000_000) : 0;
  const dropped = reported + (batch.spans.length - kept.length);
  if (dropped > 0) parent.setAttribute("enclave.agent_spans_dropped", dropped);
  for (const s of kept) {
    const name = s.name.length <= AGENT_TRACE_LIMITS.nameMaxChars && NAME.test(s.name) ? s.name : UNNAMED_AGENT_SPAN;
    const start = clamp(s.startUnixMs, windowStart, windowEnd);
    const end = clamp(s.endUnixMs, start, windowEnd);
    const span = tracer.startSpan(
      name,
      // Set after the agent's own, so none of them can pass for the control plane's.
      { kind: SpanKind.INTERNAL, startTime: start, attributes: { ...attributesOf(s.attributes), "enclave.agent_reported": true } },
      parentContext,
    );
    if (s.error === true) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end(end);
  }
}
