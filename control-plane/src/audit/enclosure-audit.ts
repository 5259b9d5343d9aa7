// The egress audit a security team signs: each promise of a hardened enclosure checked twice, from
// outside (what the Docker engine says the container is) and from inside (what the agent's own
// process sees in /proc and its cgroup), plus the bridge calls recorded for the conversation.
import type Docker from "dockerode";
import type { SelfAuditResponse } from "../../../proto/gen/enclave/agent/v1/info.js";
import type { EnclosureRecord } from "../conversations/conversation-store.js";
import { IN_ENCLOSURE } from "../placement/enclosure-settings.js";
import type { AuditEvent } from "./audit-log.js";

export interface AuditCheck {
  item: string;
  expected: string;
  outside: string;
  inside: string;
  ok: boolean;
}

export interface EnclosureAuditReport {
  conversationId: string;
  placement: "host" | "enclosure";
  containerId: string;
  image: string;
  relaxations: string[];
  checks: AuditCheck[];
  bridgeCalls: AuditEvent[];
  passed: boolean;
  timeMs: number;
}

const list = (xs: readonly string[]): string => (xs.length ? xs.join(", ") : "none");
const capsEmpty = (hex: string): boolean => /^0+$/.test(hex);

const mib = (bytes: number): string => `${Math.round(bytes / 1024 ** 2)} MiB`;

/**
 * The workspace's disk limit. Copy mode: the engine's volume (an ext4 loop device of the recorded
 * size) outside, the filesystem's own size inside. Bind mode makes no such promise on this engine:
 * the enclosure writes the host folder, which only the host filesystem bounds; the item says so.
 */
function diskCheck(info: Docker.ContainerInspectInfo, inside: SelfAuditResponse, record: EnclosureRecord, volume: Docker.VolumeInspectInfo | undefined): AuditCheck {
  const mount = (info.Mounts ?? []).find((m) => m.Destination === IN_ENCLOSURE.workspace);
  const insideText = inside.workspaceFsTotalBytes >= 0
    ? `/workspace on ${inside.workspaceFsType}: ${inside.workspaceFsTotalBytes} bytes total, ${inside.workspaceFsFreeBytes} free`
    : "/workspace unreadable";
  if (record.workspaceMode === "bind") {
    return {
      item: "workspace disk limit",
      expected: "copy mode: a workspace volume of a set size; bind mode: none of its own (the host folder's filesystem bounds it)",
      outside: `bind mount of a host folder${mount?.Type === "bind" ? "" : ` (engine says ${mount?.Type ?? "no mount"})`}: no limit of its own`,
      inside: insideText,
      ok: mount?.Type === "bind",
    };
  }
  const limit = record.limits.diskBytes ?? 0;
  const opts = volume?.Options ?? {};
  const labelled = Number(volume?.Labels?.["org.enclave.disk-bytes"] ?? 0);
  return {
    item: "workspace disk limit",
    expected: `a workspace volume of at most ${limit} bytes (${mib(limit)}); writes past it fail with ENOSPC inside`,
    outside: volume
      ? `${mount?.Type ?? "no"} mount of volume ${volume.Name}: ${opts.type ?? "?"} on ${opts.device ?? "?"}, ${labelled} bytes`
      : `volume ${record.disk?.volume ?? "(none recorded)"} not found by the engine`,
    inside: insideText,
    ok:
      mount?.Type === "volume" &&
      mount.Name === record.disk?.volume &&
      opts.type === "ext4" &&
      /^\/dev\/loop\d+$/.test(opts.device ?? "") &&
      labelled === limit &&
      limit > 0 &&
      inside.workspaceFsTotalBytes > 0 &&
      inside.workspaceFsTotalBytes <= limit,
  };
}

