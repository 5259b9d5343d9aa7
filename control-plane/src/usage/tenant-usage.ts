// The conversations' usage summed per tenant, for the metrics: a tenant is a label value, a
// conversation never is. Tenant names come from the operator's token file and are checked there
// (lower-case letters, digits, '-', '_'); even so at most MAX_TENANT_LABELS tenants are named, in
// name order, and the rest are summed under OTHER_TENANT, which no tenant can be called.
import type { ConversationUsage } from "../model/usage.js";
import { IMPLICIT_TENANT } from "../tenants/implicit-tenant.js";
import { isTenantName } from "../tenants/tenant.js";

export const MAX_TENANT_LABELS = 200;
export const OTHER_TENANT = "(other)";
export const PLACEMENT_LABELS = ["host", "enclosure"] as const;

export interface TenantUsage {
  tenant: string;
  conversations: Record<(typeof PLACEMENT_LABELS)[number], number>;
  /** CPU seconds (user + system) counted by the cgroups of the placements running now. */
  cpuSeconds: number;
  /** Memory charged to those cgroups now. */
  memoryBytes: number;
  /** The workspaces' last measures. */
  workspaceBytes: number;
}

export interface ConversationFigures {
  tenant: string;
  placement: "host" | "enclosure";
  usage: ConversationUsage;
}

/** The label each tenant is counted under: its name for the first MAX_TENANT_LABELS valid names, else OTHER_TENANT. */
export function tenantLabels(tenants: Iterable<string>, max = MAX_TENANT_LABELS): Map<string, string> {
  const named = [...new Set(tenants)].filter((t) => t === IMPLICIT_TENANT || isTenantName(t)).sort();
  const labels = new Map<string, string>();
  for (const t of new Set(tenants)) labels.set(t, OTHER_TENANT);
  for (const t of named.slice(0, max)) labels.set(t, t);
  return labels;
}

export function sumPerTenant(figures: readonly ConversationFigures[], max = MAX_TENANT_LABELS): TenantUsage[] {
  const labels = tenantLabels(
    figures.map((f) => f.tenant),
    max,
  );
  const sums = new Map<string, TenantUsage>();
  for (const f of figures) {
    const tenant = labels.get(f.tenant) ?? OTHER_TENANT;
    let s = sums.get(tenant);
    if (!s) {
      s = { tenant, conversations: { host: 0, enclosure: 0 }, cpuSeconds: 0, memoryBytes: 0, workspaceBytes: 0 };
      sums.set(tenant, s);
    }
    s.conversations[f.placement]++;
    const c = f.usage.cgroup;
    if (c) {
      s.cpuSeconds += Math.max(0, c.cpuUserSeconds) + Math.max(0, c.cpuSystemSeconds);
      s.memoryBytes += Math.max(0, c.memoryBytes);
    } else if (f.usage.engine) {
      // A remote engine's enclosure: the engine's figures are the only ones.
      s.cpuSeconds += Math.max(0, f.usage.engine.cpuTotalSeconds);
      s.memoryBytes += Math.max(0, f.usage.engine.memoryUsageBytes);
    }
    s.workspaceBytes += Math.max(0, f.usage.workspace?.bytes ?? 0);
  }
  return [...sums.values()];
}
