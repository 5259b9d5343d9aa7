// What the hardening audit reads through placement, as interfaces it receives: placement implements
// them (its Docker driver, its sandbox cgroups and /proc readers) and the composition root hands them
// in, so no hardening module imports placement and placement imports no hardening code.
import type Docker from "dockerode";
import type { SelfAuditResponse } from "@enclave/proto/gen/enclave/agent/v1/info.js";
import type { EnclosureRecord } from "../model/conversation.js";
import type { GvisorView, HostView, RunscRegistration } from "../model/enclosure-views.js";
import type { EngineIdentity } from "../model/engine.js";
import type { SandboxController, SandboxLimits } from "../model/host-sandbox.js";

/** An enclosure as its engine, the host's kernel and gVisor's show it (placement's Docker driver). */
export interface EnclosureViews {
  readonly engine: EngineIdentity;
  containerInfo(record: EnclosureRecord): Promise<Docker.ContainerInspectInfo>;
  /** Copy mode's workspace volume as the engine reports it; undefined in bind mode. */
  workspaceVolumeInfo(record: EnclosureRecord): Promise<Docker.VolumeInspectInfo | undefined>;
  hostView(info: Docker.ContainerInspectInfo): Promise<HostView>;
  gvisorView(record: EnclosureRecord): Promise<GvisorView>;
  runscRegistration(): Promise<RunscRegistration>;
}

/** The enclosure's agent, asked for the inside half: what it reports of itself, and whose it is. */
export interface AgentSelfReport {
  selfAudit(): Promise<SelfAuditResponse>;
  health(): Promise<{ conversationId: string }>;
}

/** A host sandbox's cgroup as the audit reads it. */
export interface SandboxCgroupReading {
  members(controller?: SandboxController): number[];
  current(): SandboxLimits;
}

/** How the audit finds a host sandbox's processes from bubblewrap's pid (the host's /proc). */
export interface SandboxProcessFinder {
  /** The sandbox's pid namespace; throws when no process is left in it. */
  namespaceOf(bwrapPid: number): string;
  processesIn(namespace: string): Array<{ hostPid: number }>;
}
