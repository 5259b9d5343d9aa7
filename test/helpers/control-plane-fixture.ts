// A real control plane (with real host agents) served on a temp unix socket, and a client for it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ControlPlaneClient } from "@enclave/client/control-plane-client.js";
import { type ControlPlaneConfig, loadConfig } from "@enclave/control-plane/config.js";
import { ControlPlane } from "@enclave/control-plane/control-plane.js";
import { serveControlPlane, type ServingControlPlane } from "@enclave/control-plane/server/serve.js";

export interface Fixture {
  cp: ControlPlane;
  client: ControlPlaneClient;
  dataDir: string;
  close(): Promise<void>;
}

/** configure: adjusts the loaded configuration before the control plane starts. */
export async function startFixture(configure?: (config: ControlPlaneConfig) => void): Promise<Fixture> {
  const dataDir = mkdtempSync(join(tmpdir(), "enclave-test-"));
  const config = loadConfig({ dataDir, listen: `unix://${join(dataDir, "cp.sock")}` });
  configure?.(config);
  const cp = await ControlPlane.start(config);
  const server: ServingControlPlane = await serveControlPlane(cp, config.listen);
  const client = new ControlPlaneClient(server.address);
  return {
    cp,
    client,
    dataDir,
    async close() {
      client.close();
      await server.close();
      for (const c of cp.listConversations()) await cp.deleteConversation(c.id).catch(() => undefined);
      await cp.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
