// The egress proxy: the one host process that dials on an enclosure's behalf, and only to what the
// conversation's policy (within its tenant's operator maximum) allows. Each connection an enclosure's
// agent accepts on its loopback arrives here as a byte stream (egress-tunnels.ts); its first bytes
// are an HTTP proxy request: CONNECT host:port (a tunnel, TLS not intercepted) or a plain-HTTP request
// in absolute form. The proxy resolves the name itself and dials the address it checked, so no DNS
// answer can point an allowed name at an address the policy does not list (private, loopback and
// link-local ranges are refused unless a cidr lists them). Every request is audited: destination,
// bytes each way, allowed or refused and why.
import { lookup } from "node:dns/promises";
import { LookupBusy, LookupGate } from "./lookup-gate.js";
import { isIP, connect, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { AuditInput } from "../audit/audit-log.js";
import { RefusalAudit } from "../audit/refusal-audit.js";
import { LIMITS } from "../limits.js";
import { allowsAddress, allowsName, type EgressDestination, type EgressMaximum } from "./egress-policy.js";
import { clientHelloRecord, tlsServerName } from "./tls-sni.js";

/** Why a request was refused or failed: the audit's outcome is `refused:<why>` or `error:<why>`. */
export type EgressRefusal =
  | "bad_request"
  | "not_allowed"
  | "address_not_allowed"
  | "sni_not_allowed"
  | "not_resolved"
  | "resolver_busy"
  | "quota_exceeded"
  | "unreachable"
  | "too_large"
  | "idle"
  | "policy_changed";

export type Resolver = (name: string) => Promise<string[]>;

/** The system's resolver (getaddrinfo): every address of the name. */
export const systemResolver: Resolver = async (name) => (await lookup(name, { all: true, verbatim: true })).map((a) => a.address);

export interface EgressContext {
  conversationId: string;
  tenant: string;
  placement: string;
}

export interface EgressProxyOptions {
  /** The conversation's policy now (a change applies to the next request). */
  policyOf(conversationId: string): readonly EgressDestination[];
  /** The tenant's operator maximum now (the token file may have narrowed it since the policy was set). */
  maximumOf(tenant: string): EgressMaximum;
  record(input: AuditInput): void;
  resolve?: Resolver;
}

interface Target {
  method: string;
  host: string;
  port: number;
  /** Plain HTTP: the head to send upstream (origin-form request line, hop-by-hop headers dropped). */
  forward?: Buffer;
}

class Refused extends Error {
  constructor(
    readonly why: EgressRefusal,
    readonly status: number,
    message: string,
    readonly kind: "refused" | "error" = "refused",
  ) {
    super(message);
  }
}

// A host name as DNS spells one. Anything else is refused before it is matched or resolved: the
// resolver would read `evil.example\0.allowed.example` as `evil.example`, which a `*.allowed.example`
// rule would have let through.
const NAME_RE = /^[a-z0-9_]([a-z0-9_-]{0,62})(\.[a-z0-9_]([a-z0-9_-]{0,62}))*$/;

/** A host name (its grammar, not its policy) or an address, in the form it is checked and dialled in. */
export function requestHost(host: string): string | undefined {
  const h = host.toLowerCase().replace(/\.$/, "");
  if (isIP(h) === 6) return /^[0-9a-f:.]+$/.test(h) ? h : undefined;
  return h.length <= 253 && NAME_RE.test(h) ? h : undefined;
}

function splitHostPort(authority: string, defaultPort: number): { host: string; port: number } | undefined {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(authority);
  if (!m) return undefined;
  const host = requestHost(m[1] ?? m[2] ?? "");
  const port = m[3] === undefined ? defaultPort : Number(m[3]);
  if (!host || (m[1] !== undefined && isIP(host) !== 6) || port < 1 || port > 65535) return undefined;
  return { host, port };
}

const REASON: Record<number, string> = {
  400: "Bad Request",
  403: "Forbidden",
  408: "Request Timeout",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  502: "Bad Gateway",
  503: "Service Unavailable",
};

const HOP_BY_HOP = new Set(["connection", "proxy-connection", "proxy-authorization", "keep-alive", "te", "trailer", "upgrade"]);

/** The request the head asks for, or a refusal. */
function parseHead(head: string): Target {
  const [requestLine = "", ...headers] = head.split("\r\n");
  const m = /^([A-Z]{1,16}) (\S+) HTTP\/1\.[01]$/.exec(requestLine);
  if (!m) throw new Refused("bad_request", 400, "not an HTTP/1.x proxy request");
  const method = m[1] as string;
  const target = m[2] as string;
  if (method === "CONNECT") {
    const hp = splitHostPort(target, 0);
    if (!hp || hp.port === 0) throw new Refused("bad_request", 400, "CONNECT needs host:port");
    return { method, ...hp };
  }
  const url = /^http:\/\/([^/?#]+)([^#]*)$/i.exec(target);
  if (!url) throw new Refused("bad_request", 400, "a plain request must name an http:// URL (https goes through CONNECT)");
  const hp = splitHostPort(url[1] as string, 80);
  if (!hp || (url[1] as string).includes("@")) throw new Refused("bad_request", 400, "bad host in the URL");
  // The Host sent on is the URL's: the server dialled is asked for the name the policy was checked on.
  const kept = headers.filter((h) => {
    const name = h.slice(0, h.indexOf(":")).trim().toLowerCase();
    return h && name !== "host" && !HOP_BY_HOP.has(name);
  });
  const sent = [`Host: ${url[1] as string}`, ...kept, "Connection: close"];
  const forward = Buffer.from(`${method} ${url[2] || "/"} HTTP/1.1\r\n${sent.join("\r\n")}\r\n\r\n`, "latin1");
  return { method, ...hp, forward };
}

/** Reads up to the end of the request head; what came after it is returned too. */
function readHead(conn: Duplex): Promise<{ head: string; rest: Buffer }> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const timer = setTimeout(() => done(new Refused("idle", 408, "no request head in time")), LIMITS.egressIdleMs);
    const onData = (chunk: Buffer): void => {
      buf = Buffer.concat([buf, chunk]);
      const end = buf.indexOf("\r\n\r\n");
      if (end >= 0) return done(undefined, { head: buf.subarray(0, end).toString("latin1"), rest: buf.subarray(end + 4) });
      if (buf.length > LIMITS.egressHeadMaxBytes) done(new Refused("too_large", 431, `request head over ${LIMITS.egressHeadMaxBytes} bytes`));
    };
    const onEnd = (): void => done(new Refused("bad_request", 400, "closed before a request head"));
    const done = (err?: Error, v?: { head: string; rest: Buffer }): void => {
      clearTimeout(timer);
      conn.off("data", onData);
      conn.off("end", onEnd);
      conn.off("error", onEnd);
      conn.pause();
      if (err) reject(err);
      else resolve(v as { head: string; rest: Buffer });
    };
    conn.on("data", onData);
    conn.once("end", onEnd);
    conn.once("error", onEnd);
  });
}

