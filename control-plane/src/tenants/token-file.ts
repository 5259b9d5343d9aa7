// The token file: tenants (operator flag, quotas) and their bearer tokens, hashed at rest.
//
// A token is `enc_<id>_<secret>`: the id (8 hex digits) names its entry, the secret is 32 random
// bytes. The file keeps only SHA-256 of the whole token. A slow password hash (scrypt) protects
// guessable secrets; these are 256 random bits, which no amount of hashing speed lets anyone
// enumerate, while a slow hash would cost every API call milliseconds of CPU. The check looks the
// entry up by its id (not secret) and compares the digests with timingSafeEqual.
//
// Written whole to a temp file and renamed (mode 600), so the watching control plane never reads a
// half-written file.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";
import { checkPolicy, type EgressDestination, parseDestinationText } from "../egress/egress-policy.js";
import { quoted } from "../text/wording.js";
import { QUOTA_NAMES, type QuotaName, type TenantQuotas, tenantNameProblem, validQuotaValue } from "./tenant.js";

export interface TenantEntry {
  operator?: boolean;
  /** Quotas for this tenant; a missing one takes the default (LIMITS.tenant*). */
  quotas?: Partial<TenantQuotas>;
  /** The operator's egress maximum: destinations (`HOST[:PORTS]`, `CIDR[:PORTS]`) a conversation of the tenant may allow; none when absent. */
  egress?: string[];
}

export interface TokenEntry {
  id: string;
  tenant: string;
  /** Hex SHA-256 of the whole token. */
  sha256: string;
  createdAtMs: number;
  label?: string;
}

export interface TokenFile {
  version: 1;
  tenants: Record<string, TenantEntry>;
  tokens: TokenEntry[];
}

const TOKEN_RE = /^enc_([0-9a-f]{8})_([A-Za-z0-9_-]{43})$/;

export function digest(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** The entry id a presented token names, or undefined when it is not shaped like one of ours. */
export function tokenId(token: string): string | undefined {
  return TOKEN_RE.exec(token)?.[1];
}

/** Whether the presented token is the one the entry was made for (constant time in the secret). */
export function tokenMatches(entry: TokenEntry, token: string): boolean {
  const given = Buffer.from(digest(token), "hex");
  const kept = Buffer.from(entry.sha256, "hex");
  return given.length === kept.length && timingSafeEqual(given, kept);
}

function bad(file: string, what: string): EnclaveError {
  return new EnclaveError("invalid_arguments", `token file ${file}: ${what}`);
}

/** What a quota's value must be, for the error that refuses another. */
export function quotaValueRule(quota: QuotaName): string {
  if (quota === "maxCpus") return "must be a number of 0.01 or more";
  if (quota === "devcontainerBuilds") return "must be 1 (builds on) or 0 (off)";
  return "must be a whole number of 0 or more";
}

/** Parses and checks a token file's text; every problem is named with the file. */
export function parseTokenFile(file: string, text: string): TokenFile {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw bad(file, `is not JSON (${(err as Error).message})`);
  }
  if (!raw || typeof raw !== "object") throw bad(file, "must be an object with `tenants` and `tokens`");
  const o = raw as { version?: unknown; tenants?: unknown; tokens?: unknown };
  if (o.version !== 1) throw bad(file, "`version` must be 1");
  const tenants = (o.tenants ?? {}) as Record<string, TenantEntry>;
  if (typeof tenants !== "object" || Array.isArray(tenants)) throw bad(file, "`tenants` must be an object keyed by tenant name");
  for (const [name, t] of Object.entries(tenants)) {
    const problem = tenantNameProblem(name);
    if (problem) throw bad(file, `tenant name ${quoted(name)}: ${problem}`);
    if (!t || typeof t !== "object") throw bad(file, `tenant \`${name}\` must be an object`);
    if (t.operator !== undefined && typeof t.operator !== "boolean") throw bad(file, `tenant \`${name}\`: operator must be true or false`);
    for (const [q, v] of Object.entries(t.quotas ?? {})) {
      if (!(QUOTA_NAMES as readonly string[]).includes(q)) throw bad(file, `tenant \`${name}\`: unknown quota \`${q}\` (known: ${QUOTA_NAMES.join(", ")})`);
      if (!validQuotaValue(q as QuotaName, v)) throw bad(file, `tenant \`${name}\`: quota ${q} ${quotaValueRule(q as QuotaName)}`);
    }
  }
  for (const [name, t] of Object.entries(tenants)) egressMaximumOf(file, name, t);
  if (!Array.isArray(o.tokens)) throw bad(file, "`tokens` must be a list");
  if (o.tokens.length > LIMITS.tokenFileMaxTokens) throw bad(file, `holds ${o.tokens.length} tokens; at most ${LIMITS.tokenFileMaxTokens}`);
  const seen = new Set<string>();
  for (const t of o.tokens as TokenEntry[]) {
    if (!t || typeof t.id !== "string" || !/^[0-9a-f]{8}$/.test(t.id)) throw bad(file, "a token's `id` must be 8 hex digits");
    if (seen.has(t.id)) throw bad(file, `token id ${t.id} appears twice`);
    seen.add(t.id);
    if (typeof t.tenant !== "string") throw bad(file, `token ${t.id}: tenant must be a tenant name`);
    const problem = tenantNameProblem(t.tenant);
    if (problem) throw bad(file, `token ${t.id}: tenant name ${quoted(t.tenant)}: ${problem}`);
    if (typeof t.sha256 !== "string" || !/^[0-9a-f]{64}$/.test(t.sha256)) throw bad(file, `token ${t.id}: sha256 must be 64 hex digits`);
  }
  return { version: 1, tenants, tokens: o.tokens as TokenEntry[] };
}

