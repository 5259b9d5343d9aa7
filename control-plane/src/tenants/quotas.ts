// Per-tenant quotas, checked where the API takes a call: tool calls in flight, enclosures and host
// agents running or starting, kernels alive. Past one the call fails with quota_exceeded (RESOURCE_EXHAUSTED) and a
// message naming the quota, its limit and what to do. Slots being taken (a call, an enclosure start)
// are counted from the moment they are granted, so two calls at once cannot both take the last one.
import { EnclaveError } from "../errors.js";
import type { QuotaName, Tenant } from "./tenant.js";

/** The quotas that count things in use (the others are maxima of one request, tenant-limits.ts). */
type CountedQuota = Extract<QuotaName, "runningEnclosures" | "concurrentCalls" | "kernels" | "hostAgents">;

const WHAT: Record<CountedQuota, string> = {
  runningEnclosures: "enclosures running or starting",
  concurrentCalls: "tool calls in flight",
  kernels: "kernels alive",
  hostAgents: "host agents running or starting",
};

const REMEDY: Record<CountedQuota, string> = {
  runningEnclosures: "stop one of its enclosures first",
  concurrentCalls: "wait for a call to finish",
  kernels: "reset or let a kernel go first (deleting a conversation stops its kernels)",
  hostAgents: "delete a conversation served on the host first",
};

export function quotaExceeded(tenant: Tenant, quota: CountedQuota, inUse: number): EnclaveError {
  const limit = tenant.quotas[quota];
  return new EnclaveError(
    "quota_exceeded",
    `tenant \`${tenant.name}\` is at its ${quota} quota of ${limit} (${inUse} ${WHAT[quota]}); ${REMEDY[quota]}, or raise it (\`enclave tokens quota ${tenant.name} ${quota} N\`)`,
  );
}

export class TenantQuotas {
  private readonly calls = new Map<string, number>();
  private readonly starting = new Map<string, number>();
  private readonly hostStarting = new Map<string, number>();

  private static bump(map: Map<string, number>, key: string, by: number): void {
    const n = (map.get(key) ?? 0) + by;
    if (n <= 0) map.delete(key);
    else map.set(key, n);
  }

  /** Takes a call slot; the returned function gives it back (once). */
  enterCall(tenant: Tenant): () => void {
    const inUse = this.calls.get(tenant.name) ?? 0;
    if (inUse >= tenant.quotas.concurrentCalls) throw quotaExceeded(tenant, "concurrentCalls", inUse);
    TenantQuotas.bump(this.calls, tenant.name, 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      TenantQuotas.bump(this.calls, tenant.name, -1);
    };
  }

  /** Takes an enclosure slot while a start runs; `running` counts the tenant's other live enclosures. */
  enterEnclosureStart(tenant: Tenant, running: number): () => void {
    return this.enterStart(this.starting, "runningEnclosures", tenant, running);
  }

  /** Takes a host-agent slot while a call that may start one runs; `running` counts the tenant's other live host agents. */
  enterHostAgentStart(tenant: Tenant, running: number): () => void {
    return this.enterStart(this.hostStarting, "hostAgents", tenant, running);
  }

  private enterStart(starting: Map<string, number>, quota: CountedQuota, tenant: Tenant, running: number): () => void {
    const inUse = running + (starting.get(tenant.name) ?? 0);
    if (inUse >= tenant.quotas[quota]) throw quotaExceeded(tenant, quota, inUse);
    TenantQuotas.bump(starting, tenant.name, 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      TenantQuotas.bump(starting, tenant.name, -1);
    };
  }

  /** Refuses a call that would start a kernel when the tenant's live kernels are at the quota. */
  checkKernels(tenant: Tenant, alive: number): void {
    if (alive >= tenant.quotas.kernels) throw quotaExceeded(tenant, "kernels", alive);
  }

  /** Kernels being started (conversation + language → calls sharing it), per tenant. */
  private readonly kernelStarts = new Map<string, Map<string, number>>();
  /** Starts that ended lately, with the epoch they ended at: a live count read before may miss their kernel. */
  private readonly kernelEnds = new Map<string, Array<{ epoch: number; kernel: string }>>();
  private epoch = 0;

  /** Read before listing the live kernels that reserveKernel is then given. */
  kernelEpoch(): number {
    return this.epoch;
  }

  /**
   * Holds a kernel slot for an eval that may start `kernel` (a conversation and language) while it
   * runs. `alive` are the tenant's live kernels (same keys), listed after kernelEpoch returned
   * `since`. Checked and taken in one synchronous step, so two evals at once cannot both take the
   * last slot. A kernel alive or being started by another call takes no slot; one whose start ended
   * after `since` and is not in `alive` counts as alive (the listing may have missed it).
   * Returns the release (once).
   */
  reserveKernel(tenant: Tenant, kernel: string, alive: ReadonlySet<string>, since: number): () => void {
    if (alive.has(kernel)) return () => undefined;
    const starts = this.kernelStarts.get(tenant.name) ?? new Map<string, number>();
    if (!starts.has(kernel)) {
      const unseen = new Set([...starts.keys(), ...(this.kernelEnds.get(tenant.name) ?? []).filter((e) => e.epoch > since).map((e) => e.kernel)]);
      for (const k of alive) unseen.delete(k);
      unseen.delete(kernel);
      const inUse = alive.size + unseen.size;
      if (inUse >= tenant.quotas.kernels) throw quotaExceeded(tenant, "kernels", inUse);
    }
    starts.set(kernel, (starts.get(kernel) ?? 0) + 1);
    this.kernelStarts.set(tenant.name, starts);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const n = (starts.get(kernel) ?? 1) - 1;
      if (n > 0) starts.set(kernel, n);
      else starts.delete(kernel);
      if (!starts.size && this.kernelStarts.get(tenant.name) === starts) this.kernelStarts.delete(tenant.name);
      this.epoch++;
      const ends = this.kernelEnds.get(tenant.name) ?? [];
      ends.push({ epoch: this.epoch, kernel });
      // Only listings still in flight need these; a listing takes one round trip per conversation.
      this.kernelEnds.set(tenant.name, ends.slice(-64));
    };
  }
}
