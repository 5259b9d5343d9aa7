// A tenant: who a caller is once its bearer token checks out. Each conversation (and so its runs,
// cards, audit events, enclosure, kernels, tool hosts and workers) belongs to exactly one tenant; an
// operator tenant may read and act on every tenant's.
import { IMPLICIT_TENANT } from "../conversations/conversation-store.js";
import type { EgressMaximum } from "../egress/egress-policy.js";
import { LIMITS } from "../limits.js";
import { MIN_CPUS } from "../placement/enclosure-settings.js";

export interface TenantQuotas {
  /** Enclosures running or starting at once across the tenant's conversations. */
  runningEnclosures: number;
  /** Tool calls (CallTool) in flight at once. */
  concurrentCalls: number;
  /** Kernels alive at once across the tenant's conversations. */
  kernels: number;
  /** Host agents (conversations served on the host) running or starting at once. */
  hostAgents: number;
  /** The most one enclosure may ask for: memory, processes, CPUs, copy mode's disk. */
  maxMemoryBytes: number;
  maxPids: number;
  maxCpus: number;
  maxDiskBytes: number;
  /** 1: the tenant's dev containers may be built from a Dockerfile (see devcontainer-build.ts); 0: refused. */
  devcontainerBuilds: number;
  /** The longest idle timeout, and maximum lifetime, a conversation of the tenant may ask for (seconds; see lifecycle/lifecycle-policy.ts). */
  maxIdleSeconds: number;
  maxLifetimeSeconds: number;
}

export type QuotaName = keyof TenantQuotas;

export const QUOTA_NAMES: readonly QuotaName[] = [
  "runningEnclosures",
  "concurrentCalls",
  "kernels",
  "hostAgents",
  "maxMemoryBytes",
  "maxPids",
  "maxCpus",
  "maxDiskBytes",
  "devcontainerBuilds",
  "maxIdleSeconds",
  "maxLifetimeSeconds",
];

/** Whether a value is one the quota takes: CPUs may be fractional, builds are 0 or 1, the rest whole numbers. */
export function validQuotaValue(quota: QuotaName, v: unknown): v is number {
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0) return false;
  if (quota === "maxCpus") return v >= MIN_CPUS;
  if (quota === "devcontainerBuilds") return v === 0 || v === 1;
  return Number.isSafeInteger(v);
}

export interface Tenant {
  name: string;
  /** Sees and touches every tenant's conversations (the console's operators). */
  operator: boolean;
  quotas: TenantQuotas;
  /** The operator's egress maximum: what a conversation of the tenant may allow (undefined: no bound, the implicit tenant only). */
  egressMaximum: EgressMaximum;
}

export const DEFAULT_QUOTAS: TenantQuotas = {
  runningEnclosures: LIMITS.tenantRunningEnclosures,
  concurrentCalls: LIMITS.tenantConcurrentCalls,
  kernels: LIMITS.tenantKernels,
  hostAgents: LIMITS.tenantHostAgents,
  maxMemoryBytes: LIMITS.tenantMaxMemoryBytes,
  maxPids: LIMITS.tenantMaxPids,
  maxCpus: LIMITS.tenantMaxCpus,
  maxDiskBytes: LIMITS.tenantMaxDiskBytes,
  devcontainerBuilds: 0,
  maxIdleSeconds: LIMITS.tenantMaxIdleSeconds,
  maxLifetimeSeconds: LIMITS.tenantMaxLifetimeSeconds,
};

/** What a tenant's entry in the token file does not set: the defaults, with builds on for operators. */
export function defaultQuotas(operator: boolean): TenantQuotas {
  return { ...DEFAULT_QUOTAS, devcontainerBuilds: operator ? 1 : 0 };
}

/**
 * The one tenant of a control plane without tokens (loopback or a unix socket, zero set-up): it owns
 * everything, including records made before tenants existed, and has no quotas.
 */
export const IMPLICIT: Tenant = {
  name: IMPLICIT_TENANT,
  operator: true,
  quotas: {
    runningEnclosures: Infinity,
    concurrentCalls: Infinity,
    kernels: Infinity,
    hostAgents: Infinity,
    maxMemoryBytes: Infinity,
    maxPids: Infinity,
    maxCpus: Infinity,
    maxDiskBytes: Infinity,
    devcontainerBuilds: 1,
    maxIdleSeconds: Infinity,
    maxLifetimeSeconds: Infinity,
  },
  egressMaximum: undefined,
};

const NAME_RE = new RegExp(`^[a-z0-9][a-z0-9_-]{0,${LIMITS.tenantNameMaxChars - 1}}$`);

/**
 * Why a name cannot be a token tenant's, or undefined when it can. The implicit tenant's name is
 * refused: records made before tokens were turned on carry no tenant and so belong to it, and a
 * token tenant of that name would own them.
 */
export function tenantNameProblem(s: string): string | undefined {
  if (!NAME_RE.test(s)) return `must be 1–${LIMITS.tenantNameMaxChars} lower-case letters, digits, '-' or '_'`;
  if (s === IMPLICIT_TENANT)
    return `\`${IMPLICIT_TENANT}\` is reserved: it is the tenant of a control plane without tokens, which owns every record made before tokens were turned on`;
  return undefined;
}

export function isTenantName(s: string): boolean {
  return tenantNameProblem(s) === undefined;
}

/** Whether the tenant may see a record owned by `owner`. */
export function mayAccess(tenant: Tenant, owner: string): boolean {
  return tenant.operator || tenant.name === owner;
}
