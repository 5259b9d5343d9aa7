// The refusal a paused tenant's every call gets: a stable code, and what to do.
import { EnclaveError } from "../errors.js";
import type { TenantPause } from "./tenant-pauses.js";

export function tenantPausedError(tenant: string, pause: TenantPause): EnclaveError {
  return new EnclaveError(
    "tenant_paused",
    `tenant \`${tenant}\` is paused by an operator since ${new Date(pause.pausedAtMs).toISOString()}${pause.reason ? ` (${pause.reason})` : ""}: ` +
      `its calls are refused until an operator resumes it (\`enclave tenants resume ${tenant}\`); its workspaces are kept, and its conversations wake on their next call after that`,
  );
}
