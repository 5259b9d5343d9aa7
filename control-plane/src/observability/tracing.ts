// OpenTelemetry traces of the API: one span per traced API call, the agent calls under it (see
// trace-scope.ts) and the spans the agent made (agent-spans.ts), exported over OTLP/HTTP (protobuf)
// by this process only. Off unless the operator names an endpoint: then no SDK is loaded and a call
// costs one branch. A caller's W3C traceparent (gRPC metadata) is taken as the parent when it is
// exactly well formed and ignored otherwise.
import { type Attributes, type Span, SpanKind, SpanStatusCode, type Tracer, ROOT_CONTEXT, trace, TraceFlags } from "@opentelemetry/api";
import type { Metadata } from "@grpc/grpc-js";
import { metadataTraceparent } from "@enclave/proto/agent-trace.js";
import { parseTraceparent } from "@enclave/proto/traceparent.js";
import { inTraceScope, type TraceScope } from "./trace-scope.js";

export interface TracingConfig {
  /** The OTLP/HTTP endpoint's base URL (traces go to its /v1/traces); empty for tracing off. */
  otlpEndpoint: string;
  /** The service.name resource attribute of every span. */
  serviceName: string;
}

export const DEFAULT_SERVICE_NAME = "enclave-control-plane";

/** What the served call lets its span say as it ends. */
export interface ApiSpan {
  set(attributes: Attributes): void;
  /** The call failed with this control-plane error code. */
  failed(code: string): void;
}

export interface Tracing {
  readonly enabled: boolean;
  /** Runs `fn` inside a span for one API call (`rpc` as gRPC names the method); with tracing off, just runs it. */
  apiCall<T>(rpc: string, metadata: Metadata, attributes: Attributes, fn: (span: ApiSpan) => Promise<T>): Promise<T>;
  /** Sends what is buffered and stops. */
  shutdown(): Promise<void>;
}

const NO_SPAN: ApiSpan = { set: () => undefined, failed: () => undefined };

export const TRACING_OFF: Tracing = {
  enabled: false,
  apiCall: (_rpc, _metadata, _attributes, fn) => fn(NO_SPAN),
  shutdown: () => Promise.resolve(),
};

/** The URL spans are posted to: the endpoint's /v1/traces, as OTEL_EXPORTER_OTLP_ENDPOINT is read. */
export function tracesUrl(endpoint: string): string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new Error(`the OTLP endpoint ${JSON.stringify(endpoint)} is not a URL: give one such as http://127.0.0.1:4318`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`the OTLP endpoint ${endpoint} must be http:// or https:// (OTLP/HTTP)`);
  return `${endpoint.replace(/\/+$/, "")}/v1/traces`;
}

/** Tracing as configured: off without an endpoint; otherwise the SDK, loaded now, exporting in batches. */
export async function startTracing(config: TracingConfig): Promise<Tracing> {
  if (!config.otlpEndpoint) return TRACING_OFF;
  const url = tracesUrl(config.otlpEndpoint);
  const [{ BasicTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
    import("@opentelemetry/sdk-trace-base"),
    import("@opentelemetry/exporter-trace-otlp-proto"),
    import("@opentelemetry/resources"),
  ]);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": config.serviceName || DEFAULT_SERVICE_NAME }),
    // Batched: export never waits on a call, and a collector that is down costs dropped spans only.
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }), { scheduledDelayMillis: 1_000 })],
  });
  // This process's own provider, not the global one: nothing else in the process emits into it.
  return tracingWith(provider.getTracer("enclave"), () => provider.shutdown());
}

/** Tracing that records with `tracer` (tests give one of their own). */
export function tracingWith(tracer: Tracer, shutdown: () => Promise<void>): Tracing {
  return {
    enabled: true,
    apiCall: async (rpc, metadata, attributes, fn) => {
      const caller = parseTraceparent(metadataTraceparent(metadata));
      const parent = caller
        ? trace.setSpanContext(ROOT_CONTEXT, {
            traceId: caller.traceId,
            spanId: caller.spanId,
            traceFlags: caller.flags & TraceFlags.SAMPLED,
            isRemote: true,
          })
        : ROOT_CONTEXT;
      const [, service = "", method = ""] = rpc.split("/");
      const span: Span = tracer.startSpan(
        `${service}/${method}`,
        { kind: SpanKind.SERVER, attributes: { "rpc.system": "grpc", "rpc.service": service, "rpc.method": method, ...attributes } },
        parent,
      );
      const scope: TraceScope = { tracer, context: trace.setSpan(parent, span), ended: false };
      const api: ApiSpan = {
        set: (a) => span.setAttributes(a),
        failed: (code) => {
          span.setAttribute("enclave.error_code", code);
          span.setStatus({ code: SpanStatusCode.ERROR });
        },
      };
      try {
        return await inTraceScope(scope, () => fn(api));
      } catch (err) {
        span.setStatus({ code: SpanStatusCode.ERROR });
        span.setAttribute("enclave.outcome", "error");
        const code = (err as { code?: unknown }).code;
        if (typeof code === "string") span.setAttribute("enclave.error_code", code);
        throw err;
      } finally {
        scope.ended = true;
        span.end();
      }
    },
    shutdown,
  };
}
