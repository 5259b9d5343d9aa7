// What a conversation's sandbox is made of, read from inside through the API (an exec tool call) and,
// for an enclosure, from outside (docker inspect, the host's /proc of its first process): its uid and
// gids, namespaces, cgroups, writable mounts, volumes and /tmp. Two tenants' sets are compared for
// overlap by the tenant-overlap suite.
import { execFile } from "node:child_process";
import { readFileSync, readlinkSync } from "node:fs";
import { promisify } from "node:util";
import { type ControlPlaneClient, resultText } from "@enclave/client/control-plane-client.js";

const exec = promisify(execFile);

export const NAMESPACES = ["ipc", "net", "mnt", "uts", "pid", "user", "cgroup"] as const;
export type Namespace = (typeof NAMESPACES)[number];

export interface InsideView {
  uid: string;
  gids: string[];
  ns: Record<Namespace, string>;
  /** The cgroup paths of /proc/self/cgroup, one per hierarchy ("controllers:path"). */
  cgroups: string[];
  /** Writable mounts as the kernel identifies what they expose: "major:minor root" (a tmpfs instance, a folder of a file system). */
  writableMounts: string[];
  /** /tmp's device and inode, and the names in it. */
  tmpId: string;
  tmpEntries: string[];
}

/**
 * The host's character devices a sandbox's /dev binds one by one (bubblewrap's --dev): writable, but
 * no tenant can leave anything in them for another to read.
 */
const STATELESS_DEVICES = ["/null", "/zero", "/full", "/random", "/urandom", "/tty"];

const SCRIPT = (marker: string): string => `
echo "@uid $(id -u)"
echo "@gids $(id -G)"
for n in ${NAMESPACES.join(" ")}; do echo "@ns $n $(readlink /proc/self/ns/$n)"; done
sed 's/^/@cgroup /' /proc/self/cgroup
sed 's/^/@mount /' /proc/self/mountinfo
echo here > /tmp/${marker}
stat -c '@tmpid %d:%i' /tmp
# A glob, not ls: gVisor's old statx refuses the tmpfs (EINVAL), readdir works.
cd /tmp && for f in .* *; do echo "@tmp $f"; done
`;

/** Runs the probe in the conversation's sandbox through an exec tool call, leaving `marker` in its /tmp. */
export async function insideView(client: ControlPlaneClient, runId: string, marker: string): Promise<InsideView> {
  const r = await client.callTool(runId, "exec", { command: SCRIPT(marker) });
  const text = resultText(r);
  if (r.isError) throw new Error(`the probe failed: ${text}`);
  const lines = text.split("\n");
  const values = (tag: string): string[] => lines.filter((l) => l.startsWith(`@${tag} `)).map((l) => l.slice(tag.length + 2).trim());
  const ns = Object.fromEntries(values("ns").map((l) => l.split(" ") as [string, string])) as Record<Namespace, string>;
  const writableMounts = values("mount")
    .map((l) => l.split(/\s+/))
    .filter((cols) => (cols[5] ?? "").split(",").includes("rw") && !STATELESS_DEVICES.includes(cols[3] ?? ""))
    .map((cols) => `${cols[2]} ${cols[3]}`);
  return {
    uid: values("uid")[0] ?? "",
    gids: (values("gids")[0] ?? "").split(/\s+/).filter(Boolean),
    ns,
    cgroups: cgroupPaths(values("cgroup").join("\n")),
    writableMounts: [...new Set(writableMounts)],
    tmpId: values("tmpid")[0] ?? "",
    tmpEntries: values("tmp").filter((e) => e !== "." && e !== ".." && e !== ".*" && e !== "*"),
  };
}

export interface OutsideView {
  /** Writable mounts the engine made: a volume's name or a bind's host path. */
  writableVolumes: string[];
  readOnlyVolumes: string[];
  ipcMode: string;
  cgroupParent: string;
  /** The namespaces and cgroups of the container's first process, read from the host's /proc. */
  ns: Record<Namespace, string>;
  cgroups: string[];
}

interface Inspected {
  State: { Pid: number };
  HostConfig: { IpcMode: string; CgroupParent: string };
  Mounts: { Type: string; Name?: string; Source: string; RW: boolean }[];
}

export async function outsideView(containerId: string): Promise<OutsideView> {
  const [c] = JSON.parse((await exec("docker", ["inspect", containerId])).stdout) as Inspected[];
  if (!c) throw new Error(`docker inspect ${containerId} returned nothing`);
  const name = (m: Inspected["Mounts"][number]): string => (m.Type === "volume" ? `volume ${m.Name ?? ""}` : `${m.Type} ${m.Source}`);
  const pid = c.State.Pid;
  return {
    writableVolumes: c.Mounts.filter((m) => m.RW).map(name),
    readOnlyVolumes: c.Mounts.filter((m) => !m.RW).map(name),
    ipcMode: c.HostConfig.IpcMode,
    cgroupParent: c.HostConfig.CgroupParent,
    ns: Object.fromEntries(NAMESPACES.map((n) => [n, readlinkSync(`/proc/${pid}/ns/${n}`)])) as Record<Namespace, string>,
    cgroups: hostCgroups(pid),
  };
}

/** A host process's cgroups as the host names them ("controllers:path"). */
export function hostCgroups(pid: number): string[] {
  return cgroupPaths(readFileSync(`/proc/${pid}/cgroup`, "utf8"));
}

/**
 * "controllers:path" per hierarchy of a /proc/PID/cgroup text. On a cgroup v1 machine the unified
 * hierarchy's line ("0::/") holds no controller and reads "/" for every process: it is left out then.
 */
function cgroupPaths(text: string): string[] {
  const lines = text
    .split("\n")
    .filter(Boolean)
    .map((l) => l.split(":").slice(1).join(":"));
  return lines.length > 1 ? lines.filter((l) => !l.startsWith(":")) : lines;
}

/** What two lists have in common. */
export function shared(a: readonly string[], b: readonly string[]): string[] {
  const other = new Set(b);
  return [...new Set(a)].filter((x) => other.has(x));
}
