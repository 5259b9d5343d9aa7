// What the kernels say of an enclosure, as placement reads it and the hardening audit judges it:
// the host kernel's view of the container's processes, namespaces, mounts and cgroup; gVisor's kernel's
// view under runsc; and how the engine registers runsc.

export interface MountEntry {
  /** The path inside the mounted filesystem that is mounted (a bind mount's source, relative to its filesystem). */
  root: string;
  mountPoint: string;
  options: string[];
  fsType: string;
  source: string;
  superOptions: string[];
}

export interface HostProcess {
  pid: number;
  /** Its command line (gVisor names its processes runsc-sandbox, runsc-gofer and gives their flags). */
  argv: string[];
  /** Where /proc/PID/exe points, as a string (in the process's own mount namespace). */
  exe: string;
  /** Real, effective, saved and filesystem ids, as the process's own user namespace names them. */
  uids: number[];
  gids: number[];
  /** Ids as the host names them (differ from the above in a user namespace of its own). */
  hostUids: number[];
  capEff: string;
  capPrm: string;
  capBnd: string;
  /** "1", "0", or "" when not shown. */
  noNewPrivs: string;
  seccomp: number;
  netNamespace: string;
  userNamespace: string;
  /** "" when the process shares the control plane's user namespace; else its uid_map. */
  uidMap: string;
}

export interface NetworkNamespace {
  id: string;
  interfaces: string[];
  routes: string[];
  listening: string[];
}

export interface CgroupLimits {
  version: "v1" | "v2";
  /** -1: no limit. */
  pidsMax: number;
  memoryBytes: number;
  /** Swap allowed beyond memoryBytes; undefined when the kernel does not account swap. */
  swapBytes: number | undefined;
  /** -1: no quota. */
  cpuQuotaUs: number;
  cpuPeriodUs: number;
}

export interface HostView {
  initPid: number;
  processes: HostProcess[];
  networks: NetworkNamespace[];
  /** The first process's mount table. */
  mounts: MountEntry[];
  cgroup: CgroupLimits;
}

export interface GvisorProcess {
  pid: number;
  name: string;
  uids: number[];
  gids: number[];
  capEff: string;
  capPrm: string;
  capBnd: string;
  seccomp: number;
}

export interface GvisorView {
  /** The reader's user id: one no enclosure process runs as. */
  readerUid: number;
  /** The hard process limit (RLIMIT_NPROC) gVisor gives a process started in the enclosure; -1 unlimited, -2 not read. */
  nprocHard: number;
  processes: GvisorProcess[];
  interfaces: string[];
  routes: string[];
  listening: string[];
  mounts: MountEntry[];
}

export interface RunscRegistration {
  path: string;
  runtimeArgs: string[];
  /** The runsc binary that runs: `path` itself, or the one a wrapper of ours (images/runsc-for-docker.sh) executes. */
  binary: string;
}
