// A conversation's record and its enclosure's, as the state database keeps them (JSON, whole).
import type { EnclosureRequest, EnclosureRuntime } from "./enclosure.js";
import type { EgressDestination } from "./egress.js";

export interface EnclosureLimits {
  memoryBytes: number;
  cpus: number;
  pids: number;
  /** Copy mode's workspace volume size; 0 in bind mode. Missing in records made before it existed. */
  diskBytes?: number;
}

/** Copy mode's size-limited workspace volume (see placement/workspace-disk.ts); on a remote engine a
 * plain volume with no limit: image and loopDevice empty, limitBytes 0 (placement/remote-workspace.ts). */
export interface WorkspaceDiskRecord {
  volume: string;
  image: string;
  loopDevice: string;
  limitBytes: number;
}

export interface EnclosureRecord {
  containerId: string;
  image: string;
  startedAtMs: number;
  limits: EnclosureLimits;
  workspaceMode: "bind" | "copy";
  runtime: EnclosureRuntime;
  relaxations: string[];
  user: string;
  disk?: WorkspaceDiskRecord;
  /** The engine it runs on (placement/engines.ts); missing in records made before engines were named: the default one. */
  engine?: string;
  state: "starting" | "running" | "paused" | "dead";
  detail: string;
  /** Set while paused (state "paused"): its checkpoint on the engine, kept until a resume succeeds. */
  pause?: PauseRecord;
  /** The last pause's and resume's durations, for seeing ("pause 260 ms, resume 400 ms"). */
  pauseTimings?: string;
  /** What the start decided that is worth seeing: a Node injected, dev container fields not honoured. */
  notes?: string[];
  /** Set when the enclosure came from the warm pool (pre-started, then claimed by this conversation alone). */
  pool?: PoolOrigin;
  /** The options it was started with (within its tenant's maxima) and whether an operator named them: a wake starts the same again. */
  request?: EnclosureRequest;
  startedByOperator?: boolean;
}

/** Why a conversation sleeps: the idle policy, its maximum lifetime, its tenant paused, or an operator's action. */
export type SleepReason = "idle" | "max_lifetime" | "tenant_paused" | "operator" | "pause";

/** How a placement is put to sleep: stopped (memory lost) or checkpointed to disk (memory kept). */
export type SleepMechanism = "stop" | "checkpoint";

export interface SleepRecord {
  reason: SleepReason;
  atMs: number;
  mechanism: SleepMechanism;
  memoryKept: boolean;
  placement: "host" | "enclosure";
  detail: string;
  /** An enclosure's options, started again by the wake (the container itself is gone). */
  enclosure?: { request: EnclosureRequest; startedByOperator: boolean; image: string; runtime: EnclosureRuntime };
}

/** The conversation's idle policy and, while it sleeps, how it was put to sleep (see lifecycle/). */
export interface LifecycleRecord {
  /** Its own values in seconds (within its tenant's maxima); absent: the server's defaults. */
  idleTimeoutSeconds?: number;
  maxLifetimeSeconds?: number;
  /** Set while it sleeps. */
  sleep?: SleepRecord;
}

/** A pause that kept the enclosure's memory: a checkpoint the engine holds in the container's own folder. */
export interface PauseRecord {
  /** The checkpoint's name on the engine (restored only into this same container). */
  checkpoint: string;
  pausedAtMs: number;
  /** Its size on the engine's disk when the control plane can read it (a local engine), else 0. */
  bytes: number;
  /** Who paused it (a tenant, an operator, the idle policy). */
  by: string;
  /** What the pause ended (debug sessions), and why the last resume failed, one line each. */
  notes: string[];
}

export interface PoolOrigin {
  /** The profile it was kept warm for (a digest of its settings). */
  profile: string;
  createdAtMs: number;
  claimedAtMs: number;
  /** Bind mode: the host folder, owned by the control plane, its workspace was mounted on (unmounted at stop). */
  slot?: string;
}

export interface ConversationRecord {
  /** The conversation's key: its id within its tenant's namespace, qualified for any tenant but the implicit one (see conversation-keys.ts). */
  id: string;
  workspacePath: string;
  /** True when the control plane made the workspace folder (and so removes it with the conversation). */
  ownsWorkspace: boolean;
  createdAtMs: number;
  enclosure?: EnclosureRecord;
  /** What the last copy-mode stop did not bring back into the workspace, one line each. */
  notCopiedBack?: string[];
  /** Set while a host agent runs for the conversation (see placement/host-agent-loss.ts). */
  hostAgent?: { startedAtMs: number };
  /**
   * An agent whose memory went away, until the next call reports it: a host agent that ran when the
   * control plane went away or that an operator stopped (`stoppedBy`: who), or a placement (host
   * agent or enclosure) put to sleep (`slept`).
   */
  hostAgentLost?: { startedAtMs: number; noticedAtMs: number; stoppedBy?: string; slept?: SleepRecord };
  lifecycle?: LifecycleRecord;
  /** The tenant that owns it; records made before tenants existed belong to the implicit one. */
  tenant: string;
  /** Where its code may reach through the egress proxy (checked, within the tenant's maximum); absent: nowhere. */
  egress?: EgressDestination[];
  /** The key of the conversation this one was forked from (see conversations/conversation-fork.ts). */
  forkedFrom?: string;
}

/**
 * The options an enclosure was started with (what a wake or a fork asks for again), or, for one
 * recorded before they were kept, what its record says it resolved to.
 */
export function startedWith(enc: EnclosureRecord): EnclosureRequest {
  if (enc.request) return { ...enc.request };
  return {
    image: enc.image,
    workspaceMode: enc.workspaceMode,
    memoryBytes: enc.limits.memoryBytes,
    cpus: enc.limits.cpus,
    pidsLimit: enc.limits.pids,
    runtime: enc.runtime,
    ...(enc.workspaceMode === "copy" && enc.limits.diskBytes ? { diskLimitBytes: enc.limits.diskBytes } : {}),
  };
}
