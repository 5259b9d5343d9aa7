// The egress audit a security team signs: each promise of a hardened enclosure checked twice. The
// outside half is authoritative: what the Docker engine says the container is, and what the host's
// kernel says its processes are (read by the control plane from the host's /proc and cgroup files,
// see host-view.ts) — or, under gVisor, what gVisor's kernel says (gvisor-view.ts) beside what the
// host's kernel says of the sandbox. The inside half is what the agent reports of itself; code in the
// enclosure can replace or deceive the agent, so that half only confirms, and a disagreement fails.
//
// Under runsc the host sees gVisor's sandbox, not the enclosure's processes: its outside half is the
// engine's settings, gVisor's kernel's tables, and on the host the sandbox's own confinement — every
// host process of the container is the registered runsc binary, the sandbox in a user namespace that
// maps no host root, its file proxy with file capabilities only, each under a seccomp filter and
// no-new-privileges, in network namespaces with only loopback and no socket — and the cgroup limits,
// which bound the sandbox as a whole. gVisor's /proc shows no NoNewPrivs line and no cgroup files, so
// those inside values are "not shown" there rather than a disagreement.
import type Docker from "dockerode";
import type { SelfAuditResponse } from "../../../proto/gen/enclave/agent/v1/info.js";
import { type EnclosureRuntime, IN_ENCLOSURE } from "../model/enclosure.js";
import type { EnclosureRecord } from "../model/conversation.js";
import { type RunscRegistration, runscHostTasks } from "../placement/gvisor-runtime.js";
import type { AuditEvent } from "./audit-log.js";
import type { GvisorView } from "./gvisor-view.js";
import type { HostProcess, HostView } from "./host-view.js";
import { capsEmpty, capsWithin, engineSocketMounts, mountAt, type MountEntry, parseIdMap } from "./proc-tables.js";

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

/** The capabilities runsc gives its file proxy (runsc-gofer): CHOWN, DAC_OVERRIDE, DAC_READ_SEARCH,
 * FOWNER, FSETID and SYS_CHROOT. It serves the enclosure's files and runs nothing of the enclosure's. */
const GOFER_CAPS = 0x4001fn;

const list = (xs: readonly string[]): string => (xs.length ? xs.join(", ") : "none");
const NOT_ASKED = "not reported by the agent (the outside half decides)";
const bad = (e: Error | undefined): string => `could not be read: ${e?.message ?? "not read"}`;

function hostProcessLabel(p: HostProcess): string {
  return `${p.pid} (${(p.argv[0] ?? "").split("/").at(-1) || p.exe || "?"})`;
}

/** "all 7 processes <what>" or the ones that are not, by pid. */
function every<T>(xs: readonly T[], good: (x: T) => boolean, what: string, label: (x: T) => string, describe: (x: T) => string): { ok: boolean; text: string } {
  const offenders = xs.filter((x) => !good(x));
  if (!xs.length) return { ok: false, text: "no process found" };
  if (!offenders.length) return { ok: true, text: `all ${xs.length} process${xs.length === 1 ? "" : "es"} ${what}` };
  return { ok: false, text: `${offenders.length} of ${xs.length} not: ${offenders.slice(0, 5).map((x) => `${label(x)} ${describe(x)}`).join("; ")}${offenders.length > 5 ? "; …" : ""}` };
}

/** gVisor's host processes: the sandbox (and its platform stubs) or the file proxy. */
function gvisorRole(p: HostProcess): "sandbox" | "file proxy" | "stub" {
  if (p.argv[0] === "runsc-gofer") return "file proxy";
  if (p.argv[0] === "runsc-sandbox") return "sandbox";
  return "stub";
}

/** A user namespace of its own that maps no id to the host's root. */
function confinedUserNamespace(p: HostProcess): boolean {
  return p.uidMap !== "" && parseIdMap(p.uidMap).every((m) => m.outside > 0);
}

function cgroupText(host: HostView, what: string): string {
  return `host cgroup (${host.cgroup.version}) ${what}`;
}

function tmpfsAt(mounts: readonly MountEntry[], path: string): boolean {
  return mountAt(mounts, path)?.fsType === "tmpfs";
}

const mib = (bytes: number): string => `${Math.round(bytes / 1024 ** 2)} MiB`;

