// Turning tracing on is the operator's (flag over environment), a bad endpoint stops the start, and an
// API call's span takes a caller's traceparent as its parent only when it is exactly well formed.
import { afterEach, describe, expect, it } from "vitest";
import { Metadata } from "@grpc/grpc-js";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { loadConfig } from "../config.js";
import { startTracing, TRACING_OFF, tracesUrl, tracingWith } from "./tracing.js";

const saved = { endpoint: process.env.OTEL_EXPORTER_OTLP_ENDPOINT, name: process.env.OTEL_SERVICE_NAME };
afterEach(() => {
  for (const [k, v] of [
    ["OTEL_EXPORTER_OTLP_ENDPOINT", saved.endpoint],
    ["OTEL_SERVICE_NAME", saved.name],
  ] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

const dataDir = "/nonexistent/enclave-tracing-config";

describe("tracing configuration", () => {
  it("is off by default, and startTracing then loads nothing", async () => {
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    const config = loadConfig({ dataDir }).tracing;
    expect(config).toEqual({ otlpEndpoint: "", serviceName: "enclave-control-plane" });
    expect(await startTracing(config)).toBe(TRACING_OFF);
  });

  it("takes the flag over the environment, and the service name from OTEL_SERVICE_NAME", () => {
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = "http://127.0.0.1:4318";
    process.env.OTEL_SERVICE_NAME = "cp-east";
    expect(loadConfig({ dataDir }).tracing).toEqual({ otlpEndpoint: "http://127.0.0.1:4318", serviceName: "cp-east" });
    expect(loadConfig({ dataDir, otlpEndpoint: "https://collector:4318/" }).tracing.otlpEndpoint).toBe("https://collector:4318/");
  });

  it("posts to the endpoint's /v1/traces and refuses what is not an http(s) URL at start", () => {
    expect(tracesUrl("https://collector:4318/")).toBe("https://collector:4318/v1/traces");
    expect(() => loadConfig({ dataDir, otlpEndpoint: "collector:4318" })).toThrow(/OTLP endpoint/);
    expect(() => loadConfig({ dataDir, otlpEndpoint: "file:///tmp/x" })).toThrow(/OTLP endpoint/);
  });
});

describe("an API call's span", () => {
  const exporter = new InMemorySpanExporter();
  const tracing = tracingWith(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).getTracer("t"), () => Promise.resolve());
  const call = async (...traceparents: string[]) => {
    exporter.reset();
    const md = new Metadata();
    for (const t of traceparents) md.add("traceparent", t);
    await tracing.apiCall("/enclave.control.v1.ControlPlane/CallTool", md, { "enclave.tool": "read" }, (span) => {
      span.failed("not_found");
      return Promise.resolve();
    });
    const [s] = exporter.getFinishedSpans();
    return s!;
  };
  const good = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

  it("is a child of the caller's span", async () => {
    const s = await call(good);
    expect(s.spanContext().traceId).toBe("0af7651916cd43dd8448eb211c80319c");
    expect(s.parentSpanContext?.spanId).toBe("b7ad6b7169203331");
    expect(s.name).toBe("enclave.control.v1.ControlPlane/CallTool");
    expect(s.attributes).toMatchObject({ "enclave.tool": "read", "enclave.error_code": "not_found" });
  });

  it("says how a call that threw ended, by its code", async () => {
    exporter.reset();
    const failing = tracing.apiCall("/enclave.control.v1.ControlPlane/CallTool", new Metadata(), {}, () =>
      Promise.reject(Object.assign(new Error("no such run"), { code: "not_found" })),
    );
    await expect(failing).rejects.toMatchObject({ code: "not_found" });
    const [s] = exporter.getFinishedSpans();
    expect(s?.attributes).toMatchObject({ "enclave.outcome": "error", "enclave.error_code": "not_found" });
    expect(s?.status.code).toBe(2);
  });

  it.each([[["00-0AF7651916CD43DD8448EB211C80319C-B7AD6B7169203331-01"]], [[`${good}x`]], [[good, good]]])("starts a trace of its own for %j", async (tps) => {
    const s = await call(...tps);
    expect(s.parentSpanContext).toBeUndefined();
    expect(s.spanContext().traceId).not.toBe("0af7651916cd43dd8448eb211c80319c");
  });
});
