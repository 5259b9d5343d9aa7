// What one enclosure of a tenant may ask for: the operator's maxima for the tenant (the token file's
// max* quotas, else the LIMITS defaults) bound memory, processes, CPUs and copy mode's disk, and
// whether a dev container may be built at all. Checked on the values the start would use, the
// enclosure defaults filling what the request leaves out, so a default above a maximum is refused too.
import { EnclaveError } from "../errors.js";
import type { EnclosureRequest } from "../placement/enclosure-settings.js";
import type { QuotaName, Tenant } from "./tenant.js";

/** What a start takes when the request names no value (the control plane's enclosure defaults). */
export interface StartDefaults {
  memoryBytes: number;
  cpus: number;
  pids: number;
  diskBytes: number;
}

/** The value a start would use: the request's unless absent or 0 (the wire's "unset"). */
const asked = (given: number | undefined, dflt: number): number => (given === undefined || given === 0 ? dflt : given);

/**
 * The request, bounded by the tenant's maxima (invalid_arguments naming the maximum past one), with
 * `buildsAllowed` set from the tenant's entry. Values that are not numbers at all are left to
 * resolveSettings, which refuses them.
 */
export function withinTenantLimits(tenant: Tenant, req: EnclosureRequest, defaults: StartDefaults): EnclosureRequest {
  const q = tenant.quotas;
  const copy = (req.workspaceMode || "bind") === "copy";
  const checks: Array<[string, number, QuotaName]> = [
    ["memory_bytes", asked(req.memoryBytes, defaults.memoryBytes), "maxMemoryBytes"],
    ["pids_limit", asked(req.pidsLimit, defaults.pids), "maxPids"],
    ["cpus", asked(req.cpus, defaults.cpus), "maxCpus"],
    ...(copy ? [["disk_limit_bytes", asked(req.diskLimitBytes, defaults.diskBytes), "maxDiskBytes"] as [string, number, QuotaName]] : []),
  ];
  for (const [option, value, quota] of checks) {
    if (value > q[quota]) {
      throw new EnclaveError(
        "invalid_arguments",
        `${option} ${value} is above tenant \`${tenant.name}\`'s maximum of ${q[quota]} (${quota}); ask for less, or an operator raises it (\`enclave tokens quota ${tenant.name} ${quota} N\`)`,
      );
    }
  }
  return { ...req, buildsAllowed: q.devcontainerBuilds > 0 };
}
