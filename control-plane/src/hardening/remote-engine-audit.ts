// The egress audit of an enclosure on a remote engine. Its authoritative half is partly missing: the
// control plane is not on the engine's machine, so it cannot read that kernel's view of the
// container (/proc, the network namespace, the cgroup files). What remains outside is the engine's
// own account of the container's settings. So each item is judged on those settings alone: settings
// that break the promise FAIL as anywhere; settings that keep it are not a pass either, since nothing
// confirmed them from outside — the item is marked not available on a remote engine. The agent's
// inside half is shown but never decides an item.
import type Docker from "dockerode";
import type { EnclosureRecord } from "../model/conversation.js";
import { IN_ENCLOSURE, runscHostTasks } from "../model/enclosure.js";
import type { AuditCheck } from "./audit-check.js";
import { engineSocketMounts } from "../procfs/proc-tables.js";

export function remoteUnavailable(engine: string): string {
  return `not available on a remote engine (\`${engine}\`): the control plane cannot read that machine's /proc and cgroup files, so only the engine's settings were checked`;
}

/** Whether the engine's settings for the container keep each item's promise (by item name). */
export function engineSettingsHold(info: Docker.ContainerInspectInfo, record: EnclosureRecord): Record<string, boolean> {
  const hc = info.HostConfig;
  const gv = record.runtime === "runsc";
  const securityOpt: string[] = hc.SecurityOpt ?? [];
  const [uid = -1, gid = -1] = (info.Config.User || "0:0").split(":").map(Number);
  const tmpfs = Object.keys(hc.Tmpfs ?? {});
  const mounts = (info.Mounts ?? []).map((m) => ({ root: m.Source ?? "", mountPoint: m.Destination ?? "" }));
  const nproc = (hc.Ulimits ?? []).find((u) => u.Name === "nproc");
  return {
    runtime: hc.Runtime === record.runtime,
    network: hc.NetworkMode === "none",
    "listening sockets": Object.keys(hc.PortBindings ?? {}).length === 0,
    capabilities: (hc.CapDrop ?? []).includes("ALL") && (hc.CapAdd ?? []).length === 0,
    "no new privileges": securityOpt.some((o) => /^no-new-privileges(:true)?$/.test(o)),
    "read-only root": hc.ReadonlyRootfs === true,
    mounts: tmpfs.includes("/tmp") && tmpfs.includes(IN_ENCLOSURE.home) && engineSocketMounts(mounts).length === 0,
    user: uid > 0 && gid > 0,
    "pids limit": gv
      ? nproc?.Soft === record.limits.pids && nproc.Hard === record.limits.pids && hc.PidsLimit === runscHostTasks(record.limits.pids)
      : (hc.PidsLimit ?? 0) > 0 && hc.PidsLimit === record.limits.pids,
    "memory limit": (hc.Memory ?? 0) > 0 && hc.MemorySwap === hc.Memory && hc.Memory === record.limits.memoryBytes,
    "CPU limit": Math.abs((hc.NanoCpus ?? 0) / 1e9 - record.limits.cpus) < 0.01 && record.limits.cpus > 0,
    seccomp: !securityOpt.some((o) => /^seccomp[=:]unconfined$/.test(o)),
    "agent socket": tmpfs.includes(IN_ENCLOSURE.runDir) && !(info.Mounts ?? []).some((m) => m.Destination === IN_ENCLOSURE.runDir),
  };
}

/** The workspace disk limit on a remote engine: a plain volume, no limit enforced, said plainly. */
function remoteDiskCheck(info: Docker.ContainerInspectInfo, record: EnclosureRecord, engine: string, inside: string): AuditCheck {
  const mount = (info.Mounts ?? []).find((m) => m.Destination === IN_ENCLOSURE.workspace);
  return {
    item: "workspace disk limit",
    expected: `a workspace volume of at most ${record.limits.diskBytes ?? 0} bytes`,
    outside:
      `${mount?.Type ?? "no"} mount of volume ${mount?.Name ?? record.disk?.volume ?? "?"}: NOT ENFORCED on a remote engine (\`${engine}\`): ` +
      "the size limit is an ext4 image on a loop device of the engine's machine, which the control plane cannot make there; the engine's own volume driver offers a size only for tmpfs (held in memory, lost with the container)",
    inside,
    ok: false,
    unavailable: `not enforced on a remote engine (\`${engine}\`)`,
  };
}

/**
 * The checks computed without the host kernel's half, re-judged for a remote engine: an item whose
 * engine settings break it fails; every other item is unavailable, never ok.
 */
export function judgeOnRemoteEngine(checks: AuditCheck[], info: Docker.ContainerInspectInfo, record: EnclosureRecord, engine: string): AuditCheck[] {
  const hold = engineSettingsHold(info, record);
  const why = remoteUnavailable(engine);
  return checks.map((c) => {
    if (c.item === "workspace disk limit" && record.workspaceMode === "copy") return remoteDiskCheck(info, record, engine, c.inside);
    const settingsHold = hold[c.item];
    if (settingsHold === false) return { ...c, ok: false };
    return { ...c, ok: false, unavailable: why };
  });
}
