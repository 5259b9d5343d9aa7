// The egress audit's authoritative outside half: what the host's kernel says about an enclosure,
// read by the control plane itself from the host's /proc and cgroup filesystems — every process in
// the container's cgroup (capabilities, no-new-privileges, seccomp, ids), every network namespace
// they are in (interfaces, routes, listening sockets), the first process's mount table, and the
// cgroup's limits. Code in the enclosure can replace or deceive the agent, but not these files.
//
// Only kernel-generated files are read, addressed by pid and by the cgroup path the kernel reports
// for the container's first process, which must name the container. No path found in a table (a
// mount point, a link target) is ever opened or followed: those are strings the enclosure may have
// chosen.
import { readFile, readlink } from "node:fs/promises";
import { join } from "node:path";
import { EnclaveError } from "../errors.js";
import {
  cgroupNumber,
  idInside,
  interfacesIn,
  listeningIn,
  parseIdMap,
  parseMountinfo,
  routesIn,
  SOCKET_TABLES,
  statusField,
  statusIds,
} from "../procfs/proc-tables.js";
import type { MountEntry } from "../model/enclosure-views.js";
import type { CgroupLimits, HostProcess, HostView, NetworkNamespace } from "../model/enclosure-views.js";

const read = (path: string): Promise<string> => readFile(path, "utf8");
const readOr = (path: string, fallback = ""): Promise<string> => read(path).catch(() => fallback);
const linkOr = (path: string): Promise<string> => readlink(path).catch(() => "");

function unreadable(what: string, err: unknown): EnclaveError {
  const why = err instanceof Error ? err.message : String(err);
  return new EnclaveError(
    "placement_unavailable",
    `cannot read ${what} on this host (${why}): the egress audit reads the container's processes from the host's /proc, so the control plane must run on the Docker engine's machine, in its pid namespace, with permission to read other users' /proc entries`,
  );
}

/** A cgroup path as /proc/PID/cgroup shows it, refused unless plainly a path below the root. */
function safeCgroupPath(path: string): boolean {
  return /^\/[\w.:@/-]*$/.test(path) && !path.split("/").some((seg) => seg === ".." || seg === ".");
}

interface CgroupPaths {
  version: "v1" | "v2";
  /** Controller (v1) or "" (v2) → the path the kernel reports for the container. */
  byController: Map<string, string>;
  /** Controller → folder on this host's cgroup filesystem. */
  folders: Map<string, string>;
}

/** Where this host mounts each cgroup controller, from the control plane's own mount table. */
async function cgroupMounts(): Promise<Map<string, MountEntry>> {
  const mounts = new Map<string, MountEntry>();
  for (const m of parseMountinfo(await read("/proc/self/mountinfo"))) {
    if (m.fsType === "cgroup2" && !mounts.has("")) mounts.set("", m);
    if (m.fsType !== "cgroup") continue;
    for (const c of m.superOptions) if (["pids", "memory", "cpu"].includes(c) && !mounts.has(c)) mounts.set(c, m);
  }
  return mounts;
}

async function cgroupPaths(containerId: string, initPid: number): Promise<CgroupPaths> {
  const byController = new Map<string, string>();
  for (const line of (await read(`/proc/${initPid}/cgroup`)).split("\n")) {
    const m = /^\d+:([^:]*):(.*)$/.exec(line.trim());
    if (!m) continue;
    for (const c of (m[1] ?? "").split(",")) byController.set(c, m[2] ?? "");
  }
  const version = byController.has("pids") && byController.has("memory") ? "v1" : "v2";
  const wanted = version === "v1" ? ["pids", "memory", "cpu"] : [""];
  const mounts = await cgroupMounts();
  const folders = new Map<string, string>();
  for (const c of wanted) {
    const path = byController.get(c);
    const mount = mounts.get(c);
    if (!path || !mount) throw new Error(`no ${c || "unified"} cgroup for process ${initPid}, or none mounted here`);
    if (!safeCgroupPath(path) || !path.includes(containerId)) {
      throw new Error(`process ${initPid} is in cgroup \`${path}\`, which is not the container's`);
    }
    const below = mount.root === "/" ? path : path.startsWith(`${mount.root}/`) ? path.slice(mount.root.length) : undefined;
    if (below === undefined) throw new Error(`cgroup \`${path}\` is outside the cgroup filesystem mounted at ${mount.mountPoint}`);
    folders.set(c, join(mount.mountPoint, below));
  }
  return { version, byController, folders };
}

async function cgroupLimits(p: CgroupPaths): Promise<CgroupLimits> {
  const num = async (controller: string, file: string): Promise<number | undefined> => {
    const folder = p.folders.get(controller);
    return folder === undefined ? undefined : cgroupNumber(await readOr(join(folder, file)));
  };
  if (p.version === "v2") {
    const [quota = "", period = ""] = (await readOr(join(p.folders.get("") ?? "/nonexistent", "cpu.max"))).trim().split(/\s+/);
    return {
      version: "v2",
      pidsMax: (await num("", "pids.max")) ?? -1,
      memoryBytes: (await num("", "memory.max")) ?? -1,
      swapBytes: await num("", "memory.swap.max"),
      cpuQuotaUs: quota === "max" || quota === "" ? -1 : Number(quota),
      cpuPeriodUs: Number(period) || 0,
    };
  }
  const memory = (await num("memory", "memory.limit_in_bytes")) ?? -1;
  const memsw = await num("memory", "memory.memsw.limit_in_bytes");
  return {
    version: "v1",
    pidsMax: (await num("pids", "pids.max")) ?? -1,
    memoryBytes: memory,
    swapBytes: memsw === undefined ? undefined : memsw < 0 || memory < 0 ? -1 : memsw - memory,
    cpuQuotaUs: (await num("cpu", "cpu.cfs_quota_us")) ?? -1,
    cpuPeriodUs: (await num("cpu", "cpu.cfs_period_us")) ?? 0,
  };
}

