// What an operator sees of a real `enclave serve`: its Prometheus endpoint scraped over HTTP after
// real tool calls through the gRPC API (a model's calls and a Python cell's bridge call), and its
// standard error read back as JSON lines carrying conversation, run and tenant.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ControlPlaneClient } from "@enclave/client/control-plane-client.js";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";
import { eventually, until } from "../helpers/wait.js";

let child: ChildProcess;
let client: ControlPlaneClient;
let metricsUrl = "";
let dataDir = "";
let stdout = "";
let stderr = "";
const conv = `obs-${process.pid}-${Date.now().toString(36)}`;
const bogusTool = `no-such-tool-${Date.now().toString(36)}`;
let runId = "";

/** The exposition text as sample name with labels → value. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const i = line.lastIndexOf(" ");
    out.set(line.slice(0, i), Number(line.slice(i + 1)));
  }
  return out;
}

async function scrape(): Promise<{ text: string; values: Map<string, number> }> {
  const res = await fetch(metricsUrl);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("text/plain");
  const text = await res.text();
  return { text, values: samples(text) };
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "enclave-obs-"));
  child = spawn(join(repoRoot, "bin", "enclave"), ["serve", "--listen", "127.0.0.1:0", "--console", "off", "--metrics", "127.0.0.1:0", "--data-dir", dataDir], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ENCLAVE_LOG_FORMAT: "", ENCLAVE_LOG_LEVEL: "" },
  });
  child.stdout?.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
  child.stderr?.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
  const banner = await until(
    () =>
      /Metrics: (http:\/\/\S+)/.exec(stdout) ??
      (child.exitCode !== null
        ? (() => {
            throw new Error(`serve exited: ${stderr}`);
          })()
        : undefined),
    "the serve banner",
    60_000,
  );
  metricsUrl = banner[1] as string;
  const api = /listening on (\S+)/.exec(stdout)?.[1] as string;
  client = new ControlPlaneClient(api);
  await client.createConversation(conv);
  runId = (await client.openRun(conv, { approvalPolicy: "never" })).id;
}, 90_000);

afterAll(async () => {
  await client?.deleteConversation(conv).catch(() => undefined);
  client?.close();
  if (child && child.exitCode === null) {
    child.kill("SIGTERM");
    await until(() => child.exitCode !== null || child.signalCode !== null, "serve to stop", 20_000).catch(() => child.kill("SIGKILL"));
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe("metrics endpoint", () => {
  it("counts calls by tool, origin and outcome, times them per tool, and never labels with ids or unknown names", async () => {
    const before = (await scrape()).values;
    expect(before.get('enclave_tool_calls_total{tool="write",origin="model",outcome="ok"}') ?? 0).toBe(0);

    expect((await client.callTool(runId, "write", { path: "notes.txt", content: "hello\n" })).isError).toBe(false);
    expect((await client.callTool(runId, "read", { path: "notes.txt" })).isError).toBe(false);
    const missing = await client.callTool(runId, "write", { content: "no path" });
    expect(missing.errorCode).toBe("invalid_arguments");
    expect((await client.callTool(runId, bogusTool, {})).errorCode).toBe("unknown_tool");
    // A Python cell calls read through the bridge: origin bridge, and the bridge counter.
    const cell = await client.callTool(runId, "eval", {
      description: "a bridge call for the metrics test",
      language: "python",
      code: "print(tool('read', {'path': 'notes.txt'}))",
    });
    expect(cell.isError, JSON.stringify(cell.parts)).toBe(false);

    const { text, values } = await scrape();
    expect(values.get('enclave_tool_calls_total{tool="write",origin="model",outcome="ok"}')).toBe(1);
    expect(values.get('enclave_tool_calls_total{tool="read",origin="model",outcome="ok"}')).toBe(1);
    expect(values.get('enclave_tool_calls_total{tool="write",origin="model",outcome="invalid_arguments"}')).toBe(1);
    expect(values.get('enclave_tool_calls_total{tool="other",origin="model",outcome="unknown_tool"}')).toBe(1);
    expect(values.get('enclave_tool_calls_total{tool="read",origin="bridge",outcome="ok"}')).toBe(1);
    expect(values.get('enclave_tool_calls_total{tool="eval",origin="model",outcome="ok"}')).toBe(1);
    expect(values.get('enclave_bridge_calls_total{outcome="ok"}')).toBe(1);
    // Histograms per tool: write was timed twice (ok and refused), each in a bucket up to +Inf.
    expect(values.get('enclave_tool_call_duration_seconds_count{tool="write"}')).toBe(2);
    expect(values.get('enclave_tool_call_duration_seconds_bucket{le="+Inf",tool="write"}')).toBe(2);
    expect(values.get('enclave_tool_call_duration_seconds_sum{tool="eval"}')).toBeGreaterThan(0);
    // The cell's kernel runs in the host agent: the gauge reads it from the running agent.
    expect(values.get("enclave_kernels")).toBeGreaterThanOrEqual(1);
    expect(values.get("enclave_open_cards")).toBe(0);
    expect(values.get('enclave_enclosures{state="running"}')).toBe(0);
    expect(values.has("enclave_agent_restarts_total")).toBe(false); // no restart yet: a labelled counter shows no sample
    expect(text).toContain("# TYPE enclave_docker_errors_total counter");
    expect(text).toContain("enclave_process_resident_memory_bytes");
    // Bounded labels: no conversation, run, argument or unknown tool name is ever a label value.
    for (const leak of [conv, runId, bogusTool, "notes.txt"]) expect(text).not.toContain(leak);
  }, 120_000);

  it("shows calls in flight while they run", async () => {
    const ws = (await client.getConversation(conv)).workspacePath;
    const waiting = client.callTool(runId, "exec", { command: "for i in $(seq 1 300); do [ -f go ] && exit 0; sleep 0.1; done; exit 1" });
    await eventually(async () => (await scrape()).values.get('enclave_tool_calls_in_flight{tool="exec"}') === 1, "exec in flight", 20_000);
    writeFileSync(join(ws, "go"), "");
    expect((await waiting).isError).toBe(false);
    const { values } = await scrape();
    expect(values.get('enclave_tool_calls_in_flight{tool="exec"}')).toBe(0);
    expect(values.get('enclave_tool_calls_total{tool="exec",origin="model",outcome="ok"}')).toBe(1);
  }, 60_000);

  it("answers only GET /metrics", async () => {
    expect((await fetch(metricsUrl.replace(/\/metrics$/, "/"))).status).toBe(404);
    expect((await fetch(metricsUrl, { method: "POST" })).status).toBe(405);
  });
});

describe("JSON logs", () => {
  it("every line on standard error is a JSON object; a tool call's line carries conversation, run and tenant", async () => {
    await client.callTool(runId, "read", { path: "notes.txt" });
    const lines = await until(
      () => {
        const ls = stderr.split("\n").filter((l) => l.trim() !== "");
        return ls.some((l) => l.includes('"event":"tool_call"') && l.includes(runId)) ? ls : undefined;
      },
      "a tool call's log line",
      20_000,
    );
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const p of parsed) {
      expect(typeof p.level).toBe("number");
      expect(typeof p.time).toBe("string");
      expect(typeof p.msg).toBe("string");
    }
    const call = parsed.find((p) => p.event === "tool_call" && p.tool === "write" && p.outcome === "ok");
    expect(call).toMatchObject({ conversation: conv, run: runId, tenant: "local", origin: "model" });
    expect(typeof call?.durationMs).toBe("number");
    expect(String(call?.argumentsDigest)).toMatch(/^sha256:[0-9a-f]{64}$/);
    // The arguments themselves are never logged, only their digest.
    expect(lines.join("\n")).not.toContain("hello\\n");
    const bridge = parsed.find((p) => p.event === "tool_call" && p.origin === "bridge");
    expect(bridge).toMatchObject({ conversation: conv, run: runId, tenant: "local", tool: "read" });
    const created = parsed.find((p) => p.event === "conversation_created" && p.conversation === conv);
    expect(created).toMatchObject({ tenant: "local" });
    expect(parsed.some((p) => p.msg === "control plane serving")).toBe(true);
  }, 60_000);
});
