// A tenant: who a caller is once its bearer token checks out. Each conversation (and so its runs,
// cards, audit events, enclosure, kernels, tool hosts and workers) belongs to exactly one tenant; an
// operator tenant may read and act on every tenant's.
import { IMPLICIT_TENANT } from "../conversations/conversation-store.js";
import { LIMITS } from "../limits.js";

export interface TenantQuotas {
  /** Enclosures running or starting at once across the tenant's conversations. */
  runningEnclosures: number;
  /** Tool calls (CallTool) in flight at once. */
  concurrentCalls: number;
  /** Kernels alive at once across the tenant's conversations. */
  kernels: number;
}

export type QuotaName = keyof TenantQuotas;

export const QUOTA_NAMES: readonly QuotaName[] = ["runningEnclosures", "concurrentCalls", "kernels"];

export interface Tenant {
  name: string;
  /** Sees and touches every tenant's conversations (the console's operators). */
  operator: boolean;
  quotas: TenantQuotas;
}

export const DEFAULT_QUOTAS: TenantQuotas = {
  runningEnclosures: LIMITS.tenantRunningEnclosures,
  concurrentCalls: LIMITS.tenantConcurrentCalls,
  kernels: LIMITS.tenantKernels,
};

/**
 * The one tenant of a control plane without tokens (loopback or a unix socket, zero set-up): it owns
 * everything, including records made before tenants existed, and has no quotas.
 */
export const IMPLICIT: Tenant = {
  name: IMPLICIT_TENANT,
  operator: true,
  quotas: { runningEnclosures: Infinity, concurrentCalls: Infinity, kernels: Infinity },
};

const NAME_RE = new RegExp(`^[a-z0-9][a-z0-9_-]{0,${LIMITS.tenantNameMaxChars - 1}}$`);

export function isTenantName(s: string): boolean {
  return NAME_RE.test(s);
}

/** Whether the tenant may see a record owned by `owner`. */
export function mayAccess(tenant: Tenant, owner: string): boolean {
  return tenant.operator || tenant.name === owner;
}
