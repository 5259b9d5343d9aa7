import type { MountEntry } from "../model/enclosure-views.js";
// Parsers for the kernel-generated tables the egress audit reads: a process's status, the network
// tables of a network namespace, a mount table, a user namespace's id map. Text in, values out —
// nothing here opens a file, so a path named in a table is only ever a string.

/** A field of /proc/PID/status ("" when the kernel does not show it). */
export function statusField(status: string, name: string): string {
  return status.match(new RegExp(`^${name}:[ \\t]*(.*)$`, "m"))?.[1]?.trim() ?? "";
}

export function statusIds(status: string, name: "Uid" | "Gid"): number[] {
  return statusField(status, name).split(/\s+/).filter(Boolean).map(Number);
}

/** "0100007F:1F90" → "127.0.0.1:8080" (IPv4), or the hex address for IPv6, which is clear enough. */
export function endpoint(hex: string): string {
  const [addr = "", port = "0"] = hex.split(":");
  const p = Number.parseInt(port, 16);
  if (addr.length !== 8) return `[${addr}]:${p}`;
  const bytes = (addr.match(/../g) ?? []).map((b) => Number.parseInt(b, 16)).reverse();
  return `${bytes.join(".")}:${p}`;
}

export type SocketTable = "tcp" | "tcp6" | "udp" | "udp6";
export const SOCKET_TABLES: readonly SocketTable[] = ["tcp", "tcp6", "udp", "udp6"];

/** TCP sockets in LISTEN (state 0A) and every UDP socket, which is bound to receive. */
export function listeningIn(table: SocketTable, text: string): string[] {
  const found: string[] = [];
  for (const line of text.split("\n").slice(1)) {
    const cols = line.trim().split(/\s+/);
    if (cols.length < 4) continue;
    if (table.startsWith("tcp") && cols[3] !== "0A") continue;
    found.push(`${table} ${endpoint(cols[1] ?? "")}`);
  }
  return found;
}

/** Interface names from /proc/net/dev. */
export function interfacesIn(netDev: string): string[] {
  return netDev
    .split("\n")
    .slice(2)
    .map((l) => l.split(":")[0]?.trim() ?? "")
    .filter(Boolean);
}

/** Routes other than loopback ones ("iface dest") from /proc/net/route and /proc/net/ipv6_route. */
export function routesIn(route: string, ipv6Route: string): string[] {
  const v4 = route
    .split("\n")
    .slice(1)
    .map((l) => l.trim().split(/\s+/))
    .filter((c) => c.length > 2 && c[0] !== "lo")
    .map((c) => `${c[0]} ${c[1]}`);
  const v6 = ipv6Route
    .split("\n")
    .map((l) => l.trim().split(/\s+/))
    .filter((c) => c.length >= 10 && c[9] !== "lo")
    .map((c) => `${c[9]} ${c[0]}/${Number.parseInt(c[1] ?? "0", 16)}`);
  return [...v4, ...v6];
}

/** mountinfo escapes space, tab, newline and backslash as octal. */
function unescape(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(Number.parseInt(o, 8)));
}

/** /proc/PID/mountinfo: "id parent maj:min root mountpoint options [optional…] - fstype source superoptions". */
export function parseMountinfo(text: string): MountEntry[] {
  const out: MountEntry[] = [];
  for (const line of text.split("\n")) {
    const cols = line.trim().split(/\s+/);
    const dash = cols.indexOf("-");
    if (cols.length < 6 || dash < 6) continue;
    out.push({
      root: unescape(cols[3] ?? ""),
      mountPoint: unescape(cols[4] ?? ""),
      options: (cols[5] ?? "").split(","),
      fsType: cols[dash + 1] ?? "",
      source: unescape(cols[dash + 2] ?? ""),
      superOptions: (cols[dash + 3] ?? "").split(","),
    });
  }
  return out;
}

/** The mount that is visible at a path: the last one mounted there. */
export function mountAt(mounts: readonly MountEntry[], mountPoint: string): MountEntry | undefined {
  return mounts.filter((m) => m.mountPoint === mountPoint).at(-1);
}

/**
 * Mounts that hand a container engine's control socket (or the folder holding it) to the enclosure:
 * whoever can open one controls every container on the machine.
 */
export function engineSocketMounts(mounts: readonly { root: string; mountPoint: string }[]): string[] {
  const socket = /(^|\/)(docker|containerd|podman|crio)\.sock$/;
  const folders = new Set(["/run", "/var/run", "/run/docker", "/var/run/docker", "/run/containerd", "/var/run/containerd", "/run/podman"]);
  return mounts.filter((m) => socket.test(m.root) || socket.test(m.mountPoint) || folders.has(m.root)).map((m) => `${m.mountPoint} (from ${m.root})`);
}

/** A user namespace's uid_map or gid_map: "inside outside count" per line. */
export function parseIdMap(text: string): Array<{ inside: number; outside: number; count: number }> {
  return text
    .split("\n")
    .map((l) => l.trim().split(/\s+/).map(Number))
    .filter((c) => c.length === 3 && c.every(Number.isFinite))
    .map(([inside = 0, outside = 0, count = 0]) => ({ inside, outside, count }));
}

/** An id as the process's own user namespace names it, from the id the host sees; -1 when unmapped. */
export function idInside(hostId: number, map: ReturnType<typeof parseIdMap>): number {
  for (const m of map) if (hostId >= m.outside && hostId < m.outside + m.count) return m.inside + (hostId - m.outside);
  return -1;
}

export const capsEmpty = (hex: string): boolean => /^0+$/.test(hex);

/** Whether every capability in `hex` is also in `allowed` (both hex masks as /proc shows them). */
export function capsWithin(hex: string, allowed: bigint): boolean {
  if (!/^[0-9a-f]+$/i.test(hex)) return false;
  return (BigInt(`0x${hex}`) & ~allowed) === 0n;
}

/** The numbers of a cgroup file ("max" and v1's page-rounded huge value are -1: no limit). */
export function cgroupNumber(text: string): number | undefined {
  const t = text.trim().split(/\s+/)[0] ?? "";
  if (t === "") return undefined;
  if (t === "max") return -1;
  const n = Number(t);
  if (!Number.isFinite(n)) return undefined;
  return n >= 2 ** 62 ? -1 : n;
}
