// OpenTelemetry traces of a real `enclave serve` on host placement, received by a real OTLP/HTTP
// receiver on loopback (test/helpers/otlp-receiver.ts decodes the wire bytes with the OTLP protocol's
// own definitions): a CallTool for exec, eval and an lsp hover, each with the caller's traceparent,
// comes back as one trace: the API span (child of the caller's), the agent call span under it, and
// the span the agent made (process run, kernel execute, language-server request) under that.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { credentials, Metadata } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ControlPlaneClient as RawControlPlaneClient, type ToolEvent, type ToolResult } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { type ControlPlaneProcess, startControlPlaneProcess, stopControlPlaneProcess } from "../helpers/control-plane-process.js";
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from "../helpers/otlp-receiver.js";
import { hostPython } from "../helpers/host-python.js";
import { ensureHostServers } from "../helpers/lsp-fixture.js";
import { until } from "../helpers/wait.js";

let receiver: OtlpReceiver;
let cp: ControlPlaneProcess;
let raw: RawControlPlaneClient;
let dataDir = "";
let runId = "";
let conversationId = "";
const SECRET = `s3cret-${randomBytes(6).toString("hex")}`;

function callTool(tool: string, args: unknown, traceparent?: string, run = runId): Promise<ToolResult> {
  const md = new Metadata();
  if (traceparent !== undefined) md.set("traceparent", traceparent);
  return new Promise((resolve, reject) => {
    let result: ToolResult | undefined;
    const s = raw.callTool({ runId: run, tool, argumentsJson: JSON.stringify(args) }, md);
    s.on("data", (e: ToolEvent) => {
      if (e.event?.$case === "result") result = e.event.value;
    });
    s.on("error", reject);
    s.on("end", () => (result ? resolve(result) : reject(new Error(`${tool}: the stream ended without a result`))));
  });
}

