// A real control plane on a temp unix socket whose callers are token tenants: `acme` and `globex`
// (plain) and `ops` (an operator), from a real token file the test may edit (setQuota) while it runs.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ControlPlaneClient } from "../../control-plane/src/client/control-plane-client.js";
import { type ControlPlaneConfig, loadConfig } from "../../control-plane/src/config.js";
import { ControlPlane } from "../../control-plane/src/control-plane.js";
import { serveControlPlane, type ServingControlPlane } from "../../control-plane/src/server/serve.js";
import { addToken } from "../../control-plane/src/tenants/token-file.js";

export type TenantName = "acme" | "globex" | "ops";

export interface TenantsFixture {
  cp: ControlPlane;
  tokensFile: string;
  /** A client with that tenant's token. */
  as(tenant: TenantName): ControlPlaneClient;
  close(): Promise<void>;
}

/** before: edits the token file (quotas) before the control plane reads it; configure: the config. */
export async function startTenants(opts: { before?: (tokensFile: string) => void; configure?: (config: ControlPlaneConfig) => void } = {}): Promise<TenantsFixture> {
  const dataDir = mkdtempSync(join(tmpdir(), "enclave-tenants-"));
  const tokensFile = join(dataDir, "tokens.json");
  const tokens: Record<TenantName, string> = {
    acme: addToken(tokensFile, "acme").token,
    globex: addToken(tokensFile, "globex").token,
    ops: addToken(tokensFile, "ops", { operator: true }).token,
  };
  opts.before?.(tokensFile);
  const config = loadConfig({ dataDir, listen: `unix://${join(dataDir, "cp.sock")}`, api: { tokensFile } });
  opts.configure?.(config);
  const cp = await ControlPlane.start(config);
  const server: ServingControlPlane = await serveControlPlane(cp, config.listen, config.api);
  const clients: ControlPlaneClient[] = [];
  return {
    cp,
    tokensFile,
    as(tenant) {
      const c = new ControlPlaneClient(server.address, { token: tokens[tenant] });
      clients.push(c);
      return c;
    },
    async close() {
      for (const c of clients) c.close();
      await server.close();
      for (const c of cp.listConversations()) await cp.deleteConversation(c.id).catch(() => undefined);
      await cp.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
