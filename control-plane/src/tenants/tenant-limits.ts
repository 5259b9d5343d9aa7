// What one enclosure of a tenant may ask for: the operator's maxima for the tenant (the token file's
// max* quotas, else the LIMITS defaults) bound memory, processes, CPUs and copy mode's disk, and
// whether a dev container may be built at all. A value the request leaves out takes the enclosure
// default, lowered to the maximum where it is above it.
import { EnclaveError } from "../errors.js";
import type { EnclosureRequest } from "../model/enclosure.js";
import type { QuotaName, Tenant } from "./tenant.js";

/** What a start takes when the request names no value (the control plane's enclosure defaults). */
export interface StartDefaults {
  memoryBytes: number;
  cpus: number;
  pids: number;
  diskBytes: number;
}

/**
 * The request, bounded by the tenant's maxima: a value past one is refused (invalid_arguments naming
 * the maximum); a value left out takes the enclosure default, or the maximum where the default is
 * above it. `buildsAllowed` is set from the tenant's entry. Values that are not numbers at all are
 * left to resolveSettings, which refuses them.
 */
export function withinTenantLimits(tenant: Tenant, req: EnclosureRequest, defaults: StartDefaults): EnclosureRequest {
  const q = tenant.quotas;
  const copy = (req.workspaceMode || "bind") === "copy";
  const bounded = (option: string, given: number | undefined, dflt: number, quota: QuotaName): number | undefined => {
    const max = q[quota];
    // Absent or 0 (the wire's "unset"): the default, within the maximum.
    if (given === undefined || given === 0) return dflt > max ? max : given;
    if (given > max) throw pastMaximum(tenant, option, given, quota);
    return given;
  };
  return {
    ...req,
    memoryBytes: bounded("memory_bytes", req.memoryBytes, defaults.memoryBytes, "maxMemoryBytes"),
    pidsLimit: bounded("pids_limit", req.pidsLimit, defaults.pids, "maxPids"),
    cpus: bounded("cpus", req.cpus, defaults.cpus, "maxCpus"),
    diskLimitBytes: copy ? bounded("disk_limit_bytes", req.diskLimitBytes, defaults.diskBytes, "maxDiskBytes") : req.diskLimitBytes,
    buildsAllowed: q.devcontainerBuilds > 0,
  };
}

/** A value a tenant asked for above its operator's maximum: invalid_arguments naming it and how to raise it. */
export function pastMaximum(tenant: Tenant, option: string, given: number, quota: QuotaName): EnclaveError {
  const max = tenant.quotas[quota];
  return new EnclaveError(
    "invalid_arguments",
    `${option} ${given} is above tenant \`${tenant.name}\`'s maximum of ${max} (${quota}); ask for less, or an operator raises it (\`enclave tokens quota ${tenant.name} ${quota} N\`)`,
  );
}
