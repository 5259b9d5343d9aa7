// What the egress audit reports: each item's two halves and verdict, and the report as a whole.
import type Docker from "dockerode";
import type { AuditEvent } from "../audit/audit-log.js";
import type { GvisorView, HostView, RunscRegistration } from "../model/enclosure-views.js";

export interface AuditCheck {
  item: string;
  expected: string;
  outside: string;
  inside: string;
  ok: boolean;
  /** Why the item could not be checked from outside (a remote engine); such an item is never ok. */
  unavailable?: string;
}

export interface EnclosureAuditReport {
  conversationId: string;
  placement: "host" | "enclosure";
  containerId: string;
  image: string;
  runtime: string;
  relaxations: string[];
  checks: AuditCheck[];
  bridgeCalls: AuditEvent[];
  /** Requests through the egress proxy (kind egress), allowed and refused. */
  egressRequests: AuditEvent[];
  passed: boolean;
  timeMs: number;
}

/** Everything the outside half is made of; a part that could not be read is its Error. */
export interface OutsideView {
  info: Docker.ContainerInspectInfo;
  /** Copy mode's workspace volume as the engine reports it; undefined in bind mode. */
  volume?: Docker.VolumeInspectInfo;
  host: HostView | Error;
  /** runsc only. */
  gvisor?: GvisorView | Error;
  /** runsc only: how the engine registers it. */
  runsc?: RunscRegistration | Error;
}
