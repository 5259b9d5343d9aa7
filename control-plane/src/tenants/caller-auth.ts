// Who is calling: the tenant a bearer token belongs to. Without a token file every caller is the
// implicit tenant (a loopback or unix-socket control plane, zero set-up). With one, each call must
// carry `authorization: Bearer enc_…` naming a token the file holds now: the file is watched and
// also stat'ed every LIMITS.tokenFilePollMs, so an added token works and a revoked one stops within
// a second, with no restart. A file that cannot be read or parsed admits nobody (fail closed) until
// it is fixed, and says why on stderr.
import { type FSWatcher, statSync, watch } from "node:fs";
import { basename, dirname } from "node:path";
import { EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";
import { defaultQuotas, IMPLICIT, type Tenant } from "./tenant.js";
import { egressMaximumOf, readTokenFile, type TokenEntry, tokenId, tokenMatches } from "./token-file.js";

export interface CallerAuth {
  /** Whether callers must present a token (false: everyone is the implicit tenant). */
  readonly tokensRequired: boolean;
  /** The caller's tenant from its `authorization` header value, or an unauthenticated error. */
  authenticate(authorization: string | undefined): Tenant;
  /** The tenant of that name as configured now (quotas, operator), if any. */
  tenant(name: string): Tenant | undefined;
  /** Told of tokens the file no longer holds ("all" when it admits none now), so what they opened can end. */
  onRevoked(listener: RevokedListener): () => void;
  close(): void;
}

export type RevokedListener = (tokenIds: ReadonlySet<string> | "all") => void;

/** The id of the token an `authorization` header value carries, if it is shaped like one of ours. */
export function bearerTokenId(authorization: string | undefined): string | undefined {
  const token = BEARER_RE.exec(authorization ?? "")?.[1];
  return token === undefined ? undefined : tokenId(token);
}

export function implicitAuth(): CallerAuth {
  return {
    tokensRequired: false,
    authenticate: () => IMPLICIT,
    tenant: (name) => (name === IMPLICIT.name ? IMPLICIT : undefined),
    onRevoked: () => () => undefined,
    close: () => undefined,
  };
}

function unauthenticated(why: string): EnclaveError {
  return new EnclaveError(
    "unauthenticated",
    `${why}; send \`authorization: Bearer <token>\` (\`enclave tokens add TENANT\` makes one; the CLI takes --token or ENCLAVE_TOKEN)`,
  );
}

const BEARER_RE = /^Bearer\s+(\S+)$/i;

export class TokenFileAuth implements CallerAuth {
  readonly tokensRequired = true;
  private tokens = new Map<string, TokenEntry>();
  private tenants = new Map<string, Tenant>();
  private stamp = "";
  private watcher: FSWatcher | undefined;
  private readonly timer: NodeJS.Timeout;
  private lastError = "";
  private readonly revokedListeners = new Set<RevokedListener>();

  constructor(
    readonly file: string,
    private readonly log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  ) {
    this.reload(true);
    try {
      // The folder, not the file: a rename over the file replaces the inode a file watch follows.
      this.watcher = watch(dirname(file), (_event, name) => {
        if (name === null || name === basename(file)) this.reload(false);
      });
      this.watcher.on("error", () => undefined);
    } catch {
      // No watch (the folder is missing, or inotify is exhausted): the periodic stat still catches changes.
    }
    this.timer = setInterval(() => this.reload(false), LIMITS.tokenFilePollMs);
    this.timer.unref();
  }

  private fileStamp(): string {
    try {
      const s = statSync(this.file);
      return `${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
    } catch {
      return "missing";
    }
  }

  private reload(force: boolean): void {
    const stamp = this.fileStamp();
    if (!force && stamp === this.stamp) return;
    this.stamp = stamp;
    try {
      const contents = readTokenFile(this.file);
      const tenants = new Map<string, Tenant>();
      for (const [name, entry] of Object.entries(contents.tenants)) {
        tenants.set(name, {
          name,
          operator: entry.operator ?? false,
          quotas: { ...defaultQuotas(entry.operator ?? false), ...entry.quotas },
          egressMaximum: egressMaximumOf(this.file, name, entry),
        });
      }
      const tokens = new Map<string, TokenEntry>();
      for (const t of contents.tokens) {
        tokens.set(t.id, t);
        if (!tenants.has(t.tenant)) tenants.set(t.tenant, { name: t.tenant, operator: false, quotas: defaultQuotas(false), egressMaximum: [] });
      }
      // A token gone, replaced or moved, or one whose tenant is no longer an operator: what it opened
      // (with an operator's view of every tenant) ends; opened again, it has its tenant's view.
      const demoted = (t: TokenEntry): boolean => (this.tenants.get(t.tenant)?.operator ?? false) && !(tenants.get(t.tenant)?.operator ?? false);
      const revoked = new Set(
        [...this.tokens.values()].filter((t) => tokens.get(t.id)?.sha256 !== t.sha256 || tokens.get(t.id)?.tenant !== t.tenant || demoted(t)).map((t) => t.id),
      );
      this.tokens = tokens;
      this.tenants = tenants;
      if (revoked.size > 0) this.tellRevoked(revoked);
      if (this.lastError) this.log(`control plane: token file ${this.file} read again: ${tokens.size} token(s)`);
      this.lastError = "";
    } catch (err) {
      // Fail closed: a token revoked by an edit that broke the file must not come back to life.
      const hadTokens = this.tokens.size > 0;
      this.tokens = new Map();
      this.tenants = new Map();
      if (hadTokens) this.tellRevoked("all");
      const message = (err as Error).message;
      if (message !== this.lastError) this.log(`control plane: ${message}; no token is accepted until the file is fixed`);
      this.lastError = message;
    }
  }

  onRevoked(listener: RevokedListener): () => void {
    this.revokedListeners.add(listener);
    return () => this.revokedListeners.delete(listener);
  }

  private tellRevoked(tokenIds: ReadonlySet<string> | "all"): void {
    for (const listener of this.revokedListeners) {
      try {
        listener(tokenIds);
      } catch {
        // A listener's failure must not keep the file's new contents from taking effect for the others.
      }
    }
  }

  authenticate(authorization: string | undefined): Tenant {
    // Stat on every call too: a revocation holds from the first call after the file changed.
    this.reload(false);
    if (!authorization) throw unauthenticated("this control plane requires a bearer token and the call carried none");
    const token = BEARER_RE.exec(authorization)?.[1];
    if (token === undefined) throw unauthenticated("the authorization header is not `Bearer <token>`");
    const id = tokenId(token);
    const entry = id === undefined ? undefined : this.tokens.get(id);
    if (!entry || !tokenMatches(entry, token)) throw unauthenticated("the bearer token is not valid (unknown, mistyped or revoked)");
    const tenant = this.tenants.get(entry.tenant);
    if (!tenant) throw unauthenticated("the bearer token's tenant is not configured");
    return tenant;
  }

  tenant(name: string): Tenant | undefined {
    return this.tenants.get(name);
  }

  /** The tenant and token id a presented token (no "Bearer ") belongs to, if the file holds it now. */
  identify(token: string): { tenant: Tenant; tokenId: string } | undefined {
    try {
      const tenant = this.authenticate(`Bearer ${token}`);
      return { tenant, tokenId: tokenId(token) ?? "" };
    } catch {
      return undefined;
    }
  }

  /** Whether the token with this id is still in the file (a console session ends with its token). */
  holds(id: string): boolean {
    this.reload(false);
    return this.tokens.has(id);
  }

  /** The tenant, as configured now, of the token with this id while the file holds it. */
  tokenTenant(id: string): Tenant | undefined {
    this.reload(false);
    const entry = this.tokens.get(id);
    return entry ? this.tenants.get(entry.tenant) : undefined;
  }

  close(): void {
    clearInterval(this.timer);
    this.watcher?.close();
  }
}