/**
 * The first bytes the client sends inside a CONNECT tunnel: for TLS, up to the end of its whole
 * ClientHello however it was split; `hello` is that ClientHello as one record ("partial" or
 * "malformed" when the client stopped, waited too long or sent too much before it was whole). A
 * server that speaks first (SSH, SMTP) ends the wait when the client has said nothing yet: its first
 * bytes are `early`, for the client.
 */
function firstBytes(conn: Duplex, already: Buffer, upstream: Socket): Promise<{ first: Buffer; hello: ReturnType<typeof clientHelloRecord>; early: Buffer }> {
  const settled = (b: Buffer): boolean => b.length > 0 && clientHelloRecord(b) !== "partial";
  const none: Buffer = Buffer.alloc(0);
  if (settled(already) || conn.readableEnded) return Promise.resolve({ first: already, hello: clientHelloRecord(already), early: none });
  return new Promise((resolve) => {
    let buf = already;
    let early: Buffer = none;
    const timer = setTimeout(() => finish(), LIMITS.egressIdleMs);
    const finish = (): void => {
      clearTimeout(timer);
      conn.off("data", onData);
      conn.off("end", finish);
      upstream.off("data", onEarly);
      upstream.off("close", finish);
      conn.pause();
      upstream.pause();
      resolve({ first: buf, hello: clientHelloRecord(buf), early });
    };
    const onData = (b: Buffer): void => {
      buf = Buffer.concat([buf, b]);
      if (settled(buf) || buf.length > LIMITS.egressHelloMaxBytes) finish();
    };
    const onEarly = (b: Buffer): void => {
      early = b;
      upstream.off("data", onEarly);
      upstream.pause();
      if (buf.length === 0) finish();
    };
    conn.on("data", onData);
    conn.once("end", finish);
    upstream.on("data", onEarly);
    upstream.once("close", finish);
    conn.resume();
  });
}

