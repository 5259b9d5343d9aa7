// Egress policies: the destinations a conversation's code may reach through the egress proxy. A
// tenant's operator maximum (its entry in the token file) bounds what a conversation of its may set;
// empty (every default) means no network at all. A destination is a host name (a leading `*.` for
// its subdomains) or an address range, with the ports it allows (none: any).
//
// Written as text in the token file and on the command line: `HOST[:PORTS]` or `CIDR[:PORTS]`,
// PORTS comma-separated, an IPv6 range in brackets when ports follow (`[2001:db8::/32]:443`).
import { BlockList, isIP } from "node:net";
import { EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";
import { quoted } from "../text/wording.js";
import type { EgressDestination } from "../model/egress.js";

export type { EgressDestination };

/** A tenant's operator maximum: undefined is none (the implicit tenant of a control plane without tokens). */
export type EgressMaximum = EgressDestination[] | undefined;

const LABEL = "[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?";
const HOST_RE = new RegExp(`^(\\*\\.)?${LABEL}(\\.${LABEL})*$`);

function invalid(what: string): EnclaveError {
  return new EnclaveError("invalid_arguments", what);
}

/** Why a host name cannot be a destination's, or undefined. */
function hostProblem(host: string): string | undefined {
  if (host.length > 253) return "is longer than 253 characters";
  if (isIP(host)) return "is an address: give it as a cidr (`1.2.3.4/32`)";
  if (!HOST_RE.test(host)) return "must be a host name of letters, digits, '-' and '.', with at most one leading `*.`";
  return undefined;
}

interface Range {
  family: "ipv4" | "ipv6";
  network: string;
  prefix: number;
}

/** The IPv4 address an IPv4-mapped IPv6 address (`::ffff:0:0/96`) stands for, in any of its spellings. */
function mappedIpv4(v6: string): string | undefined {
  const dotted = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(v6);
  const hex = dotted
    ? `${dotted[1] ?? ""}${((Number(dotted[2]) << 8) | Number(dotted[3])).toString(16)}:${((Number(dotted[4]) << 8) | Number(dotted[5])).toString(16)}`
    : v6;
  const n = ipv6ToBigInt(hex.replace(/%.*$/, ""));
  if (n >> 32n !== 0xffffn) return undefined;
  return [24n, 16n, 8n, 0n].map((s) => Number((n >> s) & 255n)).join(".");
}

/** An address as the family it is really in: an IPv4-mapped IPv6 address (`::ffff:7f00:1` as well as `::ffff:127.0.0.1`) is the IPv4 one. */
export function plainAddress(address: string): { address: string; family: "ipv4" | "ipv6" } | undefined {
  const lower = address.toLowerCase();
  const v = isIP(lower);
  if (v === 4) return { address: lower, family: "ipv4" };
  if (v !== 6) return undefined;
  const mapped = mappedIpv4(lower);
  if (mapped !== undefined && isIP(mapped) === 4) return { address: mapped, family: "ipv4" };
  return { address: lower, family: "ipv6" };
}

function parseRange(cidr: string): Range | string {
  const slash = cidr.lastIndexOf("/");
  if (slash < 0) return "must be an address range ADDRESS/PREFIX";
  const addr = plainAddress(cidr.slice(0, slash));
  const prefixText = cidr.slice(slash + 1);
  if (!addr) return "does not start with an IPv4 or IPv6 address";
  // A mapped range (`::ffff:10.0.0.0/104`) is the IPv4 range it maps.
  const mapped = addr.family === "ipv4" && isIP(cidr.slice(0, slash)) === 6 ? 96 : 0;
  const max = addr.family === "ipv4" ? 32 + mapped : 128;
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) < mapped || Number(prefixText) > max) return `needs a prefix length of ${mapped} to ${max}`;
  return { family: addr.family, network: addr.address, prefix: Number(prefixText) - mapped };
}

function rangeList(r: Range): BlockList {
  const list = new BlockList();
  list.addSubnet(r.network, r.prefix, r.family);
  return list;
}

