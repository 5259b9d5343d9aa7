// The audit of host placement: the conversation's sandboxed host agent checked from outside, through
// the kernel's own /proc tables of its process (its status, namespaces, network devices, mount table
// and environment) — never a file the sandbox can write. What the sandbox promises (an unprivileged
// account, no capabilities, its own namespaces, no network, the workspace and its state folder the
// only writable host paths, an allow-listed environment) is checked item by item; a weakening made by
// configuration (the host network) is listed as a relaxation.
import { readFileSync, readlinkSync } from "node:fs";
import { type HostSandboxConfig, type SandboxIdentity, IN_SANDBOX, SANDBOX_CONTROLLERS } from "../model/host-sandbox.js";
import { capsEmpty, engineSocketMounts, interfacesIn, parseMountinfo, statusField, statusIds } from "../procfs/proc-tables.js";
import type { AuditCheck } from "./audit-check.js";
import type { SandboxCgroupReading, SandboxProcessFinder } from "./port.js";

/** Filesystems that are the sandbox's own (made for it, gone with it), not the host's. */
const SANDBOX_OWN_FS = new Set(["tmpfs", "proc", "devtmpfs", "devpts", "mqueue", "sysfs", "cgroup", "cgroup2"]);
const NAMESPACES = ["pid", "ipc", "uts", "mnt", "net"] as const;

export interface HostAuditInput {
  /** The agent's pid as the host sees it. */
  agentPid: number;
  /** bubblewrap's (outside the sandbox; its first child is the sandbox's init). */
  bwrapPid: number;
  /** The sandbox's cgroup; none when ENCLAVE_HOST_CGROUPS=off. */
  cgroup?: SandboxCgroupReading;
  identity: SandboxIdentity;
  config: HostSandboxConfig;
  /** The environment variables a sandbox may carry. */
  allowedEnv: readonly string[];
  processes: SandboxProcessFinder;
}

