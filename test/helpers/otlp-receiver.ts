// A real OTLP/HTTP trace receiver on loopback, for tests: it takes what an exporter POSTs to
// /v1/traces (protobuf, optionally gzip'd), decodes it with the OpenTelemetry project's own protocol
// definitions (otlp-proto/) and keeps every span it got, as an OpenTelemetry Collector would receive
// them. Nothing in it knows the control plane's exporter.
import { createServer, type IncomingMessage, type Server } from "node:http";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import protobuf from "protobufjs";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  /** "" for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, string | number | boolean>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
}

export interface OtlpReceiver {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT / --otlp-endpoint. */
  endpoint: string;
  spans: ReceivedSpan[];
  /** Export requests received (any path), including ones that did not decode. */
  requests: number;
  close(): Promise<void>;
}

const protoDir = join(repoRoot, "test", "helpers", "otlp-proto");

function loadRequestType(): protobuf.Type {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => join(protoDir, target);
  root.loadSync("opentelemetry/proto/collector/trace/v1/trace_service.proto", { keepCase: false });
  return root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest");
}

interface KeyValue {
  key: string;
  value?: { stringValue?: string; intValue?: string; boolValue?: boolean; doubleValue?: number };
}

interface DecodedSpan {
  traceId?: Uint8Array;
  spanId?: Uint8Array;
  parentSpanId?: Uint8Array;
  name?: string;
  kind?: number;
  startTimeUnixNano?: string;
  endTimeUnixNano?: string;
  attributes?: KeyValue[];
  status?: { code?: number };
}

interface DecodedRequest {
  resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { spans?: DecodedSpan[] }[] }[];
}

function attributes(list: KeyValue[] | undefined): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const kv of list ?? []) {
    const v = kv.value ?? {};
    if (v.stringValue !== undefined) out[kv.key] = v.stringValue;
    else if (v.intValue !== undefined) out[kv.key] = Number(v.intValue);
    else if (v.boolValue !== undefined) out[kv.key] = v.boolValue;
    else if (v.doubleValue !== undefined) out[kv.key] = v.doubleValue;
  }
  return out;
}

const hex = (b: Uint8Array | undefined): string => Buffer.from(b ?? []).toString("hex");

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks);
  return req.headers["content-encoding"] === "gzip" ? gunzipSync(raw) : raw;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const type = loadRequestType();
  const received: OtlpReceiver = { endpoint: "", spans: [], requests: 0, close: () => Promise.resolve() };
  const server: Server = createServer((req, res) => {
    received.requests++;
    void body(req).then(
      (bytes) => {
        if (req.method !== "POST" || req.url !== "/v1/traces" || !String(req.headers["content-type"]).startsWith("application/x-protobuf")) {
          res.writeHead(415).end();
          return;
        }
        let decoded: DecodedRequest;
        try {
          decoded = type.toObject(type.decode(bytes), { longs: String, defaults: false }) as DecodedRequest;
        } catch {
          res.writeHead(400).end();
          return;
        }
        for (const rs of decoded.resourceSpans ?? []) {
          const service = String(attributes(rs.resource?.attributes)["service.name"] ?? "");
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              received.spans.push({
                service,
                traceId: hex(s.traceId),
                spanId: hex(s.spanId),
                parentSpanId: hex(s.parentSpanId),
                name: s.name ?? "",
                kind: s.kind ?? 0,
                startNs: BigInt(s.startTimeUnixNano ?? "0"),
                endNs: BigInt(s.endTimeUnixNano ?? "0"),
                attributes: attributes(s.attributes),
                statusCode: s.status?.code ?? 0,
              });
            }
          }
        }
        // An empty ExportTraceServiceResponse: everything accepted.
        res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
      },
      () => res.writeHead(400).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const addr = server.address();
  if (addr === null || typeof addr === "string") throw new Error("the OTLP receiver has no TCP address");
  received.endpoint = `http://127.0.0.1:${addr.port}`;
  received.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return received;
}
