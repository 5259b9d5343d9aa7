// Who may use the console, and protection of its state-changing requests:
// - the access token (required on a non-loopback bind): accepted once as ?token= (then kept in an
//   HttpOnly, SameSite=Strict session cookie) or as "Authorization: Bearer"; every request,
//   including the event stream, is checked;
// - on a loopback bind without a token, the Host header must name a loopback host, so a web page
//   that rebinds its DNS name to 127.0.0.1 cannot read the console;
// - POSTs need the same origin (Origin, else Referer) and the session's CSRF token;
// - a request a browser marks as coming from another site (Sec-Fetch-Site) is refused whatever its
//   method: a page elsewhere (or a dev server on another localhost port, serving what a workspace
//   wrote) must not read the console, hold an event stream open or set anything off.
// Sessions are stateless: the cookie is an id signed with a per-process secret, and the CSRF token
// is derived from it, so nothing grows with the number of visitors.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Tenant } from "../tenants/tenant.js";
import { type ConsoleOperators, isLoopbackHost } from "./console-settings.js";

const TOKEN_SESSION_RE = /^tk_([0-9a-f]{8})_/;

export interface Session {
  id: string;
  csrf: string;
  /** Whose console this is: a tenant's token's tenant (as configured now); undefined for the console's own token or none (everything). */
  viewer?: Tenant;
  /** The tenant's token this session was opened with (what it opens ends when that token is revoked). */
  tokenId?: string;
  /** Set-Cookie to send when the session is new. */
  setCookie?: string;
}

export type AccessDecision =
  | { ok: true; session: Session; viaBearer: boolean; /** the URL without ?token=, to redirect to */ cleanUrl?: string }
  | { ok: false; status: 401 | 403 | 421; reason: string };

function equalSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? "").split(";")) {
    const i = part.indexOf("=");
    if (i > 0) out.set(part.slice(0, i).trim(), part.slice(i + 1).trim());
  }
  return out;
}

export class ConsoleAccess {
  private readonly secret = randomBytes(32);
  readonly cookieName: string;

  constructor(
    /** Empty: no token asked. */
    private readonly token: string,
    private readonly port: number,
    private readonly loopbackOnly: boolean,
    /** With the API's tenants: a tenant's bearer token opens the console too, for what that tenant may see. */
    private readonly operators?: ConsoleOperators,
  ) {
    // Cookies are not scoped by port: name them per console so two consoles on one host do not clash.
    this.cookieName = `enclave_console_${port}`;
  }

  get tokenRequired(): boolean {
    return this.token !== "" || this.operators !== undefined;
  }

  /**
   * What a presented token opens: the console's own token (everything), or a tenant's token (the
   * session then names that token, so revoking it ends the session, and shows what its tenant may
   * see: every tenant's conversations for an operator, its own for any other).
   */
  private admit(given: string): { ok: true; tokenId?: string; viewer?: Tenant } | { ok: false; status: 401; reason: string } {
    if (this.token !== "" && equalSecret(given, this.token)) return { ok: true };
    const who = this.operators?.identify(given);
    if (who) return { ok: true, tokenId: who.tokenId, viewer: who.tenant };
    return { ok: false, status: 401, reason: "that is not this console's access token nor a tenant's token" };
  }

  private sign(what: string): string {
    return createHmac("sha256", this.secret).update(what).digest("base64url");
  }

  private session(id: string, isNew: boolean, viewer?: Tenant, tokenId?: string): Session {
    const s: Session = { id, csrf: this.sign(`csrf:${id}`), viewer, tokenId };
    if (isNew) s.setCookie = `${this.cookieName}=${id}.${this.sign(`sid:${id}`)}; Path=/; HttpOnly; SameSite=Strict`;
    return s;
  }

  private newSession(tokenId?: string, viewer?: Tenant): Session {
    const random = randomBytes(18).toString("base64url");
    return this.session(tokenId ? `tk_${tokenId}_${random}` : random, true, viewer, tokenId);
  }

