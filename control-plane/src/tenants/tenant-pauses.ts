// Tenants an operator paused: their calls are refused with tenant_paused until an operator resumes
// them. Kept in the state database, so a restart does not let a paused tenant's calls in; read from
// memory on every call.
import type Database from "better-sqlite3";
import type { StateDb } from "../state/state-db.js";

export interface TenantPause {
  tenant: string;
  pausedAtMs: number;
  /** The tenant whose token paused it. */
  pausedBy: string;
  reason: string;
}

export class TenantPauses {
  private readonly paused = new Map<string, TenantPause>();
  private readonly db: Database.Database;

  constructor(state: StateDb) {
    this.db = state.db;
    const rows = this.db.prepare("SELECT tenant, paused_at_ms, paused_by, reason FROM paused_tenants").all() as Array<{
      tenant: string;
      paused_at_ms: number;
      paused_by: string;
      reason: string;
    }>;
    for (const r of rows) this.paused.set(r.tenant, { tenant: r.tenant, pausedAtMs: r.paused_at_ms, pausedBy: r.paused_by, reason: r.reason });
  }

  get(tenant: string): TenantPause | undefined {
    return this.paused.get(tenant);
  }

  list(): TenantPause[] {
    return [...this.paused.values()];
  }

  /** Pauses the tenant (an existing pause is kept as it was: the first pause's time and author stand). */
  pause(tenant: string, by: string, reason: string, now = Date.now()): TenantPause {
    const existing = this.paused.get(tenant);
    if (existing) return existing;
    const p: TenantPause = { tenant, pausedAtMs: now, pausedBy: by, reason };
    this.db.prepare("INSERT OR REPLACE INTO paused_tenants (tenant, paused_at_ms, paused_by, reason) VALUES (?, ?, ?, ?)").run(tenant, now, by, reason);
    this.paused.set(tenant, p);
    return p;
  }

  /** Resumes the tenant; the pause it ended, or undefined when it was not paused. */
  resume(tenant: string): TenantPause | undefined {
    const p = this.paused.get(tenant);
    if (!p) return undefined;
    this.db.prepare("DELETE FROM paused_tenants WHERE tenant = ?").run(tenant);
    this.paused.delete(tenant);
    return p;
  }
}