/** Both halves of every check; `ok` only when outside and inside agree with the hardened default. */
export function enclosureChecks(
  info: Docker.ContainerInspectInfo,
  inside: SelfAuditResponse,
  record: EnclosureRecord,
  workspaceVolume?: Docker.VolumeInspectInfo,
): AuditCheck[] {
  const hc = info.HostConfig;
  const securityOpt: string[] = hc.SecurityOpt ?? [];
  const seccompUnconfined = securityOpt.some((o) => /^seccomp[=:]unconfined$/.test(o));
  // The agent is reached through the engine's exec: no host folder may be mounted for it.
  const runDir = (info.Mounts ?? []).find((m) => m.Destination === IN_ENCLOSURE.runDir);
  const runDirTmpfs = Object.keys(hc.Tmpfs ?? {}).includes(IN_ENCLOSURE.runDir);
  const [uid, gid] = (info.Config.User || "0:0").split(":").map(Number);
  const cpus = (hc.NanoCpus ?? 0) / 1e9;
  return [
    {
      item: "network",
      expected: "network mode none; only the loopback interface; no route",
      outside: `network mode ${hc.NetworkMode}`,
      inside: `interfaces ${list(inside.interfaces)}; routes ${list(inside.routes)}`,
      ok: hc.NetworkMode === "none" && inside.interfaces.join(",") === "lo" && inside.routes.length === 0,
    },
    {
      item: "listening sockets",
      expected: "no TCP socket listening and no UDP socket bound (/proc/net/{tcp,tcp6,udp,udp6})",
      outside: `exposed ports ${list(Object.keys(info.Config.ExposedPorts ?? {}))}; published ${list(Object.keys(hc.PortBindings ?? {}))}`,
      inside: list(inside.listeningSockets),
      ok: inside.listeningSockets.length === 0 && Object.keys(hc.PortBindings ?? {}).length === 0,
    },
    {
      item: "capabilities",
      expected: "all dropped, none added; effective and permitted sets empty",
      outside: `dropped ${list(hc.CapDrop ?? [])}; added ${list(hc.CapAdd ?? [])}`,
      inside: `CapEff ${inside.capEff}; CapPrm ${inside.capPrm}; CapBnd ${inside.capBnd}`,
      ok: (hc.CapDrop ?? []).includes("ALL") && (hc.CapAdd ?? []).length === 0 && capsEmpty(inside.capEff) && capsEmpty(inside.capPrm),
    },
    {
      item: "no new privileges",
      expected: "no-new-privileges set",
      outside: `security options ${list(securityOpt)}`,
      inside: `NoNewPrivs ${inside.noNewPrivs ? 1 : 0}`,
      ok: securityOpt.some((o) => /^no-new-privileges(:true)?$/.test(o)) && inside.noNewPrivs,
    },
    {
      item: "read-only root",
      expected: "root filesystem mounted read-only",
      outside: `ReadonlyRootfs ${hc.ReadonlyRootfs}`,
      inside: `/ mounted ${inside.rootMountOptions || "(not found)"}`,
      ok: hc.ReadonlyRootfs === true && inside.rootReadOnly,
    },
    {
      item: "user",
      expected: "a non-root user",
      outside: `user ${info.Config.User || "(image default)"}`,
      inside: `uid ${inside.uid} gid ${inside.gid}`,
      ok: uid !== 0 && inside.uid > 0 && inside.uid === uid && inside.gid === gid,
    },
    {
      item: "pids limit",
      expected: `at most ${record.limits.pids} processes`,
      outside: `PidsLimit ${hc.PidsLimit ?? "unset"}`,
      inside: `pids.max ${inside.pidsMax < 0 ? "unlimited" : inside.pidsMax} (cgroup ${inside.cgroupVersion})`,
      ok: (hc.PidsLimit ?? 0) > 0 && inside.pidsMax === hc.PidsLimit,
    },
    {
      item: "memory limit",
      expected: `${record.limits.memoryBytes} bytes, no swap beyond it`,
      outside: `Memory ${hc.Memory ?? 0}; MemorySwap ${hc.MemorySwap ?? 0}`,
      inside: `memory limit ${inside.memoryMaxBytes < 0 ? "unlimited" : inside.memoryMaxBytes}`,
      ok: (hc.Memory ?? 0) > 0 && hc.MemorySwap === hc.Memory && inside.memoryMaxBytes === hc.Memory,
    },
    {
      item: "CPU limit",
      expected: `${record.limits.cpus} CPU`,
      outside: `NanoCpus ${hc.NanoCpus ?? 0} (${cpus} CPU)`,
      inside: `CFS quota ${inside.cpus ? `${inside.cpus} CPU` : "unlimited"}`,
      ok: cpus > 0 && Math.abs(inside.cpus - cpus) < 0.01,
    },
    {
      item: "seccomp",
      expected: "the engine's default seccomp profile, in filter mode",
      outside: seccompUnconfined ? "seccomp=unconfined" : "default profile (no override)",
      inside: `Seccomp ${inside.seccompMode} (${["disabled", "strict", "filter"][inside.seccompMode] ?? "?"}); ${inside.seccompFilters} filter(s)`,
      ok: !seccompUnconfined && inside.seccompMode === 2,
    },
    {
      item: "agent socket",
      expected: "the agent's unix socket on the container's own tmpfs, only its user can open it; reached through the engine's exec, no host folder mounted for it",
      outside: runDir ? `${IN_ENCLOSURE.runDir} is mounted from the host (${runDir.Source})!` : `${IN_ENCLOSURE.runDir} ${runDirTmpfs ? "is a tmpfs" : "is not a tmpfs"}; no host mount`,
      inside: `${inside.socketPath} mode ${inside.socketMode} owner uid ${inside.socketUid}`,
      ok: !runDir && runDirTmpfs && inside.socketMode === "600" && inside.socketUid === inside.uid,
    },
    diskCheck(info, inside, record, workspaceVolume),
  ];
}

