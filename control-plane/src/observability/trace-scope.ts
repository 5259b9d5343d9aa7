// The trace of the API call being served, where the code under it can find it without being handed
// it: the dispatcher, the tools and the agent client run inside the scope, and every agent call made
// there becomes a child span whose context goes to the agent and whose agent-made spans come back on
// the call. Outside a scope (tracing off, or an untraced call) nothing is recorded and nothing is sent.
import { AsyncLocalStorage } from "node:async_hooks";
import { type Context, SpanKind, SpanStatusCode, type Tracer, trace } from "@opentelemetry/api";
import { status } from "@grpc/grpc-js";
import type { AgentSpanBatch } from "@enclave/proto/gen/enclave/agent/v1/trace.js";
import { formatTraceparent } from "@enclave/proto/traceparent.js";
import { replayAgentSpans } from "./agent-spans.js";

export interface TraceScope {
  tracer: Tracer;
  /** The API call's span, as the parent of what is made under it. */
  context: Context;
  /** Set when the API call has answered: work started later (a connection's callbacks) is not its. */
  ended: boolean;
}

const current = new AsyncLocalStorage<TraceScope>();

export function inTraceScope<T>(scope: TraceScope, fn: () => T): T {
  return current.run(scope, fn);
}

/** One agent call's span: the traceparent to send with the call, and how it ends. */
export interface AgentCallSpan {
  traceparent: string;
  /** Ends the span with the call's gRPC status code, adding the spans the agent sent back (hostile input). */
  end(code: status, spans?: AgentSpanBatch): void;
}

function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

/** A span for an agent call about to be made with gRPC path `path`, or undefined when the call is not traced. */
export function startAgentCallSpan(path: string): AgentCallSpan | undefined {
  const scope = current.getStore();
  if (!scope || scope.ended) return undefined;
  const [, service = "", method = ""] = path.split("/");
  const startedAt = nowMs();
  const span = scope.tracer.startSpan(
    `agent ${service.replace(/^enclave\.agent\.v1\./, "")}/${method}`,
    { kind: SpanKind.CLIENT, startTime: startedAt, attributes: { "rpc.system": "grpc", "rpc.service": service, "rpc.method": method } },
    scope.context,
  );
  // Not sampled: the agent is not asked for spans that would be dropped.
  if (!span.isRecording()) return undefined;
  const sc = span.spanContext();
  let ended = false;
  return {
    traceparent: formatTraceparent({ traceId: sc.traceId, spanId: sc.spanId, flags: sc.traceFlags }),
    end(code, spans) {
      if (ended) return;
      ended = true;
      const endedAt = nowMs();
      if (spans) replayAgentSpans(scope.tracer, trace.setSpan(scope.context, span), span, spans, startedAt, endedAt);
      span.setAttribute("rpc.grpc.status_code", code);
      if (code !== status.OK) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end(endedAt);
    },
  };
}