/** The range's own network address (its host bits cleared), for its canonical text. */
function canonicalRange(r: Range): string {
  if (r.family === "ipv4") {
    const n = r.network.split(".").reduce((acc, o) => acc * 256 + Number(o), 0);
    const mask = r.prefix === 0 ? 0 : Number((0xffffffffn << BigInt(32 - r.prefix)) & 0xffffffffn);
    const net = (n & mask) >>> 0;
    return `${[24, 16, 8, 0].map((s) => (net >>> s) & 255).join(".")}/${r.prefix}`;
  }
  const big = ipv6ToBigInt(r.network);
  const mask = r.prefix === 0 ? 0n : ((1n << 128n) - 1n) ^ ((1n << BigInt(128 - r.prefix)) - 1n);
  return `${bigIntToIpv6(big & mask)}/${r.prefix}`;
}

function ipv6ToBigInt(a: string): bigint {
  const [head = "", tail = ""] = a.includes("::") ? a.split("::") : [a, undefined];
  const h = head ? head.split(":") : [];
  const t = a.includes("::") && tail ? tail.split(":") : [];
  const groups = a.includes("::") ? [...h, ...new Array<string>(8 - h.length - t.length).fill("0"), ...t] : h;
  return groups.reduce((acc, g) => (acc << 16n) + BigInt(parseInt(g || "0", 16)), 0n);
}

function bigIntToIpv6(n: bigint): string {
  const groups: string[] = [];
  for (let i = 7; i >= 0; i--) groups.push(((n >> BigInt(i * 16)) & 0xffffn).toString(16));
  return groups.join(":").replace(/(^|:)0(:0)+(:|$)/, "::");
}

/** Checks one destination as given over the API; `where` names it in the error. */
export function checkDestination(raw: { host?: string; cidr?: string; ports?: readonly number[] }, where: string): EgressDestination {
  const host = (raw.host ?? "").trim().toLowerCase();
  const cidr = (raw.cidr ?? "").trim();
  if (!host === !cidr) throw invalid(`${where}: give exactly one of host and cidr`);
  const ports = [...new Set(raw.ports ?? [])].sort((a, b) => a - b);
  if (ports.length > LIMITS.egressMaxPorts) throw invalid(`${where}: lists ${ports.length} ports; at most ${LIMITS.egressMaxPorts}`);
  for (const p of ports) if (!Number.isInteger(p) || p < 1 || p > 65535) throw invalid(`${where}: port ${String(p)} is not 1 to 65535`);
  if (host) {
    const problem = hostProblem(host);
    if (problem) throw invalid(`${where}: host ${quoted(host)} ${problem}`);
    return { host, ports };
  }
  const range = parseRange(cidr);
  if (typeof range === "string") throw invalid(`${where}: cidr ${quoted(cidr)} ${range}`);
  return { cidr: canonicalRange(range), ports };
}

/** Checks a whole policy (a list of destinations). */
export function checkPolicy(raw: ReadonlyArray<{ host?: string; cidr?: string; ports?: readonly number[] }>, where: string): EgressDestination[] {
  if (raw.length > LIMITS.egressMaxDestinations) throw invalid(`${where}: lists ${raw.length} destinations; at most ${LIMITS.egressMaxDestinations}`);
  return raw.map((d, i) => checkDestination(d, `${where}, destination ${i + 1}`));
}

/** One destination from its text form (`HOST[:PORTS]`, `CIDR[:PORTS]`, `[V6CIDR]:PORTS`). */
export function parseDestinationText(text: string, where: string): EgressDestination {
  let target = text.trim();
  let portText = "";
  const bracket = /^\[([^\]]+)\](?::(.*))?$/.exec(target);
  if (bracket) {
    target = bracket[1] ?? "";
    portText = bracket[2] ?? "";
  } else if ((target.match(/:/g) ?? []).length === 1) {
    [target = "", portText = ""] = target.split(":");
  }
  const ports = portText === "" ? [] : portText.split(",").map((p) => (/^\d{1,5}$/.test(p) ? Number(p) : NaN));
  const isRange = target.includes("/");
  return checkDestination({ host: isRange ? "" : target, cidr: isRange ? target : "", ports }, `${where} ${quoted(text)}`);
}