export function formatAuditReport(r: EnclosureAuditReport): string {
  const lines: string[] = [];
  if (r.placement === "host" && r.checks.length === 0) {
    lines.push(`conversation ${r.conversationId}: host placement, and no host agent runs now (one starts, sandboxed, on the next call that needs it); audit again once it runs, or start an enclosure with \`enclave enclosure start ${r.conversationId}\``);
  } else if (r.placement === "host") {
    lines.push(`conversation ${r.conversationId}: host placement, its bubblewrap sandbox — ${r.passed ? "every check passed" : "SOME CHECKS FAILED"}`);
    if (r.relaxations.length) lines.push(`relaxed explicitly: ${r.relaxations.join("; ")}`);
    for (const c of r.checks) {
      lines.push(`${c.ok ? "ok  " : "FAIL"} ${c.item}: ${c.expected}`);
      lines.push(`       outside: ${c.outside}`);
    }
  } else {
    lines.push(`conversation ${r.conversationId}: enclosure ${r.containerId.slice(0, 12)} (${r.image}) — ${r.passed ? "every check passed" : "SOME CHECKS FAILED"}`);
    if (r.relaxations.length) lines.push(`relaxed explicitly: ${r.relaxations.join("; ")}`);
    for (const c of r.checks) {
      lines.push(`${c.ok ? "ok  " : "FAIL"} ${c.item}: ${c.expected}`);
      lines.push(`       outside: ${c.outside}`);
      lines.push(`       inside:  ${c.inside}`);
    }
  }
  lines.push(`bridge calls recorded: ${r.bridgeCalls.length}`);
  for (const e of r.bridgeCalls) {
    lines.push(`  ${new Date(e.timeMs).toISOString()} ${e.tool} (${e.tier}) ${e.argumentsDigest} ${e.outcome} ${e.durationMs} ms${e.kernelId ? ` from kernel ${e.kernelId}` : ""}`);
  }
  return lines.join("\n");
}