/** One process, or undefined when it is gone or no longer in the container's cgroup. */
async function readProcess(pid: number, ownUserNamespace: string, membership: { controller: string; path: string }): Promise<HostProcess | undefined> {
  const base = `/proc/${pid}`;
  let status: string;
  try {
    status = await read(`${base}/status`);
  } catch {
    return undefined; // exited since the cgroup was listed
  }
  const [cmdline, exe, netNamespace, userNamespace] = await Promise.all([
    readOr(`${base}/cmdline`),
    linkOr(`${base}/exe`),
    linkOr(`${base}/ns/net`),
    linkOr(`${base}/ns/user`),
  ]);
  const uidMap = userNamespace && userNamespace !== ownUserNamespace ? await readOr(`${base}/uid_map`) : "";
  const gidMap = uidMap ? await readOr(`${base}/gid_map`) : "";
  // Read last: a pid reused by another process since the cgroup was listed is not counted.
  const still = (await readOr(`${base}/cgroup`)).split("\n").some((l) => {
    const m = /^\d+:([^:]*):(.*)$/.exec(l.trim());
    return !!m && (m[1] ?? "").split(",").includes(membership.controller) && m[2] === membership.path;
  });
  if (!still) return undefined;
  const hostUids = statusIds(status, "Uid");
  const hostGids = statusIds(status, "Gid");
  const translate = (ids: number[], map: string): number[] => (map ? ids.map((id) => idInside(id, parseIdMap(map))) : ids);
  return {
    pid,
    argv: cmdline.split("\0").filter((a, i, all) => a !== "" || i < all.length - 1),
    exe,
    uids: translate(hostUids, uidMap),
    gids: translate(hostGids, gidMap),
    hostUids,
    capEff: statusField(status, "CapEff"),
    capPrm: statusField(status, "CapPrm"),
    capBnd: statusField(status, "CapBnd"),
    noNewPrivs: statusField(status, "NoNewPrivs"),
    seccomp: Number(statusField(status, "Seccomp") || 0),
    netNamespace,
    userNamespace,
    uidMap,
  };
}

/** The tables of one network namespace, read through a process in it. */
async function readNetwork(id: string, pids: number[]): Promise<NetworkNamespace> {
  let lastError: unknown;
  for (const pid of pids) {
    const net = `/proc/${pid}/net`;
    try {
      const [dev, route, ipv6Route, ...tables] = await Promise.all([
        read(`${net}/dev`),
        readOr(`${net}/route`),
        readOr(`${net}/ipv6_route`),
        ...SOCKET_TABLES.map((t) => readOr(`${net}/${t}`)),
      ]);
      // The process may have left between the reads: only count it if it is still in that namespace.
      if ((await linkOr(`/proc/${pid}/ns/net`)) !== id) continue;
      return {
        id,
        interfaces: interfacesIn(dev),
        routes: routesIn(route, ipv6Route),
        listening: SOCKET_TABLES.flatMap((t, i) => listeningIn(t, tables[i] ?? "")),
      };
    } catch (err) {
      lastError = err;
    }
  }
  throw unreadable(`network namespace ${id}`, lastError ?? new Error("every process in it exited"));
}

/** The host's view of the container whose first process is initPid (docker inspect's State.Pid). */
export async function readHostView(containerId: string, initPid: number): Promise<HostView> {
  if (!(initPid > 0)) throw new EnclaveError("placement_unavailable", "the Docker engine reports no running process for the enclosure");
  let paths: CgroupPaths;
  try {
    paths = await cgroupPaths(containerId, initPid);
  } catch (err) {
    throw unreadable(`the cgroup of process ${initPid}`, err);
  }
  const listController = paths.version === "v1" ? "pids" : "";
  const membership = { controller: listController, path: paths.byController.get(listController) ?? "" };
  let procs: string;
  let mountinfo: string;
  let ownUserNamespace: string;
  try {
    procs = await read(join(paths.folders.get(listController) ?? "", "cgroup.procs"));
    mountinfo = await read(`/proc/${initPid}/mountinfo`);
    ownUserNamespace = await readlink("/proc/self/ns/user");
  } catch (err) {
    throw unreadable(`the processes of container ${containerId.slice(0, 12)}`, err);
  }
  const pids = procs
    .split("\n")
    .map((l) => Number(l.trim()))
    .filter((n) => Number.isInteger(n) && n > 0);
  const processes = (await Promise.all(pids.map((pid) => readProcess(pid, ownUserNamespace, membership)))).filter((p): p is HostProcess => !!p);
  if (!processes.some((p) => p.pid === initPid)) throw unreadable(`process ${initPid}`, new Error("it is not in the container's cgroup any more"));
  const byNamespace = new Map<string, number[]>();
  for (const p of processes) {
    if (!p.netNamespace) throw unreadable(`the network namespace of process ${p.pid}`, new Error("no ns/net link"));
    byNamespace.set(p.netNamespace, [...(byNamespace.get(p.netNamespace) ?? []), p.pid]);
  }
  const networks = await Promise.all([...byNamespace].map(([id, inNs]) => readNetwork(id, inNs)));
  return { initPid, processes, networks, mounts: parseMountinfo(mountinfo), cgroup: await cgroupLimits(paths) };
}
