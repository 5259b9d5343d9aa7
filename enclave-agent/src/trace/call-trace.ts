// The spans the agent makes for one traced call, kept in memory and returned on that call: the agent
// never exports anything itself (in an enclosure it has nowhere to send to). A call is traced when
// the control plane sent a valid traceparent with it; otherwise nothing is recorded and `span` only
// runs its function.
import { AsyncLocalStorage } from "node:async_hooks";
import { Metadata } from "@grpc/grpc-js";
import { AGENT_SPANS_TRAILER, AGENT_TRACE_LIMITS, metadataTraceparent } from "@enclave/proto/agent-trace.js";
import { parseTraceparent } from "@enclave/proto/traceparent.js";
import { AgentSpanBatch, type AgentSpan, type AgentSpanAttribute } from "@enclave/proto/gen/enclave/agent/v1/trace.js";

export type SpanAttributes = Record<string, string | number | boolean>;

/** A span in progress: attributes learnt while it runs, and whether it failed. */
export interface OpenSpan {
  set(key: string, value: string | number | boolean): void;
  fail(): void;
}

const NO_SPAN: OpenSpan = { set: () => undefined, fail: () => undefined };

export class CallTrace {
  private readonly spans: AgentSpan[] = [];
  private dropped = 0;

  /** Starts a span; `end` records it. Past the per-call bound spans are counted, not kept. */
  start(name: string, attributes: SpanAttributes = {}): OpenSpan & { end(): void } {
    const startMs = nowUnixMs();
    const attrs: SpanAttributes = { ...attributes };
    let error = false;
    let ended = false;
    return {
      set: (key, value) => {
        attrs[key] = value;
      },
      fail: () => {
        error = true;
      },
      end: () => {
        if (ended) return;
        ended = true;
        if (this.spans.length >= AGENT_TRACE_LIMITS.spansPerCall) {
          this.dropped++;
          return;
        }
        this.spans.push({
          name: name.slice(0, AGENT_TRACE_LIMITS.nameMaxChars),
          startUnixMs: startMs,
          endUnixMs: nowUnixMs(),
          error,
          attributes: Object.entries(attrs)
            .slice(0, AGENT_TRACE_LIMITS.attributesPerSpan)
            .map(([k, v]) => attribute(k, v)),
        });
      },
    };
  }

  /** The spans as a batch under the size bound (the latest dropped first, and counted). */
  encode(): Buffer | undefined {
    if (this.spans.length === 0 && this.dropped === 0) return undefined;
    const spans = [...this.spans];
    let dropped = this.dropped;
    for (;;) {
      const bytes = Buffer.from(AgentSpanBatch.encode({ spans, dropped }).finish());
      if (bytes.length <= AGENT_TRACE_LIMITS.batchMaxBytes || spans.length === 0) return bytes;
      spans.pop();
      dropped++;
    }
  }

  /** Trailing metadata carrying the spans, merged into `into` when given. */
  trailers(into: Metadata = new Metadata()): Metadata {
    const bytes = this.encode();
    if (bytes) into.set(AGENT_SPANS_TRAILER, bytes);
    return into;
  }
}

function nowUnixMs(): number {
  return performance.timeOrigin + performance.now();
}

function attribute(key: string, v: string | number | boolean): AgentSpanAttribute {
  const k = key.slice(0, AGENT_TRACE_LIMITS.attributeKeyMaxChars);
  if (typeof v === "boolean") return { key: k, value: { $case: "boolValue", value: v } };
  if (typeof v === "number" && Number.isSafeInteger(v)) return { key: k, value: { $case: "intValue", value: v } };
  return { key: k, value: { $case: "stringValue", value: String(v).slice(0, AGENT_TRACE_LIMITS.attributeValueMaxChars) } };
}

const current = new AsyncLocalStorage<CallTrace>();

/** A trace for a call whose metadata carries a valid traceparent; undefined for an untraced call. */
export function callTraceFor(metadata: Metadata | undefined): CallTrace | undefined {
  return parseTraceparent(metadataTraceparent(metadata)) ? new CallTrace() : undefined;
}

/** Runs `fn` with `trace` as the current call's (nothing changes for an untraced call). */
export function withCallTrace<T>(trace: CallTrace | undefined, fn: () => T): T {
  return trace ? current.run(trace, fn) : fn();
}

/** Runs `fn` inside a span of the current call's trace; outside a traced call, just runs it. */
export async function span<T>(name: string, attributes: SpanAttributes, fn: (s: OpenSpan) => Promise<T>): Promise<T> {
  const trace = current.getStore();
  if (!trace) return fn(NO_SPAN);
  const s = trace.start(name, attributes);
  try {
    return await fn(s);
  } catch (err) {
    s.fail();
    throw err;
  } finally {
    s.end();
  }
}