function read(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

function namespaceOf(pid: number | "self", ns: string): string {
  try {
    return readlinkSync(`/proc/${pid}/ns/${ns}`);
  } catch {
    return "";
  }
}

const OUTSIDE_ONLY = "(host placement: read from the host only; the sandbox is not asked)";

/** One of the sandbox's processes as the host's /proc shows it, or undefined when it is gone. */
function processAt(pid: number): { pid: number; ppid: number; innerPid: number; status: string; cmd: string } | undefined {
  const status = read(`/proc/${pid}/status`);
  if (!status) return undefined;
  const nspid = statusField(status, "NSpid").split(/\s+/).map(Number);
  const cmd = read(`/proc/${pid}/cmdline`).replace(/\0/g, " ").trim().slice(0, 80);
  return { pid, ppid: Number(statusField(status, "PPid")), innerPid: nspid.at(-1) ?? pid, status, cmd };
}

/** What is wrong with a sandbox process's credentials, or "" when nothing is. */
function offence(status: string, identity: SandboxIdentity): string {
  const uids = statusIds(status, "Uid");
  const gids = statusIds(status, "Gid");
  const why: string[] = [];
  if (!uids.every((u) => u === identity.uid) || !gids.every((g) => g === identity.gid)) why.push(`uids ${uids.join(" ")}`);
  const caps = ["CapEff", "CapPrm", "CapInh", "CapAmb"].filter((c) => !capsEmpty(statusField(status, c)));
  if (caps.length) why.push(`capabilities in ${caps.join(", ")}`);
  if (statusField(status, "NoNewPrivs") !== "1") why.push("new privileges allowed");
  if (statusField(status, "Seccomp") !== "2") why.push("no seccomp filter");
  return why.join(", ");
}

/**
 * Every process of the sandbox, read through its cgroup (or its pid namespace when it has none),
 * each checked; and the cgroup itself: its limits, and that it holds exactly the sandbox's processes.
 * bubblewrap's own two processes (outside, and the sandbox's init) are Enclave's and set up the rest.
 */
function processChecks(input: HostAuditInput): AuditCheck[] {
  const { bwrapPid, cgroup, identity, config, processes } = input;
  let namespace = "";
  try {
    namespace = processes.namespaceOf(bwrapPid);
  } catch {
    // No process left in it: the checks below fail on the empty list.
  }
  const inNamespace = namespace ? processes.processesIn(namespace).map((p) => p.hostPid) : [];
  let members: number[] = [];
  let byController: number[][] = [];
  let limits = "";
  try {
    members = cgroup ? cgroup.members() : [bwrapPid, ...inNamespace];
    byController = cgroup ? SANDBOX_CONTROLLERS.map((c) => cgroup.members(c).sort((a, b) => a - b)) : [];
    if (cgroup) {
      const now = cgroup.current();
      limits = `pids.max ${now.pidsMax}, memory ${now.memoryBytes}, cpu.shares ${now.cpuShares}`;
    }
  } catch (err) {
    limits = `unreadable (${(err as Error).message})`;
  }
  const procs = members.map(processAt).filter((p): p is NonNullable<typeof p> => !!p);
  const own = new Set(procs.filter((p) => p.pid === bwrapPid || (p.ppid === bwrapPid && p.innerPid === 1)).map((p) => p.pid));
  const offenders = procs
    .filter((p) => !own.has(p.pid))
    .flatMap((p) => {
      const why = offence(p.status, identity);
      return why ? [`${p.pid} (${p.cmd}): ${why}`] : [];
    });
  const memberSet = new Set(members);
  const outside = inNamespace.filter((pid) => !memberSet.has(pid) && processAt(pid));
  const foreign = members.filter((pid) => pid !== bwrapPid && !inNamespace.includes(pid) && processAt(pid));
  const want = config.limits;
  // The kernel keeps a memory limit in whole pages.
  const wanted = `pids.max ${want.pidsMax}, memory ${Math.floor(want.memoryBytes / 4096) * 4096}, cpu.shares ${want.cpuShares}`;
  const sameEverywhere = byController.every((list) => list.join(",") === byController[0]?.join(","));
  return [
    {
      item: "sandbox processes",
      expected: `every process of the sandbox (its cgroup's) runs as ${identity.uid}:${identity.gid} with no capability, no-new-privileges and the seccomp filter`,
      outside: offenders.length ? offenders.join("; ") : `${procs.length - own.size} processes, none privileged`,
      inside: OUTSIDE_ONLY,
      ok: procs.some((p) => p.pid === input.agentPid) && offenders.length === 0,
    },
    {
      item: "cgroup",
      expected: config.cgroups
        ? `a cgroup of its own (${wanted}) holding every process of the sandbox and no other`
        : "no cgroup (relaxed by ENCLAVE_HOST_CGROUPS=off)",
      outside: [
        cgroup ? limits : "none",
        outside.length ? `sandbox processes outside it: ${outside.join(", ")}` : "",
        foreign.length ? `processes of other namespaces in it: ${foreign.join(", ")}` : "",
        sameEverywhere ? "" : "controllers list different processes",
      ]
        .filter(Boolean)
        .join("; "),
      inside: OUTSIDE_ONLY,
      ok: config.cgroups ? !!cgroup && limits === wanted && outside.length === 0 && foreign.length === 0 && sameEverywhere : !cgroup,
    },
  ];
}

export function hostChecks(input: HostAuditInput): AuditCheck[] {
  const { agentPid, identity, config } = input;
  const status = read(`/proc/${agentPid}/status`);
  const uids = statusIds(status, "Uid");
  const gids = statusIds(status, "Gid");
  const caps = ["CapEff", "CapPrm", "CapInh", "CapBnd", "CapAmb"].map((c) => [c, statusField(status, c)] as const);
  const nnp = statusField(status, "NoNewPrivs");
  const shared = NAMESPACES.filter((ns) => namespaceOf(agentPid, ns) === namespaceOf("self", ns));
  const sharedExpected = config.network ? ["net"] : [];
  const interfaces = interfacesIn(read(`/proc/${agentPid}/net/dev`));
  const mounts = parseMountinfo(read(`/proc/${agentPid}/mountinfo`));
  const writableHost = mounts
    .filter((m) => !m.options.includes("ro") && !SANDBOX_OWN_FS.has(m.fsType))
    .map((m) => m.mountPoint)
    .sort();
  const allowedWritable = [IN_SANDBOX.state, IN_SANDBOX.workspace].sort();
  const engineSockets = engineSocketMounts(mounts);
  const envKeys = read(`/proc/${agentPid}/environ`)
    .split("\0")
    .filter(Boolean)
    .map((kv) => kv.slice(0, kv.indexOf("=")));
  const strayEnv = envKeys.filter((k) => !input.allowedEnv.includes(k));
  return [
    {
      item: "user",
      expected: `the unprivileged account ${identity.uid}:${identity.gid}, never root`,
      outside: `uids ${uids.join(" ")}; gids ${gids.join(" ")}`,
      inside: OUTSIDE_ONLY,
      ok: uids.length === 4 && uids.every((u) => u === identity.uid && u !== 0) && gids.every((g) => g === identity.gid && g !== 0),
    },
    {
      item: "capabilities",
      expected: "no capability in any set; no-new-privileges",
      outside: `${caps.map(([c, v]) => `${c} ${v}`).join(", ")}; NoNewPrivs ${nnp}`,
      inside: OUTSIDE_ONLY,
      ok: caps.every(([, v]) => v !== "" && capsEmpty(v)) && nnp === "1",
    },
    {
      item: "namespaces",
      expected: `its own ${NAMESPACES.filter((ns) => !sharedExpected.includes(ns)).join(", ")} namespaces${config.network ? " (the network is the host's: ENCLAVE_HOST_NETWORK=on)" : ""}`,
      outside: shared.length ? `shares the control plane's ${shared.join(", ")}` : "shares none of the control plane's",
      inside: OUTSIDE_ONLY,
      ok: status !== "" && shared.join(",") === sharedExpected.join(","),
    },
    {
      item: "network",
      expected: config.network ? "the host's network (relaxed by ENCLAVE_HOST_NETWORK=on)" : "only the loopback interface",
      outside: `interfaces ${interfaces.join(", ") || "none"}`,
      inside: OUTSIDE_ONLY,
      ok: config.network || interfaces.join(",") === "lo",
    },
    {
      item: "writable host paths",
      expected: `only ${allowedWritable.join(" and ")} (the rest of the host read-only; /tmp and home the sandbox's own)`,
      outside: `writable mounts of host filesystems: ${writableHost.join(", ") || "none"}`,
      inside: OUTSIDE_ONLY,
      ok: mounts.length > 0 && writableHost.join(",") === allowedWritable.join(","),
    },
    {
      item: "engine sockets",
      expected: "no container engine's socket mounted",
      outside: engineSockets.length ? engineSockets.join(", ") : "none",
      inside: OUTSIDE_ONLY,
      ok: mounts.length > 0 && engineSockets.length === 0,
    },
    {
      item: "environment",
      expected: `only ${input.allowedEnv.join(", ")}`,
      outside: strayEnv.length ? `also ${strayEnv.join(", ")}` : `${envKeys.length} allowed variables`,
      inside: OUTSIDE_ONLY,
      ok: envKeys.length > 0 && strayEnv.length === 0,
    },
    ...processChecks(input),
  ];
}
