// A conversation's record and its enclosure's, as the state database keeps them (JSON, whole).
import type { EnclosureRequest, EnclosureRuntime } from "./enclosure.js";

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
  state: "starting" | "running" | "dead";
  detail: string;
  /** What the start decided that is worth seeing: a Node injected, dev container fields not honoured. */
  notes?: string[];
  /** Set when the enclosure came from the warm pool (pre-started, then claimed by this conversation alone). */
  pool?: PoolOrigin;
  /** The options it was started with, as asked (a fork starts its enclosure with them); missing in records made before forks. */
  request?: EnclosureRequest;
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
  /** A host agent that ran when the control plane went away, until the next call reports it. */
  hostAgentLost?: { startedAtMs: number; noticedAtMs: number };
  /** The tenant that owns it; records made before tenants existed belong to the implicit one. */
  tenant: string;
  /** The key of the conversation this one was forked from (see conversations/conversation-fork.ts). */
  forkedFrom?: string;
}