function caller(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = randomBytes(16).toString("hex");
  const spanId = randomBytes(8).toString("hex");
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/** The trace's spans once `want` is among them (exports are batched: they come within seconds). */
async function traceOf(traceId: string, want: (spans: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]> {
  return until(
    () => {
      const spans = receiver.spans.filter((s) => s.traceId === traceId);
      return want(spans) ? spans : undefined;
    },
    `the spans of trace ${traceId}`,
    20_000,
  );
}

/** API span → agent call span → agent span: checks the chain and returns it. */
function chain(spans: ReceivedSpan[], parentSpanId: string, tool: string, agentCall: string, agentSpan: string, ids = { runId, conversationId }) {
  const api = spans.find((s) => s.kind === 2 && s.attributes["enclave.tool"] === tool);
  expect(api, JSON.stringify(spans.map((s) => s.name))).toBeDefined();
  expect(api?.parentSpanId).toBe(parentSpanId);
  expect(api?.name).toBe("enclave.control.v1.ControlPlane/CallTool");
  expect(api?.service).toBe("enclave-tracing-test");
  expect(api?.attributes).toMatchObject({ "enclave.run_id": ids.runId, "enclave.conversation_id": ids.conversationId, "enclave.tenant": expect.any(String) });
  const call = spans.find((s) => s.parentSpanId === api?.spanId && s.name === agentCall);
  expect(call, JSON.stringify(spans.map((s) => [s.name, s.parentSpanId]))).toBeDefined();
  expect(call?.kind).toBe(3);
  const inside = spans.find((s) => s.parentSpanId === call?.spanId && s.name === agentSpan);
  expect(inside, JSON.stringify(spans.map((s) => [s.name, s.parentSpanId]))).toBeDefined();
  expect(inside?.attributes["enclave.agent_reported"]).toBe(true);
  // The agent's span lies within its call's.
  expect(inside!.startNs >= call!.startNs && inside!.endNs <= call!.endNs).toBe(true);
  // Nothing the caller sent as arguments, nor anything the tool read or printed, is in any span.
  expect(JSON.stringify(spans.map((s) => s.attributes))).not.toContain(SECRET);
  return { api: api!, call: call!, inside: inside! };
}

beforeAll(async () => {
  // pyright on PATH for the control plane's host agents.
  ensureHostServers();
  receiver = await startOtlpReceiver();
  dataDir = mkdtempSync(join(tmpdir(), "enclave-trace-"));
  cp = await startControlPlaneProcess(dataDir, {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_SERVICE_NAME: "enclave-tracing-test",
    ENCLAVE_PYTHON: hostPython(),
  });
  raw = new RawControlPlaneClient(cp.address, credentials.createInsecure());
  const conv = await cp.client.createConversation("traced");
  conversationId = conv.id;
  expect(conv.placement).toBe("host");
  writeFileSync(join(conv.workspacePath, "pyproject.toml"), '[project]\nname = "demo"\nversion = "0.1.0"\n');
  writeFileSync(join(conv.workspacePath, "app.py"), `def greet(name: str) -> str:\n    """Says hello."""\n    return "hi " + name\n\ngreet("x")\n`);
  runId = (await cp.client.openRun("traced", { approvalPolicy: "never", resources: ["workspace", "shell", "lsp", "kernel"] })).id;
}, 120_000);

afterAll(async () => {
  raw?.close();
  if (cp) await stopControlPlaneProcess(cp, "SIGTERM").catch(() => undefined);
  await receiver?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("traces over OTLP", () => {
  it("exec: CallTool → agent Process/Exec → process.run, under the caller's span", async () => {
    const c = caller();
    const r = await callTool("exec", { command: `echo ${SECRET}; exit 3` }, c.traceparent);
    expect(r.errorCode).toBe("");
    const spans = await traceOf(c.traceId, (s) => s.some((x) => x.name === "process.run") && s.some((x) => x.kind === 2));
    const { api, inside } = chain(spans, c.spanId, "exec", "agent Process/Exec", "process.run");
    expect(api.attributes["enclave.outcome"]).toBe("ok");
    expect(inside.attributes["process.exit_code"]).toBe(3);
    expect(inside.statusCode).toBe(2);
  });

  it("eval: CallTool → agent Kernels/Eval → kernel.execute", async () => {
    const c = caller();
    const r = await callTool("eval", { language: "python", code: `print("${SECRET}")`, description: "prints one word to check the trace" }, c.traceparent);
    expect(r.isError, JSON.stringify(r.parts)).toBe(false);
    const spans = await traceOf(c.traceId, (s) => s.some((x) => x.name === "kernel.execute") && s.some((x) => x.kind === 2));
    const { inside } = chain(spans, c.spanId, "eval", "agent Kernels/Eval", "kernel.execute");
    expect(inside.attributes).toMatchObject({ "kernel.language": "python", "kernel.status": "ok" });
  }, 120_000);

  it("lsp hover: CallTool → agent Lsp/Query (over the call mux) → lsp.request textDocument/hover", async () => {
    const c = caller();
    const r = await callTool("lsp", { action: "hover", file: "app.py", line: 5, symbol: "greet" }, c.traceparent);
    expect(r.isError, JSON.stringify(r.parts)).toBe(false);
    const hover = (s: ReceivedSpan[]): boolean => s.some((x) => x.name === "lsp.request" && x.attributes["lsp.method"] === "textDocument/hover");
    const spans = await traceOf(c.traceId, (s) => hover(s) && s.some((x) => x.kind === 2));
    const { call } = chain(spans, c.spanId, "lsp", "agent Lsp/Query", "lsp.request");
    const request = spans.find((s) => s.parentSpanId === call.spanId && s.attributes["lsp.method"] === "textDocument/hover");
    expect(request?.attributes["lsp.server"]).toBe("pyright");
  }, 120_000);

  it("a malformed traceparent is ignored: the call succeeds and its span starts a trace of its own", async () => {
    const bad = `00-${"z".repeat(32)}-${"1".repeat(16)}-01`;
    const before = receiver.spans.length;
    const r = await callTool("exec", { command: "true" }, bad);
    expect(r.errorCode).toBe("");
    const api = await until(
      () => receiver.spans.slice(before).find((s) => s.kind === 2 && s.attributes["enclave.tool"] === "exec"),
      "the API span of the call with a bad traceparent",
      20_000,
    );
    expect(api.parentSpanId).toBe("");
  });

  it("a call without a traceparent is traced as a root", async () => {
    const before = receiver.spans.length;
    const r = await callTool("exec", { command: "true" });
    expect(r.errorCode).toBe("");
    const api = await until(
      () => receiver.spans.slice(before).find((s) => s.kind === 2 && s.attributes["enclave.tool"] === "exec"),
      "the API span of an untraced caller's call",
      20_000,
    );
    expect(api.parentSpanId).toBe("");
    await until(() => receiver.spans.find((s) => s.traceId === api.traceId && s.name === "process.run"), "its process.run span", 20_000);
  });
});

describe("in an enclosure", () => {
  it("the agent's spans come back over the agent channel: one trace, exported by the control plane", async () => {
    const conv = await cp.client.createConversation("traced-enc");
    expect((await cp.client.startEnclosure(conv.id, { memoryBytes: 1024 ** 3 })).placement).toBe("enclosure");
    const run = (await cp.client.openRun(conv.id, { approvalPolicy: "never", resources: ["workspace", "shell"] })).id;
    const c = caller();
    const r = await callTool("exec", { command: `echo ${SECRET}` }, c.traceparent, run);
    expect(r.errorCode).toBe("");
    const spans = await traceOf(c.traceId, (s) => s.some((x) => x.name === "process.run") && s.some((x) => x.kind === 2));
    const { inside } = chain(spans, c.spanId, "exec", "agent Process/Exec", "process.run", { runId: run, conversationId: conv.id });
    expect(inside.attributes["process.exit_code"]).toBe(0);
    await cp.client.deleteConversation(conv.id).catch(() => undefined);
  }, 300_000);
});

describe("tracing off", () => {
  it("sends nothing, whatever the caller asks", async () => {
    const off = await startOtlpReceiver();
    const dir = mkdtempSync(join(tmpdir(), "enclave-trace-off-"));
    // Variables the SDK itself would read: with tracing off no SDK runs to read them.
    const plain = await startControlPlaneProcess(dir, {
      OTEL_EXPORTER_OTLP_ENDPOINT: "",
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${off.endpoint}/v1/traces`,
    });
    try {
      const conv = await plain.client.createConversation("untraced");
      const run = (await plain.client.openRun(conv.id, { approvalPolicy: "never" })).id;
      const rawOff = new RawControlPlaneClient(plain.address, credentials.createInsecure());
      const md = new Metadata();
      md.set("traceparent", caller().traceparent);
      await new Promise<void>((resolve, reject) => {
        const s = rawOff.callTool({ runId: run, tool: "exec", argumentsJson: JSON.stringify({ command: "true" }) }, md);
        s.on("data", () => undefined);
        s.on("error", reject);
        s.on("end", () => resolve());
      });
      rawOff.close();
      // Longer than the batch delay of a running exporter.
      await new Promise((r) => setTimeout(r, 3_000));
      expect(off.requests).toBe(0);
      expect(plain.stderr()).not.toContain("OTLP");
    } finally {
      await stopControlPlaneProcess(plain, "SIGTERM").catch(() => undefined);
      expect(off.requests).toBe(0);
      await off.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
