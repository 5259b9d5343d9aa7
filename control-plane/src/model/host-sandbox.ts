// A host sandbox (bubblewrap) as configured and audited: where things are inside, the operator's
// settings, the account it runs as, and the cgroup controllers that bound it.

/** Where things are inside a host sandbox (the same names an enclosure uses). */
export const IN_SANDBOX = {
  workspace: "/workspace",
  agentDir: "/opt/enclave/agent",
  hostTools: "/opt/enclave/host-tools",
  state: "/run/enclave/state",
  home: "/home/enclave",
} as const;

export interface UidRange {
  /** The first uid of the range (also each sandbox's gid: uid and gid are the same number). */
  base: number;
  count: number;
}

export interface SandboxLimits {
  /** Most tasks (processes and threads) in the sandbox at once. */
  pidsMax: number;
  /** Memory the sandbox may use, swap included. */
  memoryBytes: number;
  /** Its CPU weight against other cgroups (1024: the same as a process of its own). */
  cpuShares: number;
}

export const SANDBOX_CONTROLLERS = ["pids", "memory", "cpu"] as const;
export type SandboxController = (typeof SANDBOX_CONTROLLERS)[number];

export interface HostSandboxConfig {
  /** Whether the sandbox keeps the host's network (off by default; the bridge never needs it). */
  network: boolean;
  /** Agents kept started ahead of any conversation, each with a Python kernel (ENCLAVE_HOST_SPARES, default 1; 0 turns them off; see host-agents.ts). */
  spares: number;
  /** The host uids reserved for sandboxes, one per conversation (ENCLAVE_HOST_UID_BASE, ENCLAVE_HOST_UID_COUNT). */
  uids: UidRange;
  /** Whether each sandbox gets a cgroup with `limits` (ENCLAVE_HOST_CGROUPS, on by default). */
  cgroups: boolean;
  /**
   * Where the Python installations a workspace's virtual environments were made from may be, to be
   * shown read-only in the sandbox (ENCLAVE_HOST_PYTHON_ROOTS; /usr and /opt by default).
   */
  pythonRoots?: readonly string[];
  limits: SandboxLimits;
}

export const DEFAULT_PYTHON_ROOTS: readonly string[] = ["/usr", "/opt"];

export interface SandboxIdentity {
  uid: number;
  gid: number;
  /** Whether the control plane must drop to uid:gid inside the sandbox (it runs as root). */
  drop: boolean;
}
