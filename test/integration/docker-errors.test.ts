// The Docker error counter moves on a real engine's failed request, with bounded labels.
import { describe, expect, it } from "vitest";
import { connectDocker } from "@enclave/control-plane/placement/docker-connection.js";
import { countDockerErrors } from "@enclave/control-plane/observability/docker-errors.js";
import { EnclaveMetrics } from "@enclave/control-plane/observability/metrics.js";

describe("Docker errors metric", () => {
  it("counts a real engine's failed request by resource and status", async () => {
    const docker = await connectDocker();
    const m = new EnclaveMetrics({
      isEnclaveTool: () => false,
      enclosureStates: () => [],
      lifecycleStates: () => [],
      openCards: () => 0,
      agentResources: () => Promise.resolve({ kernels: 0, languageServers: 0 }),
      tenantUsage: () => Promise.resolve([]),
    });
    countDockerErrors(docker, (r, s) => m.dockerError(r, s));
    await expect(docker.getContainer(`enclave-no-such-container-${process.pid}`).inspect()).rejects.toMatchObject({ statusCode: 404 });
    await docker.ping();
    const text = (await m.exposition()).body;
    expect(text).toContain('enclave_docker_errors_total{resource="containers",status="404"} 1');
    expect(text).not.toContain("no-such-container");
  });
});
