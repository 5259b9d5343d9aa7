// The metrics' labels stay bounded whatever the audit log records.
import { describe, expect, it } from "vitest";
import { AuditEvent } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { resourceOf } from "./docker-errors.js";
import { EnclaveMetrics, outcomeLabel } from "./metrics.js";

function metrics(): EnclaveMetrics {
  return new EnclaveMetrics({
    isEnclaveTool: (n) => n === "read",
    enclosureStates: () => ["running", "dead", "running", "weird"],
    lifecycleStates: () => ["active", "sleeping", "active"],
    openCards: () => 2,
    agentResources: () => Promise.resolve({ kernels: 3, languageServers: 1 }),
    tenantUsage: () => Promise.resolve([]),
  });
}

describe("metric labels", () => {
  it("maps outcomes to ok or an Enclave error code, anything else to other_error", () => {
    expect(outcomeLabel("ok")).toBe("ok");
    expect(outcomeLabel("error:enclosure_dead")).toBe("enclosure_dead");
    expect(outcomeLabel("refused:unknown_tool")).toBe("unknown_tool");
    expect(outcomeLabel("error:a-harness-made-this-up-12345")).toBe("other_error");
  });

  it("never turns a caller's names into label values; restarts and gauges are counted", async () => {
    const m = metrics();
    const call = (tool: string, origin: string, outcome: string): void =>
      m.observe(AuditEvent.fromPartial({ kind: "tool_call", tool, origin, outcome, durationMs: 12, conversationId: "conv-secret", runId: "run-secret" }));
    call("read", "model", "ok");
    call("harness-tool-xyz", "bridge", "error:made-up-code");
    call("read", "martian", "ok");
    m.observe(AuditEvent.fromPartial({ kind: "agent_restarted", conversationId: "conv-secret", placement: "enclosure 0123456789ab" }));
    const text = (await m.exposition()).body;
    expect(text).toContain('enclave_tool_calls_total{tool="read",origin="model",outcome="ok"} 1');
    expect(text).toContain('enclave_tool_calls_total{tool="other",origin="bridge",outcome="other_error"} 1');
    expect(text).toContain('enclave_tool_calls_total{tool="read",origin="other",outcome="ok"} 1');
    expect(text).toContain('enclave_bridge_calls_total{outcome="other_error"} 1');
    expect(text).toContain('enclave_agent_restarts_total{placement="enclosure"} 1');
    expect(text).toContain('enclave_enclosures{state="running"} 2');
    expect(text).toContain('enclave_enclosures{state="dead"} 1');
    expect(text).toContain('enclave_conversations{state="active"} 2');
    expect(text).toContain('enclave_conversations{state="sleeping"} 1');
    expect(text).not.toContain("weird");
    expect(text).toContain("enclave_open_cards 2");
    expect(text).toContain("enclave_kernels 3");
    expect(text).toContain("enclave_language_servers 1");
    for (const leak of ["conv-secret", "run-secret", "harness-tool-xyz", "made-up-code", "martian", "0123456789ab"]) expect(text).not.toContain(leak);
  });

  it("reads the resource of an engine request path, versioned or not", () => {
    expect(resourceOf("/v1.41/containers/abc/json?")).toBe("containers");
    expect(resourceOf("/exec/abc/start")).toBe("exec");
    expect(resourceOf("/containers-of-someone")).toBe("other");
  });
});