  private cookieSession(req: IncomingMessage): Session | undefined {
    const raw = parseCookies(req.headers.cookie).get(this.cookieName);
    const [id, sig] = (raw ?? "").split(".");
    if (!id || !sig || !equalSecret(sig, this.sign(`sid:${id}`))) return undefined;
    const tokenId = TOKEN_SESSION_RE.exec(id)?.[1];
    if (tokenId === undefined) return this.session(id, false);
    // The token's tenant as configured now: a revoked token ends the session, a changed operator flag shows at once.
    const viewer = this.operators?.tokenTenant(tokenId);
    return viewer ? this.session(id, false, viewer, tokenId) : undefined;
  }

  /** The Host header must be this console on a loopback name when nothing else guards it. */
  private hostAllowed(req: IncomingMessage): boolean {
    if (this.tokenRequired || !this.loopbackOnly) return true;
    const host = req.headers.host ?? "";
    const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(host);
    if (!m?.[1]) return false;
    return isLoopbackHost(m[1]) && Number(m[2] ?? 80) === this.port;
  }

  check(req: IncomingMessage, url: URL): AccessDecision {
    if (!this.hostAllowed(req)) {
      return { ok: false, status: 421, reason: `this console answers only as 127.0.0.1:${this.port} or localhost:${this.port}` };
    }
    const existing = this.cookieSession(req);
    if (!this.tokenRequired) return { ok: true, session: existing ?? this.newSession(), viaBearer: false };
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? "")?.[1];
    if (bearer !== undefined) {
      const admitted = this.admit(bearer);
      // The bearer token decides whose view this is, whatever cookie came with it.
      if (admitted.ok) return { ok: true, session: this.session("bearer", false, admitted.viewer, admitted.tokenId), viaBearer: true };
      return admitted;
    }
    const given = url.searchParams.get("token");
    if (given !== null) {
      const admitted = this.admit(given);
      if (!admitted.ok) return admitted;
      const clean = new URL(url);
      clean.searchParams.delete("token");
      // A new login replaces whatever session the browser had (it may be another tenant's).
      return { ok: true, session: this.newSession(admitted.tokenId, admitted.viewer), viaBearer: false, cleanUrl: `${clean.pathname}${clean.search}` };
    }
    if (existing) return { ok: true, session: existing, viaBearer: false };
    return { ok: false, status: 401, reason: "this console needs its access token: open the address `enclave serve` printed (it ends in ?token=…)" };
  }

  /** A state-changing request: same origin, and the session's CSRF token (form field or header). */
  checkPost(req: IncomingMessage, session: Session, viaBearer: boolean, formToken: string | undefined): { ok: true } | { ok: false; reason: string } {
    // A bearer token cannot be sent cross-site by a browser without a CORS preflight we never grant.
    if (viaBearer) return { ok: true };
    const host = req.headers.host ?? "";
    const origin = req.headers.origin ?? (req.headers.referer ? safeOrigin(req.headers.referer) : undefined);
    if (!origin || origin !== `http://${host}`) return { ok: false, reason: "cross-origin request refused (Origin does not match this console)" };
    const token = (req.headers["x-csrf-token"] as string | undefined) ?? formToken ?? "";
    if (!equalSecret(token, session.csrf)) return { ok: false, reason: "missing or stale form token: reload the page and try again" };
    return { ok: true };
  }
}

function safeOrigin(referer: string): string | undefined {
  try {
    return new URL(referer).origin;
  } catch {
    return undefined;
  }
}

/**
 * Refuses a request the browser says another site made. "same-site" counts too: another port of
 * the same host is the same site. Clients that send no Sec-Fetch-Site (the CLI, curl, old
 * browsers) rely on the token, Host and CSRF checks alone.
 */
export function foreignSiteRefusal(req: IncomingMessage): string | undefined {
  const site = req.headers["sec-fetch-site"];
  if (site !== "cross-site" && site !== "same-site") return undefined;
  return `refused: the browser marked this request as coming from another site (Sec-Fetch-Site: ${site}); the console answers only its own pages. Open the console's address directly (type it or use a bookmark).`;
}
