// Enclosure hardening: the defaults every enclosure starts with, and the explicit options that may
// weaken them. Each weakening is named in `relaxations`, which the conversation shows and the audit
// log records.
import type { ContainerCreateOptions } from "dockerode";
import { ENCLOSURE_RUNTIMES, type EnclosureDefaults, type EnclosureRuntime, isEnclosureRuntime } from "../config.js";
import { EnclaveError } from "../errors.js";

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
  runtime?: string;
}

export interface EnclosureSettings {
  image: string;
  workspaceMode: "bind" | "copy";
  memoryBytes: number;
  cpus: number;
  pidsLimit: number;
  uid: number;
  gid: number;
  networkMode: string;
  keepCapabilities: string[];
  writableRoot: boolean;
  allowNewPrivileges: boolean;
  agentDelivery: "mount" | "baked";
  runtime: EnclosureRuntime;
  tmpSizeBytes: number;
  homeSizeBytes: number;
  relaxations: string[];
}

/** Where things live inside an enclosure. */
export const IN_ENCLOSURE = {
  workspace: "/workspace",
  socketDir: "/run/enclave",
  socket: "/run/enclave/agent.sock",
  agentDir: "/opt/enclave/agent",
  home: "/home/enclave",
} as const;

function bad(message: string): never {
  throw new EnclaveError("invalid_arguments", message);
}

export function resolveSettings(req: EnclosureRequest, defaults: EnclosureDefaults, defaultImage: string): EnclosureSettings {
  const relaxations: string[] = [];
  const workspaceMode = req.workspaceMode || "bind";
  if (workspaceMode !== "bind" && workspaceMode !== "copy") bad(`workspace_mode \`${workspaceMode}\` is not one of bind, copy`);
  const agentDelivery = req.agentDelivery || "mount";
  if (agentDelivery !== "mount" && agentDelivery !== "baked") bad(`agent_delivery \`${agentDelivery}\` is not one of mount, baked`);
  const memoryBytes = req.memoryBytes || defaults.memoryBytes;
  if (memoryBytes < 64 * 1024 ** 2) bad(`memory_bytes ${memoryBytes} is below the 64 MiB an enclosure needs`);
  const cpus = req.cpus || defaults.cpus;
  if (cpus <= 0 || cpus > 64) bad(`cpus ${cpus} is out of range (0, 64]`);
  const pidsLimit = req.pidsLimit || defaults.pidsLimit;
  if (pidsLimit < 16) bad(`pids_limit ${pidsLimit} is below 16`);

  const user = req.user || "1000:1000";
  const m = /^(\d+):(\d+)$/.exec(user);
  if (!m) bad(`user \`${user}\` must be numeric uid:gid, such as 1000:1000`);
  const uid = Number(m[1]);
  const gid = Number(m[2]);
  if (uid === 0 || gid === 0) bad("an enclosure never runs as root (uid or gid 0); give a non-root uid:gid");

  const runtime = req.runtime || defaults.runtime;
  if (!isEnclosureRuntime(runtime)) bad(`runtime \`${runtime}\` is not one of ${ENCLOSURE_RUNTIMES.join(", ")}`);

  const networkMode = req.networkMode || "none";
  if (!/^[a-z0-9_.-]+$/i.test(networkMode)) bad(`network_mode \`${networkMode}\` is not a Docker network name`);
  // gVisor is registered with its own network stack off (--network=none): it cannot start in a
  // container that has a network, so asking for both is refused here rather than failing in the engine.
  if (runtime === "runsc" && networkMode !== "none") {
    bad(`runtime runsc (gVisor) runs enclosures with network mode none only; network_mode \`${networkMode}\` needs runtime runc`);
  }
  if (networkMode !== "none") relaxations.push(`network_mode=${networkMode}`);
  const keepCapabilities = (req.keepCapabilities ?? []).map((c) => c.toUpperCase().replace(/^CAP_/, ""));
  for (const c of keepCapabilities) if (!/^[A-Z_]+$/.test(c)) bad(`capability \`${c}\` is not a capability name`);
  if (keepCapabilities.length) relaxations.push(`capabilities kept: ${keepCapabilities.join(", ")}`);
  const writableRoot = Boolean(req.writableRoot);
  if (writableRoot) relaxations.push("writable root filesystem");
  const allowNewPrivileges = Boolean(req.allowNewPrivileges);
  if (allowNewPrivileges) relaxations.push("new privileges allowed (setuid binaries work)");

  return {
    image: req.image || defaults.image || defaultImage,
    workspaceMode,
    memoryBytes,
    cpus,
    pidsLimit,
    uid,
    gid,
    networkMode,
    keepCapabilities,
    writableRoot,
    allowNewPrivileges,
    agentDelivery,
    runtime,
    tmpSizeBytes: defaults.tmpSizeBytes,
    homeSizeBytes: defaults.homeSizeBytes,
    relaxations,
  };
}

export interface EnclosureMounts {
  socketDir: string;
  workspace: string;
  agentBundleDir: string;
}

export function containerSpec(s: EnclosureSettings, mounts: EnclosureMounts, labels: Record<string, string>): ContainerCreateOptions {
  const binds = [`${mounts.socketDir}:${IN_ENCLOSURE.socketDir}`];
  if (s.workspaceMode === "bind") binds.push(`${mounts.workspace}:${IN_ENCLOSURE.workspace}`);
  if (s.agentDelivery === "mount") binds.push(`${mounts.agentBundleDir}:${IN_ENCLOSURE.agentDir}:ro`);
  const tmpfsOpts = (size: number, owned: boolean): string =>
    `rw,nosuid,nodev,size=${size}${owned ? `,uid=${s.uid},gid=${s.gid},mode=0700` : ""}`;
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
      CapDrop: ["ALL"],
      CapAdd: s.keepCapabilities,
      SecurityOpt: s.allowNewPrivileges ? [] : ["no-new-privileges:true"],
      ReadonlyRootfs: !s.writableRoot,
      Tmpfs: { "/tmp": tmpfsOpts(s.tmpSizeBytes, false), [IN_ENCLOSURE.home]: tmpfsOpts(s.homeSizeBytes, true) },
      Memory: s.memoryBytes,
      MemorySwap: s.memoryBytes,
      NanoCpus: Math.round(s.cpus * 1e9),
      PidsLimit: s.pidsLimit,
      Init: true,
      Binds: binds,
      Mounts: s.workspaceMode === "copy" ? [{ Type: "volume", Source: "", Target: IN_ENCLOSURE.workspace }] : [],
      AutoRemove: false,
    },
  };
}
