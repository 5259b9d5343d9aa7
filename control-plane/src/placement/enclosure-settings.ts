// Enclosure hardening: the defaults every enclosure starts with, and the explicit options that may
// weaken them. Each weakening is named in `relaxations`, which the conversation shows and the audit
// log records.
import { posix } from "node:path";
import type { ContainerCreateOptions } from "dockerode";
import {
  ENCLOSURE_RUNTIMES,
  type EnclosureDefaults,
  type EnclosureRequest,
  type EnclosureSettings,
  IN_ENCLOSURE,
  isEnclosureRuntime,
  runscHostTasks,
} from "../model/enclosure.js";
import { EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";
import { quoted } from "../text/wording.js";

/** The agent's socket and nothing else: a small tmpfs. */
const RUN_DIR_BYTES = 1024 ** 2;

/**
 * The command that joins an exec's stdio to the agent's socket (see exec-relay.ts): Perl's relay when
 * the image has Perl, else Node's on the Node the agent runs on (relay.sh chooses).
 */
export const RELAY_COMMAND = ["/bin/sh", `${IN_ENCLOSURE.agentDir}/relay.sh`, IN_ENCLOSURE.socket];

/** Smallest workspace volume: ext4's own metadata and journal take a few MiB of it. */
export const MIN_DISK_BYTES = 32 * 1024 ** 2;

function bad(message: string): never {
  throw new EnclaveError("invalid_arguments", message);
}

/** The fewest CPUs the engine gives a container. */
export const MIN_CPUS = 0.01;

/**
 * A numeric option: absent or 0 (the wire's "unset") takes the default; anything else must be a
 * finite number (a whole one where `whole`) of at least `min`.
 */
function numberOption(name: string, given: number | undefined, dflt: number, min: number, whole: boolean): number {
  if (given === undefined || given === 0) return dflt;
  if (!Number.isFinite(given) || (whole && !Number.isSafeInteger(given))) bad(`${name} ${given} is not ${whole ? "a whole number" : "a finite number"}`);
  if (given < min) bad(`${name} ${given} is below the least of ${min}`);
  return given;
}

export function resolveSettings(req: EnclosureRequest, defaults: EnclosureDefaults, defaultImage: string): EnclosureSettings {
  const relaxations: string[] = [];
  const workspaceMode = req.workspaceMode || "bind";
  if (workspaceMode !== "bind" && workspaceMode !== "copy") bad(`workspace_mode ${quoted(workspaceMode)} is not one of bind, copy`);
  const agentDelivery = req.agentDelivery || "mount";
  if (agentDelivery !== "mount" && agentDelivery !== "baked") bad(`agent_delivery ${quoted(agentDelivery)} is not one of mount, baked`);
  const memoryBytes = numberOption("memory_bytes", req.memoryBytes, defaults.memoryBytes, 64 * 1024 ** 2, true);
  const cpus = numberOption("cpus", req.cpus, defaults.cpus, MIN_CPUS, false);
  if (cpus > 64) bad(`cpus ${cpus} is out of range [${MIN_CPUS}, 64]`);
  const pidsLimit = numberOption("pids_limit", req.pidsLimit, defaults.pidsLimit, 16, true);

  const user = req.user || "1000:1000";
  const m = /^(\d+):(\d+)$/.exec(user);
  if (!m) bad(`user ${quoted(user)} must be numeric uid:gid, such as 1000:1000`);
  const uid = Number(m[1]);
  const gid = Number(m[2]);
  if (uid === 0 || gid === 0) bad("an enclosure never runs as root (uid or gid 0); give a non-root uid:gid");

  const runtime = req.runtime || defaults.runtime;
  if (!isEnclosureRuntime(runtime)) bad(`runtime ${quoted(runtime)} is not one of ${ENCLOSURE_RUNTIMES.join(", ")}`);

  const networkMode = req.networkMode || "none";
  if (!/^[a-z0-9_.-]+$/i.test(networkMode)) bad(`network_mode ${quoted(networkMode)} is not a Docker network name`);
  // gVisor is registered with its own network stack off (--network=none): it cannot start in a
  // container that has a network, so asking for both is refused here rather than failing in the engine.
  if (runtime === "runsc" && networkMode !== "none") {
    bad(`runtime runsc (gVisor) runs enclosures with network mode none only; network_mode ${quoted(networkMode)} needs runtime runc`);
  }
  if (networkMode !== "none") relaxations.push(`network_mode=${networkMode}`);
  const keepCapabilities = (req.keepCapabilities ?? []).map((c) => c.toUpperCase().replace(/^CAP_/, ""));
  for (const c of keepCapabilities) if (!/^[A-Z_]+$/.test(c)) bad(`capability ${quoted(c)} is not a capability name`);
  if (keepCapabilities.length) relaxations.push(`capabilities kept: ${keepCapabilities.join(", ")}`);
  const writableRoot = Boolean(req.writableRoot);
  if (writableRoot) relaxations.push("writable root filesystem");
  const allowNewPrivileges = Boolean(req.allowNewPrivileges);
  if (allowNewPrivileges) relaxations.push("new privileges allowed (setuid binaries work)");

  if (workspaceMode === "bind" && req.diskLimitBytes) {
    bad(
      "disk_limit_bytes needs workspace_mode copy: in bind mode the enclosure writes the host folder itself, which only the " +
        "host filesystem bounds on this engine; start with workspace_mode copy for a workspace of limited size",
    );
  }
  const diskLimitBytes = workspaceMode === "copy" ? numberOption("disk_limit_bytes", req.diskLimitBytes, defaults.diskBytes, MIN_DISK_BYTES, true) : 0;

  return {
    image: req.image || defaults.image || defaultImage,
    workspaceMode,
    memoryBytes,
    cpus,
    pidsLimit,
    uid,
    gid,
    groups: [],
    networkMode,
    keepCapabilities,
    writableRoot,
    allowNewPrivileges,
    agentDelivery,
    runtime,
    tmpSizeBytes: defaults.tmpSizeBytes,
    homeSizeBytes: defaults.homeSizeBytes,
    diskLimitBytes,
    relaxations,
  };
}

/**
 * The settings run as the enclosure's own host uid (its gid the same number), so that no two
 * conversations' enclosures share the kernel's per-uid state (inotify instances, RLIMIT_NPROC,
 * message-queue bytes, signals), whatever user the image names. Under runsc too: gVisor has a
 * kernel of its own, so it is harmless there, and one rule keeps the audit and records alike.
 * `keepNamedGroup`: a user named by the request, the image or a dev container keeps its gid as a
 * supplementary group, so the image's group-owned files stay usable; its uid is not taken (it would
 * be the same uid for every tenant starting that image).
 */
export function withOwnUid(s: EnclosureSettings, uid: number, keepNamedGroup: boolean): EnclosureSettings {
  return { ...s, uid, gid: uid, groups: keepNamedGroup && s.gid !== uid ? [s.gid] : [] };
}

export interface EnclosureMounts {
  /** The host folder, bind-mounted in bind mode. */
  workspace: string;
  /** Copy mode: the size-limited volume mounted at /workspace. */
  workspaceVolume?: string;
  /** The image's VOLUME paths: each gets a tmpfs of the /tmp size, so the engine makes no unbounded anonymous volume. */
  imageVolumes?: readonly string[];
}

/** An image VOLUME path as a mount target ("/scratch/", "scratch" and "/scratch" alike: the engine roots it at /). */
function volumeTarget(path: string): string {
  return posix.normalize(`/${path}`).replace(/\/+$/, "") || "/";
}

type VolumeOptions = NonNullable<NonNullable<NonNullable<ContainerCreateOptions["HostConfig"]>["Mounts"]>[number]["VolumeOptions"]>;
/** The engine's API takes NoCopy alone; its typings ask for every field. */
export const NO_COPY = { NoCopy: true } as VolumeOptions;

export function containerSpec(s: EnclosureSettings, mounts: EnclosureMounts, labels: Record<string, string>): ContainerCreateOptions {
  const binds: string[] = [];
  if (s.workspaceMode === "bind") binds.push(`${mounts.workspace}:${IN_ENCLOSURE.workspace}`);
  const volumes: NonNullable<NonNullable<ContainerCreateOptions["HostConfig"]>["Mounts"]> = [];
  // The volume's root was given to the enclosure's user when it was made (workspace-disk.ts,
  // remote-workspace.ts): the engine must not copy the owner of the image's /workspace onto it.
  if (s.workspaceMode === "copy")
    volumes.push({ Type: "volume", Source: mounts.workspaceVolume ?? "", Target: IN_ENCLOSURE.workspace, VolumeOptions: NO_COPY });
  // The agent bundle is copied into a volume of the container's own before it starts, rather than
  // bind-mounted from the host: a bind mount shows its host path in /proc/self/mountinfo inside. Its
  // files are root's, so the enclosure's user cannot change them.
  if (s.agentDelivery === "mount") volumes.push({ Type: "volume", Source: "", Target: IN_ENCLOSURE.agentDir });
  const tmpfsOpts = (size: number, owned: boolean): string => `rw,nosuid,nodev,size=${size}${owned ? `,uid=${s.uid},gid=${s.gid},mode=0700` : ""}`;
  const tmpfs: Record<string, string> = {
    "/tmp": tmpfsOpts(s.tmpSizeBytes, false),
    [IN_ENCLOSURE.home]: tmpfsOpts(s.homeSizeBytes, true),
    [IN_ENCLOSURE.runDir]: tmpfsOpts(RUN_DIR_BYTES, true),
  };
  // An image VOLUME not covered by a mount of ours becomes a tmpfs: bounded, charged to the memory limit.
  const ours = new Set([IN_ENCLOSURE.workspace, IN_ENCLOSURE.agentDir, ...Object.keys(tmpfs)]);
  for (const v of mounts.imageVolumes ?? []) {
    const target = volumeTarget(v);
    if (target === "/") throw new EnclaveError("image_unusable", `image ${s.image} declares VOLUME /, which would replace its whole filesystem`);
    if (!ours.has(target)) tmpfs[target] = tmpfsOpts(s.tmpSizeBytes, false);
  }
  return {
    Image: s.image,
    Entrypoint: ["/bin/sh", `${IN_ENCLOSURE.agentDir}/supervise.sh`],
    Cmd: ["--socket", IN_ENCLOSURE.socket, "--workspace", IN_ENCLOSURE.workspace, "--placement", "enclosure"],
    User: `${s.uid}:${s.gid}`,
    WorkingDir: IN_ENCLOSURE.workspace,
    Env: [`HOME=${IN_ENCLOSURE.home}`, "MPLBACKEND=Agg", "PYTHONUNBUFFERED=1"],
    Labels: labels,
    NetworkDisabled: s.networkMode === "none",
    HostConfig: {
      Runtime: s.runtime,
      NetworkMode: s.networkMode,
      ...(s.groups.length ? { GroupAdd: s.groups.map(String) } : {}),
      CapDrop: ["ALL"],
      CapAdd: s.keepCapabilities,
      SecurityOpt: s.allowNewPrivileges ? [] : ["no-new-privileges:true"],
      ReadonlyRootfs: !s.writableRoot,
      Tmpfs: tmpfs,
      // The container's own /dev/shm (its IPC namespace private, never shared with another), sized
      // here rather than by the engine's default: multiprocessing's locks and shared memory live there.
      IpcMode: "private",
      ShmSize: LIMITS.sandboxShmBytes,
      Memory: s.memoryBytes,
      MemorySwap: s.memoryBytes,
      NanoCpus: Math.round(s.cpus * 1e9),
      // Under gVisor the limit is enforced inside, as RLIMIT_NPROC; the cgroup bounds gVisor's own tasks.
      PidsLimit: s.runtime === "runsc" ? runscHostTasks(s.pidsLimit) : s.pidsLimit,
      ...(s.runtime === "runsc" ? { Ulimits: [{ Name: "nproc", Soft: s.pidsLimit, Hard: s.pidsLimit }] } : {}),
      Init: true,
      Binds: binds,
      Mounts: volumes,
      AutoRemove: false,
    },
  };
}
