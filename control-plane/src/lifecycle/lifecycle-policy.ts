// The idle policy's values: a conversation's own idle timeout and maximum lifetime, bounded by its
// tenant's maxima (the token file's maxIdleSeconds and maxLifetimeSeconds), else the server's
// defaults (config.lifecycle); and how a placement is put to sleep.
import { EnclaveError } from "../errors.js";
import { pastMaximum } from "../tenants/tenant-limits.js";
import type { LifecycleConfig } from "../config.js";
import type { ConversationRecord, EnclosureRecord, SleepMechanism } from "../model/conversation.js";
import type { Tenant } from "../tenants/tenant.js";

/** What a conversation asks for, in seconds; 0 or absent: the server's default. */
export interface LifecycleRequest {
  idleTimeoutSeconds?: number;
  maxLifetimeSeconds?: number;
}

/** The values in force for a conversation (0: never). */
export interface EffectiveLifecycle {
  idleTimeoutSeconds: number;
  maxLifetimeSeconds: number;
}

export function effectiveLifecycle(conv: ConversationRecord, defaults: LifecycleConfig): EffectiveLifecycle {
  return {
    idleTimeoutSeconds: conv.lifecycle?.idleTimeoutSeconds || defaults.idleTimeoutSeconds,
    maxLifetimeSeconds: conv.lifecycle?.maxLifetimeSeconds || defaults.maxLifetimeSeconds,
  };
}

/**
 * The request, checked against the tenant's maxima: a value that is not a whole number of seconds,
 * or past the maximum, is refused (invalid_arguments naming the maximum and how to raise it). 0 keeps
 * the server's default, which an operator sets and so is not bounded by a tenant's maximum.
 */
export function withinLifecycleMaxima(tenant: Tenant, req: LifecycleRequest): LifecycleRequest {
  const q = tenant.quotas;
  const check = (option: string, given: number | undefined, quota: "maxIdleSeconds" | "maxLifetimeSeconds"): number | undefined => {
    if (given === undefined || given === 0) return undefined;
    if (!Number.isSafeInteger(given) || given < 0)
      throw new EnclaveError("invalid_arguments", `${option} ${given} is not a whole number of seconds (0 for the server's default)`);
    if (given > q[quota]) throw pastMaximum(tenant, option, given, quota);
    return given;
  };
  return {
    idleTimeoutSeconds: check("idle_timeout_seconds", req.idleTimeoutSeconds, "maxIdleSeconds"),
    maxLifetimeSeconds: check("max_lifetime_seconds", req.maxLifetimeSeconds, "maxLifetimeSeconds"),
  };
}

/**
 * How an enclosure is put to sleep: under runsc a checkpoint keeps its memory (a pause); elsewhere it
 * is stopped (its container removed, its options kept, its memory lost: CRIU fails under runc here).
 * A checkpoint the engine cannot take falls back to a stop, said in the sleep's detail.
 */
export function sleepMechanism(enclosure: EnclosureRecord): SleepMechanism {
  return enclosure.runtime === "runsc" ? "checkpoint" : "stop";
}