export function formatDestination(d: EgressDestination): string {
  const target = d.host ?? (d.cidr?.includes(":") && d.ports.length ? `[${d.cidr}]` : (d.cidr ?? ""));
  return d.ports.length ? `${target}:${d.ports.join(",")}` : target;
}

export function formatPolicy(p: readonly EgressDestination[]): string {
  return p.length ? p.map(formatDestination).join(" ") : "none (no network)";
}

function portAllowed(d: EgressDestination, port: number): boolean {
  return d.ports.length === 0 || d.ports.includes(port);
}

/** Whether a host rule matches a name: itself, or for `*.example.com` any name below example.com. */
function hostMatches(rule: string, name: string): boolean {
  if (rule.startsWith("*.")) return name.endsWith(rule.slice(1)) && name.length > rule.length - 1;
  return rule === name;
}

function rangeOf(cidr: string): Range {
  return parseRange(cidr) as Range;
}

/** Whether `outer` allows everything `inner` does. */
function covers(outer: EgressDestination, inner: EgressDestination): boolean {
  const portsCovered = outer.ports.length === 0 || (inner.ports.length > 0 && inner.ports.every((p) => outer.ports.includes(p)));
  if (!portsCovered) return false;
  if (outer.host && inner.host) {
    if (!inner.host.startsWith("*.")) return hostMatches(outer.host, inner.host);
    // A wildcard is covered only by a wildcard over the same or a wider domain.
    return outer.host.startsWith("*.") && (inner.host === outer.host || inner.host.endsWith(outer.host.slice(1)));
  }
  if (outer.cidr && inner.cidr) {
    const o = rangeOf(outer.cidr);
    const i = rangeOf(inner.cidr);
    return o.family === i.family && o.prefix <= i.prefix && rangeList(o).check(i.network, i.family);
  }
  return false;
}

/** Refuses a policy that allows anything the maximum does not, naming the maximum. */
export function checkWithinMaximum(policy: readonly EgressDestination[], maximum: EgressMaximum, tenant: string): void {
  if (!maximum) return;
  for (const d of policy) {
    if (!maximum.some((m) => covers(m, d))) {
      throw invalid(
        `egress destination ${quoted(formatDestination(d))} is past tenant \`${tenant}\`'s operator maximum (${formatPolicy(maximum)}); ` +
          `ask an operator to widen it (\`enclave tokens egress ${tenant} ...\`) or narrow the policy`,
      );
    }
  }
}

// Addresses that are not the public internet's: a name resolving to one is refused unless a cidr lists it.
const NOT_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  NOT_PUBLIC.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of [
  // The unspecified and loopback addresses, and the IPv4-compatible ones (`::127.0.0.1`) around them.
  ["::", 96],
  ["64:ff9b::", 96],
  ["64:ff9b:1::", 48],
  ["100::", 64],
  ["2001::", 23],
  ["2001:db8::", 32],
  ["2002::", 16],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
] as const)
  NOT_PUBLIC.addSubnet(net, prefix, "ipv6");

export function isPublicAddress(address: string): boolean {
  const a = plainAddress(address);
  return !!a && !NOT_PUBLIC.check(a.address, a.family);
}

function cidrAllows(d: EgressDestination, address: string, port: number): boolean {
  const a = plainAddress(address);
  if (!d.cidr || !a || !portAllowed(d, port)) return false;
  const r = rangeOf(d.cidr);
  return r.family === a.family && rangeList(r).check(a.address, a.family);
}

/** Whether a policy allows a name (not an address) on a port. */
export function allowsName(policy: readonly EgressDestination[], name: string, port: number): boolean {
  const n = name.toLowerCase().replace(/\.$/, "");
  return policy.some((d) => !!d.host && portAllowed(d, port) && hostMatches(d.host, n));
}

/**
 * Whether a policy lets the proxy dial an address on a port: one a cidr lists, or — for a name the
 * policy allows (`viaName`) — any public address.
 */
export function allowsAddress(policy: readonly EgressDestination[], address: string, port: number, viaName: boolean): boolean {
  if (policy.some((d) => cidrAllows(d, address, port))) return true;
  return viaName && isPublicAddress(address);
}