/**
 * The workspace's disk limit. Copy mode: the engine's volume (an ext4 loop device of the recorded
 * size) outside, the filesystem's own size inside. Bind mode makes no such promise on this engine:
 * the enclosure writes the host folder, which only the host filesystem bounds; the item says so.
 */
function diskCheck(info: Docker.ContainerInspectInfo, inside: SelfAuditResponse | undefined, insideText: (f: (i: SelfAuditResponse) => string) => string, record: EnclosureRecord, volume: Docker.VolumeInspectInfo | undefined): AuditCheck {
  const mount = (info.Mounts ?? []).find((m) => m.Destination === IN_ENCLOSURE.workspace);
  const fsText = insideText((i) =>
    i.workspaceFsTotalBytes >= 0 ? `/workspace on ${i.workspaceFsType}: ${i.workspaceFsTotalBytes} bytes total, ${i.workspaceFsFreeBytes} free` : "/workspace unreadable",
  );
  if (record.workspaceMode === "bind") {
    return {
      item: "workspace disk limit",
      expected: "copy mode: a workspace volume of a set size; bind mode: none of its own (the host folder's filesystem bounds it)",
      outside: `bind mount of a host folder${mount?.Type === "bind" ? "" : ` (engine says ${mount?.Type ?? "no mount"})`}: no limit of its own`,
      inside: fsText,
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
    inside: fsText,
    ok:
      mount?.Type === "volume" &&
      mount.Name === record.disk?.volume &&
      opts.type === "ext4" &&
      /^\/dev\/loop\d+$/.test(opts.device ?? "") &&
      labelled === limit &&
      limit > 0 &&
      !!inside &&
      inside.workspaceFsTotalBytes > 0 &&
      inside.workspaceFsTotalBytes <= limit,
  };
}

/** Both halves of every check; `ok` only when the outside half holds and the inside half agrees. */
export function enclosureChecks(outside: OutsideView, inside: SelfAuditResponse | Error, record: EnclosureRecord): AuditCheck[] {
  const { info } = outside;
  const hc = info.HostConfig;
  const runtime: EnclosureRuntime = record.runtime;
  const gv = runtime === "runsc";
  const host = outside.host instanceof Error ? undefined : outside.host;
  const hostError = outside.host instanceof Error ? outside.host : undefined;
  const gvisor = outside.gvisor instanceof Error ? undefined : outside.gvisor;
  const gvisorError = gv ? (outside.gvisor instanceof Error ? outside.gvisor : outside.gvisor ? undefined : new Error("not read")) : undefined;
  const reg = outside.runsc instanceof Error ? undefined : outside.runsc;
  const ins = inside instanceof Error ? undefined : inside;
  const insideText = (f: (i: SelfAuditResponse) => string): string => (ins ? f(ins) : `the agent did not answer: ${(inside as Error).message}`);
  /** The kernel half: the host's (runc) or gVisor's (runsc), or why it could not be read. */
  const kernelError = gv ? (gvisorError ?? hostError) : hostError;
  const kernelName = gv ? "gVisor's kernel" : "host kernel";

  const securityOpt: string[] = hc.SecurityOpt ?? [];
  const seccompUnconfined = securityOpt.some((o) => /^seccomp[=:]unconfined$/.test(o));
  const [uid = -1, gid = -1] = (info.Config.User || "0:0").split(":").map(Number);
  const cpus = (hc.NanoCpus ?? 0) / 1e9;
  const sandbox = host?.processes.find((p) => p.pid === host.initPid);
  const sandboxFlag = (flag: string): boolean => !!sandbox?.argv.includes(flag);
  const hostNets = host?.networks ?? [];
  const hostListening = hostNets.flatMap((n) => n.listening);

  const checks: AuditCheck[] = [];
  const add = (c: AuditCheck): void => {
    checks.push(c);
  };

  // runtime
  {
    let outsideText: string;
    let ok: boolean;
    if (!host) {
      outsideText = `engine runtime ${hc.Runtime || "(default)"}; host processes ${bad(hostError)}`;
      ok = false;
    } else if (!gv) {
      const foreign = host.processes.filter((p) => /^runsc-/.test(p.argv[0] ?? ""));
      outsideText = `engine runtime ${hc.Runtime || "(default)"}; host kernel: ${host.processes.length} process(es) of the enclosure${foreign.length ? `, ${foreign.length} of them gVisor's` : ""}`;
      ok = hc.Runtime === "runc" && !foreign.length;
    } else {
      const roles = host.processes.map(gvisorRole);
      const notRunsc = host.processes.filter((p) => !reg || p.exe !== reg.path);
      outsideText =
        `engine runtime ${hc.Runtime || "(default)"}${reg ? ` (${reg.path} ${reg.runtimeArgs.join(" ")})` : outside.runsc instanceof Error ? ` (registration ${bad(outside.runsc)})` : ""}; ` +
        `host kernel: ${host.processes.length} process(es), ${roles.filter((r) => r === "sandbox").length} sandbox, ${roles.filter((r) => r === "file proxy").length} file proxy, ${roles.filter((r) => r === "stub").length} platform stub(s)` +
        (notRunsc.length ? `; not the runsc binary: ${notRunsc.map((p) => `${hostProcessLabel(p)} ${p.exe || "?"}`).join(", ")}` : "");
      ok = hc.Runtime === "runsc" && !!reg && !notRunsc.length && sandbox?.argv[0] === "runsc-sandbox";
    }
    add({
      item: "runtime",
      expected: gv
        ? "runsc (gVisor): the enclosure runs on gVisor's user-space kernel; on the host only the registered runsc binary runs (its sandbox and file proxy)"
        : "runc: the enclosure's processes run on the host's kernel, in namespaces of their own",
      outside: outsideText,
      inside: NOT_ASKED,
      ok,
    });
  }

  // network
  {
    const hostNetText = host ? [...new Set(hostNets.map((n) => `interfaces ${list(n.interfaces)}; routes ${list(n.routes)}`))].join(" | ") : bad(hostError);
    const hostNetOk = !!host && hostNets.every((n) => n.interfaces.join(",") === "lo" && n.routes.length === 0);
    const gvisorOk = !gv || (!!gvisor && gvisor.interfaces.join(",") === "lo" && gvisor.routes.length === 0 && sandboxFlag("--network=none"));
    const outsideText = gv
      ? `network mode ${hc.NetworkMode}; gVisor's network stack ${sandboxFlag("--network=none") ? "off (--network=none)" : "not started with --network=none"}; ` +
        `gVisor's kernel: ${gvisor ? `interfaces ${list(gvisor.interfaces)}; routes ${list(gvisor.routes)}` : bad(gvisorError)}; gVisor's ${hostNets.length} host network namespace(s): ${hostNetText}`
      : `network mode ${hc.NetworkMode}; host kernel, ${hostNets.length} network namespace(s): ${hostNetText}`;
    add({
      item: "network",
      expected: "network mode none; only the loopback interface; no route",
      outside: outsideText,
      inside: insideText((i) => `interfaces ${list(i.interfaces)}; routes ${list(i.routes)}`),
      ok: hc.NetworkMode === "none" && hostNetOk && gvisorOk && !!ins && ins.interfaces.join(",") === "lo" && ins.routes.length === 0,
    });
  }

  // listening sockets
  {
    const published = Object.keys(hc.PortBindings ?? {});
    const kernelListening = gv ? gvisor?.listening : host ? hostListening : undefined;
    const outsideText = gv
      ? `gVisor's kernel: ${gvisor ? list(gvisor.listening) : bad(gvisorError)}; gVisor's host network namespaces: ${host ? list(hostListening) : bad(hostError)}; published ports ${list(published)}`
      : `host kernel: ${host ? list(hostListening) : bad(hostError)}; published ports ${list(published)}`;
    add({
      item: "listening sockets",
      expected: "no TCP socket listening and no UDP socket bound (/proc/net/{tcp,tcp6,udp,udp6})",
      outside: outsideText,
      inside: insideText((i) => list(i.listeningSockets)),
      ok: !!kernelListening && kernelListening.length === 0 && !!host && hostListening.length === 0 && published.length === 0 && !!ins && ins.listeningSockets.length === 0,
    });
  }

  // capabilities
  {
    const engine = `dropped ${list(hc.CapDrop ?? [])}; added ${list(hc.CapAdd ?? [])}`;
    const engineOk = (hc.CapDrop ?? []).includes("ALL") && (hc.CapAdd ?? []).length === 0;
    let kernel: { ok: boolean; text: string };
    let sandboxSide = { ok: true, text: "" };
    if (gv) {
      kernel = gvisor
        ? every(gvisor.processes, (p) => capsEmpty(p.capEff) && capsEmpty(p.capPrm) && capsEmpty(p.capBnd), "with CapEff, CapPrm and CapBnd empty", (p) => `${p.pid} (${p.name})`, (p) => `CapEff ${p.capEff} CapPrm ${p.capPrm} CapBnd ${p.capBnd}`)
        : { ok: false, text: bad(gvisorError) };
      sandboxSide = host
        ? every(
            host.processes,
            (p) => (gvisorRole(p) === "file proxy" && p.uidMap === "" ? capsWithin(p.capEff, GOFER_CAPS) && capsWithin(p.capPrm, GOFER_CAPS) : confinedUserNamespace(p)),
            "in a user namespace mapping no host root, or the file proxy with file capabilities only",
            hostProcessLabel,
            (p) => `uid_map ${p.uidMap.trim().replace(/\s+/g, " ") || "(the host's)"} CapEff ${p.capEff}`,
          )
        : { ok: false, text: bad(hostError) };
    } else {
      kernel = host
        ? every(host.processes, (p) => capsEmpty(p.capEff) && capsEmpty(p.capPrm) && capsEmpty(p.capBnd), "with CapEff, CapPrm and CapBnd empty", hostProcessLabel, (p) => `CapEff ${p.capEff} CapPrm ${p.capPrm} CapBnd ${p.capBnd}`)
        : { ok: false, text: bad(hostError) };
    }
    add({
      item: "capabilities",
      expected: "all dropped, none added; effective, permitted and bounding sets empty in every process",
      outside: `${engine}; ${kernelName}: ${kernel.text}${gv ? `; gVisor on the host: ${sandboxSide.text}` : ""}`,
      inside: insideText((i) => `CapEff ${i.capEff}; CapPrm ${i.capPrm}; CapBnd ${i.capBnd}`),
      ok: engineOk && kernel.ok && sandboxSide.ok && !!ins && capsEmpty(ins.capEff) && capsEmpty(ins.capPrm),
    });
  }

  // no new privileges
  {
    const option = securityOpt.some((o) => /^no-new-privileges(:true)?$/.test(o));
    const kernel = host
      ? every(host.processes, (p) => p.noNewPrivs === "1", "with NoNewPrivs 1", hostProcessLabel, (p) => `NoNewPrivs ${p.noNewPrivs || "(not shown)"}`)
      : { ok: false, text: bad(hostError) };
    add({
      item: "no new privileges",
      expected: "no-new-privileges set",
      outside: `security options ${list(securityOpt)}; host kernel${gv ? ", gVisor's processes" : ""}: ${kernel.text}${gv ? "; gVisor's kernel does not show the flag" : ""}`,
      inside: insideText((i) => (i.noNewPrivsShown || !gv ? `NoNewPrivs ${i.noNewPrivs ? 1 : 0}` : "NoNewPrivs not shown (gVisor's /proc has no such line)")),
      ok: option && kernel.ok && !!ins && (ins.noNewPrivs || (gv && !ins.noNewPrivsShown)),
    });
  }

  // read-only root
  {
    const mounts = gv ? gvisor?.mounts : host?.mounts;
    const root = mounts ? mountAt(mounts, "/") : undefined;
    add({
      item: "read-only root",
      expected: "root filesystem mounted read-only",
      outside: `ReadonlyRootfs ${hc.ReadonlyRootfs}; ${kernelName}: ${mounts ? (root ? `/ mounted ${root.options.join(",")} (${root.fsType})` : "/ not found") : bad(kernelError)}`,
      inside: insideText((i) => `/ mounted ${i.rootMountOptions || "(not found)"}`),
      ok: hc.ReadonlyRootfs === true && !!root?.options.includes("ro") && !!ins?.rootReadOnly,
    });
  }

  // mounts
  {
    const engineMounts = (info.Mounts ?? []).map((m) => ({ root: m.Source ?? "", mountPoint: m.Destination ?? "", rw: m.RW, type: m.Type }));
    const engineSockets = engineSocketMounts(engineMounts);
    const mounts = gv ? gvisor?.mounts : host?.mounts;
    const kernelSockets = mounts && !gv ? engineSocketMounts(mounts) : [];
    const tmpfs = mounts ? [ "/tmp", IN_ENCLOSURE.home ].map((p) => `${p} ${tmpfsAt(mounts, p) ? "tmpfs" : "NOT tmpfs"}`) : [];
    const kernelOk = !!mounts && ["/tmp", IN_ENCLOSURE.home].every((p) => tmpfsAt(mounts, p)) && kernelSockets.length === 0;
    // The workspace is the one writable mount the engine holds that Enclave makes; any other (an
    // image's VOLUME, say) is disk nothing bounds. Tmpfs mounts are bounded and not listed here.
    const foreign = engineMounts.filter((m) => m.rw && m.mountPoint !== IN_ENCLOSURE.workspace);
    add({
      item: "mounts",
      expected: "/tmp and the home folder on tmpfs; no container engine socket mounted; no writable mount but /workspace",
      outside:
        `engine: ${list(engineMounts.map((m) => `${m.mountPoint} (${m.type}, ${m.rw ? "rw" : "ro"})`))}; ` +
        `writable mounts not Enclave's: ${list(foreign.map((m) => m.mountPoint))}; ` +
        `${kernelName}: ${mounts ? `${tmpfs.join(", ")}; engine sockets ${list([...engineSockets, ...kernelSockets])}` : bad(kernelError)}`,
      inside: NOT_ASKED,
      ok: kernelOk && engineSockets.length === 0 && foreign.length === 0,
    });
  }

  // user
  {
    const kernel = gv
      ? gvisor
        ? every(gvisor.processes, (p) => p.uids.every((u) => u === uid) && p.gids.every((g) => g === gid), `as uid ${uid} gid ${gid}`, (p) => `${p.pid} (${p.name})`, (p) => `uid ${p.uids.join("/")} gid ${p.gids.join("/")}`)
        : { ok: false, text: bad(gvisorError) }
      : host
        ? every(host.processes, (p) => p.uids.every((u) => u === uid) && p.gids.every((g) => g === gid), `as uid ${uid} gid ${gid}`, hostProcessLabel, (p) => `uid ${p.uids.join("/")} gid ${p.gids.join("/")}`)
        : { ok: false, text: bad(hostError) };
    add({
      item: "user",
      expected: "a non-root user, the enclosure's own (the uid recorded for its conversation)",
      outside: `user ${info.Config.User || "(image default)"}${info.Config.User === record.user ? "" : ` (recorded: ${record.user})`}; ${kernelName}: ${kernel.text}`,
      inside: insideText((i) => `uid ${i.uid} gid ${i.gid}`),
      ok: uid > 0 && gid > 0 && info.Config.User === record.user && kernel.ok && !!ins && ins.uid === uid && ins.gid === gid,
    });
  }

  // cgroup limits: read from the host for both runtimes (under runsc they bound the whole sandbox).
  const notShown = "not shown (gVisor has no cgroup files inside)";
  {
    const hostPids = host?.cgroup.pidsMax;
    const pidsText = (n: number | undefined): string => (n === undefined ? "?" : n < 0 ? "unlimited" : String(n));
    const cgroupSide = host ? cgroupText(host, `pids.max ${pidsText(hostPids)}`) : `host cgroup ${bad(hostError)}`;
    if (!gv) {
      add({
        item: "pids limit",
        expected: `at most ${record.limits.pids} processes`,
        outside: `PidsLimit ${hc.PidsLimit ?? "unset"}; ${cgroupSide}`,
        inside: insideText((i) => `pids.max ${i.pidsMax < 0 ? "unlimited" : i.pidsMax} (cgroup ${i.cgroupVersion})`),
        ok: (hc.PidsLimit ?? 0) > 0 && hostPids === hc.PidsLimit && !!ins && ins.pidsMax === hostPids,
      });
    } else {
      // Under gVisor the limit is gVisor's RLIMIT_NPROC; the cgroup bounds gVisor's own host tasks.
      const nproc = (hc.Ulimits ?? []).find((u) => u.Name === "nproc");
      const wantHost = runscHostTasks(record.limits.pids);
      const inGvisor = gvisor ? (gvisor.nprocHard === -2 ? "not read" : pidsText(gvisor.nprocHard)) : bad(gvisorError);
      add({
        item: "pids limit",
        expected: `at most ${record.limits.pids} processes, enforced by gVisor (RLIMIT_NPROC); gVisor's own host tasks at most ${wantHost} (cgroup)`,
        outside: `nproc ulimit ${nproc ? `${nproc.Soft}/${nproc.Hard}` : "unset"}; PidsLimit ${hc.PidsLimit ?? "unset"}; ${cgroupSide}; gVisor's kernel: a process started inside is limited to ${inGvisor}`,
        inside: insideText((i) => (i.pidsMax < 0 ? "pids.max not shown (gVisor has no cgroup files inside)" : `pids.max ${i.pidsMax} (cgroup ${i.cgroupVersion})`)),
        ok:
          nproc?.Soft === record.limits.pids &&
          nproc.Hard === record.limits.pids &&
          gvisor?.nprocHard === record.limits.pids &&
          hc.PidsLimit === wantHost &&
          hostPids === wantHost &&
          !!ins &&
          ins.pidsMax < 0,
      });
    }
  }
  {
    const c = host?.cgroup;
    const swapOk = !!c && (c.swapBytes === undefined || c.swapBytes === 0);
    const insideAgrees = !!ins && (ins.memoryMaxBytes === c?.memoryBytes || (gv && ins.memoryMaxBytes < 0));
    add({
      item: "memory limit",
      expected: `${record.limits.memoryBytes} bytes, no swap beyond it`,
      outside: `Memory ${hc.Memory ?? 0}; MemorySwap ${hc.MemorySwap ?? 0}; ${c && host ? cgroupText(host, `memory limit ${c.memoryBytes < 0 ? "unlimited" : c.memoryBytes}, swap beyond it ${c.swapBytes === undefined ? "not accounted" : c.swapBytes < 0 ? "unlimited" : c.swapBytes}`) : `host cgroup ${bad(hostError)}`}`,
      inside: insideText((i) => (gv && i.memoryMaxBytes < 0 ? `memory limit ${notShown}` : `memory limit ${i.memoryMaxBytes < 0 ? "unlimited" : i.memoryMaxBytes}`)),
      ok: (hc.Memory ?? 0) > 0 && hc.MemorySwap === hc.Memory && c?.memoryBytes === hc.Memory && swapOk && insideAgrees,
    });
  }
  {
    const c = host?.cgroup;
    const hostCpus = c && c.cpuQuotaUs > 0 && c.cpuPeriodUs > 0 ? c.cpuQuotaUs / c.cpuPeriodUs : 0;
    const insideAgrees = !!ins && (Math.abs(ins.cpus - hostCpus) < 0.01 || (gv && ins.cpus === 0));
    add({
      item: "CPU limit",
      expected: `${record.limits.cpus} CPU`,
      outside: `NanoCpus ${hc.NanoCpus ?? 0} (${cpus} CPU); ${c && host ? cgroupText(host, `CFS quota ${hostCpus ? `${c.cpuQuotaUs}/${c.cpuPeriodUs} µs = ${hostCpus} CPU` : "unlimited"}`) : `host cgroup ${bad(hostError)}`}`,
      inside: insideText((i) => (gv && i.cpus === 0 ? `CFS quota ${notShown}` : `CFS quota ${i.cpus ? `${i.cpus} CPU` : "unlimited"}`)),
      ok: cpus > 0 && Math.abs(hostCpus - cpus) < 0.01 && insideAgrees,
    });
  }

  // seccomp
  {
    const engine = seccompUnconfined ? "seccomp=unconfined" : "default profile (no override)";
    const hostSide = host
      ? every(host.processes, (p) => p.seccomp === 2, "in seccomp filter mode", hostProcessLabel, (p) => `Seccomp ${p.seccomp}`)
      : { ok: false, text: bad(hostError) };
    // Under gVisor the enclosure's calls go to gVisor's kernel, which runs under its own filter on the
    // host; the engine's profile is not applied inside (Debian's runsc cannot start threads under it),
    // so its processes show Seccomp 0 there, and the agent must say the same.
    const gvisorModes = gvisor ? [...new Set(gvisor.processes.map((p) => p.seccomp))] : [];
    const gvisorText = gvisor ? `processes in seccomp mode ${list(gvisorModes.map(String))}` : bad(gvisorError);
    add({
      item: "seccomp",
      expected: gv
        ? "gVisor's kernel answers the enclosure's system calls, and gVisor runs under its own seccomp filter on the host"
        : "the engine's default seccomp profile, in filter mode",
      outside: gv ? `${engine}; host kernel, gVisor's processes: ${hostSide.text}; gVisor's kernel: ${gvisorText}` : `${engine}; host kernel: ${hostSide.text}`,
      inside: insideText((i) => `Seccomp ${i.seccompMode} (${["disabled", "strict", "filter"][i.seccompMode] ?? "?"}); ${i.seccompFilters} filter(s)`),
      ok: gv
        ? !seccompUnconfined && hostSide.ok && gvisorModes.length === 1 && ins?.seccompMode === gvisorModes[0]
        : !seccompUnconfined && hostSide.ok && ins?.seccompMode === 2,
    });
  }

  // agent socket: on the container's own tmpfs, reached through the engine's exec; no host folder.
  {
    const runDir = (info.Mounts ?? []).find((m) => m.Destination === IN_ENCLOSURE.runDir);
    const engineTmpfs = Object.keys(hc.Tmpfs ?? {}).includes(IN_ENCLOSURE.runDir);
    const mounts = gv ? gvisor?.mounts : host?.mounts;
    const kernelTmpfs = !!mounts && tmpfsAt(mounts, IN_ENCLOSURE.runDir);
    add({
      item: "agent socket",
      expected: "the agent's unix socket on the container's own tmpfs, only its user can open it; reached through the engine's exec, no host folder mounted for it",
      outside: runDir
        ? `${IN_ENCLOSURE.runDir} is mounted from the host (${runDir.Source})!`
        : `${IN_ENCLOSURE.runDir} ${engineTmpfs ? "is a tmpfs" : "is not a tmpfs"}; no host mount; ${kernelName}: ${mounts ? `${IN_ENCLOSURE.runDir} ${kernelTmpfs ? "tmpfs" : "NOT tmpfs"}` : bad(kernelError)}`,
      inside: insideText((i) => `${i.socketPath} mode ${i.socketMode} owner uid ${i.socketUid}`),
      ok: !runDir && engineTmpfs && kernelTmpfs && !!ins && ins.socketMode === "600" && ins.socketUid === ins.uid,
    });
  }
  checks.push(diskCheck(info, ins, insideText, record, outside.volume));
  return checks;
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
    const failed = r.checks.some((c) => !c.ok && !c.unavailable);
    const verdict = r.passed ? "every check passed" : failed ? "SOME CHECKS FAILED" : "NOT EVERY CHECK COULD BE MADE (none failed)";
    lines.push(`conversation ${r.conversationId}: enclosure ${r.containerId.slice(0, 12)} (${r.image}, runtime ${r.runtime}) — ${verdict}`);
    if (r.relaxations.length) lines.push(`relaxed explicitly: ${r.relaxations.join("; ")}`);
    const unavailable = r.checks.filter((c) => c.unavailable);
    if (unavailable.length) {
      lines.push(`NOT VERIFIED: ${unavailable.length} of ${r.checks.length} item(s) could not be checked from outside (n/a below); the agent's own report is shown for them but decides nothing`);
    }
    for (const c of r.checks) {
      lines.push(`${c.ok ? "ok  " : c.unavailable ? "n/a " : "FAIL"} ${c.item}: ${c.expected}`);
      lines.push(`       outside: ${c.outside}`);
      if (c.unavailable) lines.push(`       not checked: ${c.unavailable}`);
      lines.push(`       inside (reported by the agent): ${c.inside}`);
    }
  }
  lines.push(`bridge calls recorded: ${r.bridgeCalls.length}`);
  for (const e of r.bridgeCalls) {
    lines.push(`  ${new Date(e.timeMs).toISOString()} ${e.tool} (${e.tier}) ${e.argumentsDigest} ${e.outcome} ${e.durationMs} ms${e.kernelId ? ` from kernel ${e.kernelId}` : ""}`);
  }
  return lines.join("\n");
}