function dial(address: string, port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: address, port });
    const timer = setTimeout(() => s.destroy(new Error("connect timed out")), LIMITS.egressConnectTimeoutMs);
    s.once("connect", () => {
      clearTimeout(timer);
      s.off("error", onError);
      resolve(s);
    });
    const onError = (err: Error): void => {
      clearTimeout(timer);
      reject(err);
    };
    s.once("error", onError);
  });
}

/** An open connection the proxy dialled for, checked again against the policy now and then. */
interface Live {
  ctx: EgressContext;
  target: Target;
  address: string;
  sni?: string;
  cut?: (why: "policy_changed") => void;
}

export class EgressProxy {
  private readonly perConversation = new Map<string, number>();
  private readonly perTenant = new Map<string, number>();
  private readonly resolve: Resolver;
  /** Lookups bounded and taken in turn between tenants (see lookup-gate.ts). */
  private readonly lookups = new LookupGate({
    inFlight: LIMITS.egressLookupsInFlight,
    queuedPerTenant: LIMITS.egressLookupsQueuedPerTenant,
    waitMs: LIMITS.egressLookupWaitMs,
  });
  /** Connections past the bounds are recorded at most once an interval per conversation: a flood of them must not fill the log. */
  private readonly overQuota: RefusalAudit;
  /** Refusals recorded per conversation this second: a flood of refused requests must not push what did leave out of the tenant's audit budget. */
  private readonly refusals = new Map<string, { sinceMs: number; recorded: number; unrecorded: number }>();
  private readonly live = new Set<Live>();
  private recheckTimer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: EgressProxyOptions) {
    this.resolve = opts.resolve ?? systemResolver;
    this.overQuota = new RefusalAudit((input) => opts.record(input));
  }

  /**
   * Cuts every open connection the policy and maximum no longer allow (a conversation's policy
   * narrowed or removed, its tenant's maximum lowered): allowed is decided now, not only when a
   * tunnel opened. Also runs every LIMITS.egressRecheckMs while connections are open.
   */
  recheck(): void {
    for (const l of this.live) if (!this.allowedNow(l)) l.cut?.("policy_changed");
  }

  private allowedNow(l: Live): boolean {
    const { policy, maximum } = this.policies(l.ctx);
    const under = (check: (p: readonly EgressDestination[]) => boolean): boolean => check(policy) && (!maximum || check(maximum));
    const { host, port } = l.target;
    const ok = isIP(host)
      ? under((p) => allowsAddress(p, host, port, false))
      : under((p) => allowsName(p, host, port)) && under((p) => allowsAddress(p, l.address, port, true));
    return ok && (l.sni === undefined || l.sni === host || under((p) => allowsName(p, l.sni as string, port)));
  }

  private track(l: Live): () => void {
    this.live.add(l);
    this.recheckTimer ??= setInterval(() => this.recheck(), LIMITS.egressRecheckMs).unref();
    return () => {
      this.live.delete(l);
      if (this.live.size === 0 && this.recheckTimer) {
        clearInterval(this.recheckTimer);
        this.recheckTimer = undefined;
      }
    };
  }

  /** Records a refusal unless this conversation is past its refusals for this second; those are counted into its next record. */
  private recordRefusal(conversationId: string, event: AuditInput & { detail: string }): void {
    const now = Date.now();
    let w = this.refusals.get(conversationId);
    if (!w || now - w.sinceMs >= 1000) {
      if (this.refusals.size > 4096) for (const [k, v] of this.refusals) if (now - v.sinceMs >= 1000 && !v.unrecorded) this.refusals.delete(k);
      w = { sinceMs: now, recorded: 0, unrecorded: w?.unrecorded ?? 0 };
      this.refusals.set(conversationId, w);
    }
    if (w.recorded >= LIMITS.egressRefusalsAuditedPerSecond) {
      w.unrecorded++;
      return;
    }
    w.recorded++;
    const more = w.unrecorded ? `; ${w.unrecorded} more refused or failed since the last record` : "";
    w.unrecorded = 0;
    this.opts.record({ ...event, detail: `${event.detail}${more}` });
  }

  /** Connections open now for a conversation. */
  open(conversationId: string): number {
    return this.perConversation.get(conversationId) ?? 0;
  }

  /** Serves one proxy connection to its end; never throws. */
  async serve(conn: Duplex, ctx: EgressContext): Promise<void> {
    const started = Date.now();
    let target: Target | undefined;
    let via = "";
    let sent = 0;
    let received = 0;
    // A refusal (limited: true) is recorded within the conversation's refusals per second; what was carried always is.
    const audit = (outcome: string, note: string, limited = false): void => {
      const event = {
        kind: "egress",
        conversationId: ctx.conversationId,
        tenant: ctx.tenant,
        placement: ctx.placement,
        tool: target ? `${target.method} ${target.host.includes(":") ? `[${target.host}]` : target.host}:${target.port}` : "",
        outcome,
        durationMs: Date.now() - started,
        detail: `${via ? `via ${via}; ` : ""}sent ${sent} bytes, received ${received} bytes${note ? `; ${note}` : ""}`,
      } as const;
      if (outcome === "refused:quota_exceeded") this.overQuota.refused(`egress ${ctx.conversationId}`, event);
      else if (limited) this.recordRefusal(ctx.conversationId, event);
      else this.opts.record(event);
    };
    let untrack: (() => void) | undefined;
    conn.on("error", () => undefined);
    const release = this.take(ctx);
    try {
      if (!release)
        throw new Refused(
          "quota_exceeded",
          429,
          `at most ${LIMITS.egressConnectionsPerConversation} egress connections per conversation and ${LIMITS.egressConnectionsPerTenant} per tenant`,
        );
      const { head, rest } = await readHead(conn);
      target = parseHead(head);
      const address = await this.decide(ctx, target);
      via = address;
      let upstream: Socket;
      try {
        upstream = await dial(address, target.port);
      } catch (err) {
        throw new Refused("unreachable", 502, `could not connect: ${(err as Error).message}`, "error");
      }
      const live: Live = { ctx, target, address };
      let first = rest;
      let early: Buffer = Buffer.alloc(0);
      if (target.method === "CONNECT") {
        conn.write("HTTP/1.1 200 Connection established\r\n\r\n");
        const read = await firstBytes(conn, rest, upstream);
        first = read.first;
        early = read.early;
        // The name the TLS client asks the server for must be one the policy allows too: a tunnel to an
        // allowed address cannot carry a ClientHello for another name (a shared front, a CDN), nor one
        // split so that no single chunk holds the name.
        const hello = read.hello;
        const sni = hello instanceof Buffer ? tlsServerName(hello) : undefined;
        const unreadable = hello === "partial" || hello === "malformed" || (sni !== undefined && !requestHost(sni));
        // Checked again: the policy may have changed while the client was slow with its first bytes.
        const why = !this.allowedNow(live) ? "policy_changed" : unreadable || !this.allowedNow({ ...live, sni }) ? "sni_not_allowed" : undefined;
        live.sni = sni;
        if (why) {
          upstream.destroy();
          conn.destroy();
          audit(
            `refused:${why}`,
            why === "policy_changed"
              ? "the policy or maximum no longer allows it"
              : unreadable
                ? "the tunnel began a TLS handshake whose server name could not be read"
                : `the TLS server name ${sni ?? ""} is not in the egress policy`,
            true,
          );
          return;
        }
      } else {
        upstream.write(target.forward ?? Buffer.alloc(0));
      }
      untrack = this.track(live);
      const outcome = await this.pipe(
        live,
        conn,
        upstream,
        first,
        early,
        (n) => (sent += n),
        (n) => (received += n),
      );
      audit(
        outcome === "ok" ? "ok" : outcome === "policy_changed" ? "refused:policy_changed" : `error:${outcome}`,
        outcome === "policy_changed" ? "cut: the policy or maximum no longer allows it" : "",
      );
    } catch (err) {
      const r = err instanceof Refused ? err : new Refused("unreachable", 502, (err as Error).message, "error");
      const body = `enclave egress proxy: ${r.kind} (${r.why}): ${r.message}\n`;
      if (conn.writable)
        conn.end(
          `HTTP/1.1 ${r.status} ${REASON[r.status] ?? "Error"}\r\nX-Enclave-Egress: ${r.kind}:${r.why}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        );
      audit(`${r.kind}:${r.why}`, r.message, true);
    } finally {
      untrack?.();
      release?.();
    }
  }

  private policies(ctx: EgressContext): { policy: readonly EgressDestination[]; maximum: EgressMaximum } {
    return { policy: this.opts.policyOf(ctx.conversationId), maximum: this.opts.maximumOf(ctx.tenant) };
  }

  /** The address to dial, checked against the policy and the maximum, or a refusal. */
  private async decide(ctx: EgressContext, t: Target): Promise<string> {
    const { policy, maximum } = this.policies(ctx);
    const under = (p: readonly EgressDestination[], check: (p: readonly EgressDestination[]) => boolean): boolean => check(p) && (!maximum || check(maximum));
    if (isIP(t.host)) {
      if (!under(policy, (p) => allowsAddress(p, t.host, t.port, false)))
        throw new Refused("not_allowed", 403, `${t.host} port ${t.port} is not in the egress policy`);
      return t.host;
    }
    if (!under(policy, (p) => allowsName(p, t.host, t.port))) throw new Refused("not_allowed", 403, `${t.host} port ${t.port} is not in the egress policy`);
    let addresses: string[];
    try {
      addresses = await this.lookups.run(ctx.tenant, () => this.resolve(t.host));
    } catch (err) {
      if (err instanceof LookupBusy) throw new Refused("resolver_busy", 503, err.message, "error");
      throw new Refused("not_resolved", 502, `${t.host} did not resolve (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, "error");
    }
    const ok = addresses.find((a) => under(policy, (p) => allowsAddress(p, a, t.port, true)));
    if (!ok) {
      throw new Refused(
        "address_not_allowed",
        403,
        `${t.host} resolves to ${addresses.join(", ") || "nothing"}, none of which the policy allows (an address that is not public needs a cidr destination)`,
      );
    }
    return ok;
  }

  /** Carries bytes both ways until either side ends, the idle time passes or the byte bound is reached. */
  private pipe(
    live: Live,
    conn: Duplex,
    upstream: Socket,
    first: Buffer,
    early: Buffer,
    onSent: (n: number) => void,
    onReceived: (n: number) => void,
  ): Promise<"ok" | "idle" | "too_large" | "policy_changed"> {
    return new Promise((resolve) => {
      let total = 0;
      let outcome: "ok" | "idle" | "too_large" | "policy_changed" = "ok";
      let idle = setTimeout(() => cut("idle"), LIMITS.egressIdleMs);
      const touch = (n: number): void => {
        total += n;
        clearTimeout(idle);
        idle = setTimeout(() => cut("idle"), LIMITS.egressIdleMs);
        if (total > LIMITS.egressMaxBytesPerConnection) cut("too_large");
      };
      const cut = (why: "idle" | "too_large" | "policy_changed"): void => {
        outcome = why;
        upstream.destroy();
        conn.destroy();
      };
      live.cut = cut;
      // Done when the enclosure's side is closed: after the upstream closes, what it sent is flushed
      // to the tunnel first (a piped stream nobody reads any more would never close by itself).
      upstream.once("close", () => {
        if (conn.destroyed) return;
        conn.end();
        if (conn.writableFinished) conn.destroy();
        else conn.once("finish", () => conn.destroy());
      });
      conn.once("close", () => {
        upstream.destroy();
        clearTimeout(idle);
        resolve(outcome);
      });
      upstream.on("error", () => conn.destroy());
      if (first.length) {
        onSent(first.length);
        touch(first.length);
        upstream.write(first);
      }
      if (early.length) {
        onReceived(early.length);
        touch(early.length);
        conn.write(early);
      }
      conn.on("data", (b: Buffer) => {
        onSent(b.length);
        touch(b.length);
      });
      upstream.on("data", (b: Buffer) => {
        onReceived(b.length);
        touch(b.length);
      });
      conn.pipe(upstream);
      upstream.pipe(conn);
      conn.resume();
    });
  }

  /** Counts a connection against its conversation's and tenant's bounds; undefined when past one. */
  private take(ctx: EgressContext): (() => void) | undefined {
    const c = this.perConversation.get(ctx.conversationId) ?? 0;
    const t = this.perTenant.get(ctx.tenant) ?? 0;
    if (c >= LIMITS.egressConnectionsPerConversation || t >= LIMITS.egressConnectionsPerTenant) return undefined;
    this.perConversation.set(ctx.conversationId, c + 1);
    this.perTenant.set(ctx.tenant, t + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const c2 = (this.perConversation.get(ctx.conversationId) ?? 1) - 1;
      const t2 = (this.perTenant.get(ctx.tenant) ?? 1) - 1;
      if (c2) this.perConversation.set(ctx.conversationId, c2);
      else this.perConversation.delete(ctx.conversationId);
      if (t2) this.perTenant.set(ctx.tenant, t2);
      else this.perTenant.delete(ctx.tenant);
    };
  }
}
