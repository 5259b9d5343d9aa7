// What an enclosure is asked to be and what it resolves to: the runtimes it can run under, the
// operator's defaults, a start's options and the settings they resolve to, and where things live inside.

/** The container runtimes an enclosure can run under: runc (namespaces of the host's kernel) or
 * runsc (gVisor, a user-space kernel between the enclosure and the host's). */
export const ENCLOSURE_RUNTIMES = ["runc", "runsc"] as const;
export type EnclosureRuntime = (typeof ENCLOSURE_RUNTIMES)[number];

export function isEnclosureRuntime(s: string): s is EnclosureRuntime {
  return (ENCLOSURE_RUNTIMES as readonly string[]).includes(s);
}

export interface EnclosureDefaults {
  /** Image to start enclosures from; empty means the runtime image built by `make images`. */
  image: string;
  /**
   * A registry HOST:PORT the default image is run from (ENCLAVE_IMAGE_REGISTRY): the engine pulls
   * registry/NAME@sha256:… as `enclave images push` recorded it. Empty: the locally built image.
   */
  imageRegistry: string;
  /**
   * Images a plain tenant may start besides Enclave's own and its own dev-container builds
   * (ENCLAVE_ALLOWED_IMAGES: references separated by commas or spaces; looked up, never pulled).
   */
  allowedImages: string[];
  /** The runtime an enclosure runs under when its options name none (ENCLAVE_ENCLOSURE_RUNTIME). */
  runtime: EnclosureRuntime;
  memoryBytes: number;
  cpus: number;
  pidsLimit: number;
  tmpSizeBytes: number;
  homeSizeBytes: number;
  /** Copy mode's workspace volume size when a start gives none (ENCLAVE_ENCLOSURE_DISK_BYTES). */
  diskBytes: number;
  /** Host folder for copy mode's workspace volume images. */
  diskImageDir: string;
  /** What a copy-mode stop brings back at most (ENCLAVE_COPY_BACK_MAX_BYTES; see LIMITS). */
  copyBackMaxBytes: number;
  /** The host uids reserved for enclosures, one per conversation's enclosure (ENCLAVE_ENCLOSURE_UID_BASE/COUNT). */
  uids: { base: number; count: number };
}

export interface EnclosureRequest {
  image?: string;
  workspaceMode?: string;
  memoryBytes?: number;
  cpus?: number;
  pidsLimit?: number;
  user?: string;
  networkMode?: string;
  keepCapabilities?: string[];
  writableRoot?: boolean;
  allowNewPrivileges?: boolean;
  agentDelivery?: string;
  diskLimitBytes?: number;
  runtime?: string;
  /** Start from the workspace's dev container (devcontainer.ts) instead of an image. */
  devcontainer?: boolean;
  /** False: a dev container that needs a Dockerfile build is refused (the tenant's builds are off). Never from the wire. */
  buildsAllowed?: boolean;
}

export interface EnclosureSettings {
  image: string;
  workspaceMode: "bind" | "copy";
  memoryBytes: number;
  cpus: number;
  pidsLimit: number;
  uid: number;
  gid: number;
  /** Supplementary groups: a user the image or request named keeps its group (see withOwnUid). */
  groups: number[];
  networkMode: string;
  keepCapabilities: string[];
  writableRoot: boolean;
  allowNewPrivileges: boolean;
  agentDelivery: "mount" | "baked";
  runtime: EnclosureRuntime;
  tmpSizeBytes: number;
  homeSizeBytes: number;
  /** Size of the copy-mode workspace volume; 0 in bind mode (the host folder's filesystem bounds it). */
  diskLimitBytes: number;
  relaxations: string[];
}

/** Where things live inside an enclosure. */
export const IN_ENCLOSURE = {
  workspace: "/workspace",
  /** The agent's socket lives on the container's own tmpfs: nothing of the host is mounted for it. */
  runDir: "/run/enclave",
  socket: "/run/enclave/agent.sock",
  agentDir: "/opt/enclave/agent",
  home: "/home/enclave",
} as const;

/**
 * Under gVisor the cgroup's pids limit counts gVisor's own host tasks — several per process inside
 * (its platform's stubs) — and reaching it ends the whole sandbox rather than failing a fork. So an
 * enclosure's limit is enforced inside, as gVisor's RLIMIT_NPROC (its processes all run as one user,
 * and gVisor counts only its own), which fails a fork with EAGAIN as the cgroup does under runc; the
 * cgroup keeps a backstop sized for gVisor's tasks: about 5 per single-threaded process measured
 * here, so 8 per allowed process and a base for gVisor itself.
 */
export function runscHostTasks(pidsLimit: number): number {
  return pidsLimit * 8 + 256;
}

/**
 * The warm pool: `size` enclosures per profile (ENCLAVE_WARM_POOL_SIZE, default 0: none, so a control
 * plane serving host placement starts no container); each profile is the start options it serves
 * (ENCLAVE_WARM_POOL_PROFILES, a JSON array of option objects; default one profile, the defaults).
 */
export interface WarmPoolConfig {
  size: number;
  profiles: EnclosureRequest[];
}