/** A tenant entry's egress maximum, checked: none when the entry sets none. */
export function egressMaximumOf(file: string, name: string, t: TenantEntry): EgressDestination[] {
  if (t.egress === undefined) return [];
  if (!Array.isArray(t.egress) || t.egress.some((d) => typeof d !== "string")) throw bad(file, `tenant \`${name}\`: egress must be a list of destinations`);
  try {
    return checkPolicy(
      t.egress.map((d) => parseDestinationText(d, "destination")),
      `egress maximum`,
    );
  } catch (err) {
    throw bad(file, `tenant \`${name}\`: ${(err as Error).message}`);
  }
}

/** Sets a tenant's egress maximum (empty: no egress for its conversations). */
export function setEgressMaximum(file: string, tenant: string, destinations: EgressDestination[], text: (d: EgressDestination) => string): void {
  const contents = readTokenFile(file);
  const entry = contents.tenants[tenant];
  if (!entry) throw new EnclaveError("not_found", `no tenant \`${tenant}\` in ${file}; \`enclave tokens add ${tenant}\` creates it`);
  const next: TenantEntry = { ...entry };
  if (destinations.length) next.egress = destinations.map(text);
  else delete next.egress;
  contents.tenants[tenant] = next;
  writeTokenFile(file, contents);
}

export function readTokenFile(file: string): TokenFile {
  if (!existsSync(file)) return { version: 1, tenants: {}, tokens: [] };
  return parseTokenFile(file, readFileSync(file, "utf8"));
}

export function writeTokenFile(file: string, contents: TokenFile): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(contents, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, file);
}

/** Adds a token for the tenant (created when new); returns the token, which is stored nowhere in clear. */
export function addToken(file: string, tenant: string, opts: { operator?: boolean; label?: string } = {}): { id: string; token: string } {
  const problem = tenantNameProblem(tenant);
  if (problem) throw new EnclaveError("invalid_arguments", `tenant name ${quoted(tenant)}: ${problem}`);
  const contents = readTokenFile(file);
  const entry = contents.tenants[tenant] ?? {};
  if (opts.operator) entry.operator = true;
  contents.tenants[tenant] = entry;
  let id: string;
  do id = randomBytes(4).toString("hex");
  while (contents.tokens.some((t) => t.id === id));
  const token = `enc_${id}_${randomBytes(32).toString("base64url")}`;
  contents.tokens.push({ id, tenant, sha256: digest(token), createdAtMs: Date.now(), ...(opts.label ? { label: opts.label } : {}) });
  writeTokenFile(file, contents);
  return { id, token };
}

/** Removes a token by its id (the 8 hex digits after `enc_`), or every token of a tenant. Returns how many went. */
export function revokeTokens(file: string, what: { id?: string; tenant?: string }): number {
  const contents = readTokenFile(file);
  const keep = contents.tokens.filter((t) => !(t.id === what.id || (what.tenant !== undefined && t.tenant === what.tenant)));
  const removed = contents.tokens.length - keep.length;
  if (removed > 0) writeTokenFile(file, { ...contents, tokens: keep });
  return removed;
}

/** Sets (or with undefined, clears back to the default) one quota of a tenant. */
export function setQuota(file: string, tenant: string, quota: keyof TenantQuotas, value: number | undefined): void {
  const contents = readTokenFile(file);
  const entry = contents.tenants[tenant];
  if (!entry) throw new EnclaveError("not_found", `no tenant \`${tenant}\` in ${file}; \`enclave tokens add ${tenant}\` creates it`);
  const quotas = { ...entry.quotas };
  if (value === undefined) delete quotas[quota];
  else quotas[quota] = value;
  contents.tenants[tenant] = { ...entry, quotas };
  writeTokenFile(file, contents);
}
