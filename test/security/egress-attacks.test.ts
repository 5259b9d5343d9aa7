// Promise: the egress proxy dials only what a conversation's policy (within its tenant's maximum)
// allows, whatever the request it reads says, and a hostile enclosure cannot outgrow its bounds or
// erase its audit trail. The real proxy on real sockets: each test conversation's connections come
// from a front listener the proxy serves (as the agent tunnel hands them over); a mirror standing in
// for a package mirror, canaries that must hear nothing, and a raw listener standing in for a TLS
// server all listen on 127.0.0.1 (127.0.0.2 and .3 for the name tests): no other address is ever a
// target. Names the tests use resolve from a table; `localhost` and numeric spellings go to the
// system's resolver (getaddrinfo), as in production.
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer } from "node:http";
import { connect, createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { AuditInput } from "@enclave/control-plane/audit/audit-log.js";
import { type EgressDestination, parseDestinationText } from "@enclave/control-plane/egress/egress-policy.js";
import { type EgressContext, EgressProxy, systemResolver } from "@enclave/control-plane/egress/egress-proxy.js";
import { LIMITS } from "@enclave/control-plane/limits.js";

const servers: Array<Server | HttpServer> = [];
const events: AuditInput[] = [];
const policies = new Map<string, EgressDestination[]>();
const maxima = new Map<string, EgressDestination[] | undefined>();
/** Every name the proxy asked the resolver for. */
const asked: string[] = [];
const TABLE: Record<string, string[]> = {};

let mirrorPort: number;
const mirrorSaw: Array<{ host: string; url: string }> = [];
/** Connections a canary accepted, by name. */
const canaries = new Map<string, { port: number; accepted: number }>();
/** Bytes the raw listener received, per connection. */
let raw: { port: number; received: Buffer[] };
let proxy: EgressProxy;
const saved = { ...LIMITS };
// The bounds a test lowers to reach them in milliseconds (restored after each test); the proxy reads them at each use.
const tunable = LIMITS as unknown as Record<
  "egressIdleMs" | "egressMaxBytesPerConnection" | "egressConnectionsPerConversation" | "egressConnectionsPerTenant",
  number
>;

async function listen<T extends Server | HttpServer>(server: T, host = "127.0.0.1", port = 0): Promise<number> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(port, host, r));
  return (server.address() as AddressInfo).port;
}

async function canary(name: string, host = "127.0.0.1", port = 0): Promise<number> {
  const c = { port: 0, accepted: 0 };
  canaries.set(name, c);
  c.port = await listen(
    createServer((s) => {
      c.accepted++;
      s.destroy();
    }),
    host,
    port,
  );
  return c.port;
}

const d = (text: string): EgressDestination => parseDestinationText(text, "test");

/** A front listener for one conversation: each connection it accepts is served by the proxy as that conversation's. */
async function front(conversationId: string, tenant: string, policy: string[], maximum?: string[]): Promise<number> {
  policies.set(conversationId, policy.map(d));
  maxima.set(tenant, maximum?.map(d));
  const ctx: EgressContext = { conversationId, tenant, placement: "host" };
  return await listen(createServer({ allowHalfOpen: true }, (s) => void proxy.serve(s, ctx)));
}

/** Sends the request (a string, or parts written apart), reads until the proxy closes. */
function ask(port: number, request: string | Buffer | Array<string | Buffer>, gapMs = 50): Promise<string> {
  return new Promise((resolve) => {
    const s = connect(port, "127.0.0.1", () => {
      const parts = Array.isArray(request) ? request : [request];
      void (async () => {
        for (const [i, p] of parts.entries()) {
          if (i) await new Promise((r) => setTimeout(r, gapMs));
          if (!s.destroyed) s.write(p);
        }
        if (!s.destroyed) s.end();
      })();
    });
    let got = "";
    s.on("data", (b: Buffer) => (got += b.toString("latin1")));
    s.on("close", () => resolve(got));
    s.on("error", () => resolve(got));
  });
}

const status = (r: string): string => r.split("\r\n")[0] ?? "";

async function settle(ms = 100): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
}

/** A TLS 1.2-shaped ClientHello naming `name` (enough for a proxy reading its server name), as one record. */
function clientHello(name: string): Buffer {
  const host = Buffer.from(name, "latin1");
  const sniList = Buffer.concat([Buffer.from([0]), u16(host.length), host]);
  const sni = Buffer.concat([u16(0), u16(sniList.length + 2), u16(sniList.length), sniList]);
  const body = Buffer.concat([
    Buffer.from([3, 3]),
    Buffer.alloc(32, 7),
    Buffer.from([0]),
    u16(2),
    Buffer.from([0x13, 0x01]),
    Buffer.from([1, 0]),
    u16(sni.length),
    sni,
  ]);
  const hs = Buffer.concat([Buffer.from([1, 0, body.length >> 8, body.length & 255]), body]);
  return Buffer.concat([Buffer.from([22, 3, 1]), u16(hs.length), hs]);
}

function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n);
  return b;
}

/** The same ClientHello's handshake split over two TLS records. */
function twoRecords(hello: Buffer): Buffer {
  const hs = hello.subarray(5);
  const cut = 20;
  return Buffer.concat([Buffer.from([22, 3, 1]), u16(cut), hs.subarray(0, cut), Buffer.from([22, 3, 1]), u16(hs.length - cut), hs.subarray(cut)]);
}

beforeAll(async () => {
  const mirror = createHttpServer((req: IncomingMessage, res) => {
    mirrorSaw.push({ host: req.headers.host ?? "", url: req.url ?? "" });
    res.end("mirror");
  });
  mirrorPort = await listen(mirror);
  raw = { port: 0, received: [] };
  raw.port = await listen(
    createServer((s: Socket) => {
      const i = raw.received.push(Buffer.alloc(0)) - 1;
      s.on("data", (b: Buffer) => (raw.received[i] = Buffer.concat([raw.received[i] ?? Buffer.alloc(0), b])));
      s.on("error", () => undefined);
    }),
  );
  await canary("api");
  await canary("loopback2", "127.0.0.2", mirrorPort);
  await canary("loopback3", "127.0.0.3", mirrorPort);
  Object.assign(TABLE, {
    "mirror.test": ["127.0.0.1"],
    "tls.test": ["127.0.0.1"],
    "rebind.test": ["127.0.0.2"],
    "both.test": ["127.0.0.3", "127.0.0.1"],
    "x.allowed.test": ["127.0.0.1"],
  });
  proxy = new EgressProxy({
    policyOf: (id) => policies.get(id) ?? [],
    maximumOf: (t) => maxima.get(t),
    record: (e) => events.push(e),
    resolve: async (name) => {
      asked.push(name);
      const known = TABLE[name];
      if (known) return known;
      // Only what getaddrinfo answers from the host itself: no test sends a query to a DNS server.
      if (/^(localhost|[0-9a-fx.]+$)/.test(name)) return await systemResolver(name);
      throw Object.assign(new Error(`${name} not found`), { code: "ENOTFOUND" });
    },
  });
});
afterEach(() => Object.assign(tunable, saved));
afterAll(() => {
  for (const s of servers) s.close();
});

const canaryHeard = (name: string): number => canaries.get(name)?.accepted ?? -1;

describe("request tricks against a policy listing the mirror by name and its one port by cidr", () => {
  const policy = (): string[] => [`mirror.test:${mirrorPort}`, `127.0.0.1/32:${mirrorPort}`];

  it("reaches the mirror, by name and by address, and no other loopback port however the request spells it", async () => {
    const p = await front("c-tricks", "t-tricks", policy());
    expect(status(await ask(p, `GET http://mirror.test:${mirrorPort}/simple/ HTTP/1.1\r\nHost: mirror.test\r\n\r\n`))).toBe("HTTP/1.1 200 OK");
    expect(status(await ask(p, `GET http://MIRROR.TEST.:${mirrorPort}/ HTTP/1.1\r\n\r\n`))).toBe("HTTP/1.1 200 OK");
    const api = canaries.get("api")?.port ?? 0;
    const spellings = [
      "127.0.0.1",
      "2130706433",
      "0x7f000001",
      "0177.0.0.1",
      "127.1",
      "0",
      "0.0.0.0",
      "[::ffff:127.0.0.1]",
      "[::ffff:7f00:1]",
      "[0:0:0:0:0:ffff:7f00:1]",
      "[::1]",
      "[::]",
      "[fe80::1%25lo]",
      "[fe80::1%lo]",
      "localhost",
      "localhost.",
      "LOCALHOST",
      "mirror.test",
      "xn--mirror-9ja.test",
      "m\u0456rror.test",
    ];
    for (const host of spellings) {
      const connectAnswer = await ask(p, Buffer.from(`CONNECT ${host}:${api} HTTP/1.1\r\nHost: mirror.test:${mirrorPort}\r\n\r\n`, "utf8"));
      expect(status(connectAnswer), `CONNECT ${host}:${api}`).toMatch(/^HTTP\/1\.1 (400|403) /);
      const getAnswer = await ask(p, Buffer.from(`GET http://${host}:${api}/ HTTP/1.1\r\nHost: mirror.test:${mirrorPort}\r\n\r\n`, "utf8"));
      expect(status(getAnswer), `GET http://${host}:${api}/`).toMatch(/^HTTP\/1\.1 (400|403) /);
    }
    // Userinfo naming the allowed host before the real one, and a port past 65535.
    for (const url of [
      `http://mirror.test:${mirrorPort}@127.0.0.1:${api}/`,
      `http://127.0.0.1:${api}#@mirror.test:${mirrorPort}/`,
      `http://mirror.test:${65536 + mirrorPort}/`,
    ]) {
      expect(status(await ask(p, `GET ${url} HTTP/1.1\r\n\r\n`)), url).toMatch(/^HTTP\/1\.1 400 /);
    }
    await settle();
    expect(canaryHeard("api")).toBe(0);
  });

  it("sends the URL's host on, never the Host header's, and keeps a kept-alive or smuggled second request on the one upstream it checked", async () => {
    const p = await front("c-http", "t-http", policy());
    const api = canaries.get("api")?.port ?? 0;
    mirrorSaw.length = 0;
    const r = await ask(p, `GET http://mirror.test:${mirrorPort}/a HTTP/1.1\r\nHost: 127.0.0.1:${api}\r\n\r\n`);
    expect(status(r)).toBe("HTTP/1.1 200 OK");
    expect(mirrorSaw.at(-1)).toEqual({ host: `mirror.test:${mirrorPort}`, url: "/a" });
    // Two requests on one connection, the second to a port the policy does not list.
    await ask(p, `GET http://mirror.test:${mirrorPort}/one HTTP/1.1\r\nConnection: keep-alive\r\n\r\nGET http://127.0.0.1:${api}/two HTTP/1.1\r\n\r\n`);
    // Transfer-Encoding beside Content-Length: whatever the body is read as, it goes to the mirror.
    const smuggled = `GET http://127.0.0.1:${api}/ HTTP/1.1\r\nHost: 127.0.0.1:${api}\r\n\r\n`;
    await ask(p, `POST http://mirror.test:${mirrorPort}/ HTTP/1.1\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n${smuggled}`);
    await ask(p, `POST http://mirror.test:${mirrorPort}/ HTTP/1.1\r\nContent-Length: ${smuggled.length}\r\nTransfer-Encoding: chunked\r\n\r\n${smuggled}`);
    // A bare LF inside a header line is no line break to the proxy's parser: no second Host, no second request line.
    await ask(p, `GET http://mirror.test:${mirrorPort}/lf HTTP/1.1\r\nX-A: b\nHost: 127.0.0.1:${api}\r\n\r\n`);
    await settle();
    expect(canaryHeard("api")).toBe(0);
    expect(mirrorSaw.every((s) => s.host !== `127.0.0.1:${api}` || s.url !== "/")).toBe(true);
  });

  it("dials only an address it checked: a name answering with an unlisted loopback address is refused, and of two answers only the listed one is dialled", async () => {
    const p = await front("c-names", "t-names", [`rebind.test:${mirrorPort}`, `both.test:${mirrorPort}`, `127.0.0.1/32:${mirrorPort}`, `*.allowed.test`]);
    const rebind = await ask(p, `CONNECT rebind.test:${mirrorPort} HTTP/1.1\r\n\r\n`);
    expect(rebind).toContain("X-Enclave-Egress: refused:address_not_allowed");
    const both = await ask(p, `GET http://both.test:${mirrorPort}/both HTTP/1.1\r\n\r\n`);
    expect(status(both)).toBe("HTTP/1.1 200 OK");
    // A wildcard name allows public addresses only: its loopback answer is refused on every port.
    const wild = await ask(p, `CONNECT x.allowed.test:${canaries.get("api")?.port ?? 0} HTTP/1.1\r\n\r\n`);
    expect(wild).toContain("X-Enclave-Egress: refused:address_not_allowed");
    await settle();
    expect(canaryHeard("loopback2")).toBe(0);
    expect(canaryHeard("loopback3")).toBe(0);
    expect(canaryHeard("api")).toBe(0);
  });

  it("with only a host name listed (any port), reaches none of the host's own loopback services: the API, the console, the metrics", async () => {
    const p = await front("c-nameonly", "t-nameonly", ["mirror.test"]);
    const api = canaries.get("api")?.port ?? 0;
    for (const host of ["mirror.test", "127.0.0.1", "localhost", "[::1]", "[::ffff:127.0.0.1]"]) {
      for (const port of [api, mirrorPort]) {
        expect(status(await ask(p, `CONNECT ${host}:${port} HTTP/1.1\r\n\r\n`)), `${host}:${port}`).toBe("HTTP/1.1 403 Forbidden");
        expect(status(await ask(p, `GET http://${host}:${port}/metrics HTTP/1.1\r\n\r\n`)), `${host}:${port}`).toBe("HTTP/1.1 403 Forbidden");
      }
    }
    await settle();
    expect(canaryHeard("api")).toBe(0);
  });

  it("never resolves a name outside DNS's grammar: a NUL would make the resolver look up the name before it, whatever a wildcard matched", async () => {
    const p = await front("c-nul", "t-nul", ["*.allowed.test"]);
    asked.length = 0;
    for (const host of ["localhost\u0000.allowed.test", "localhost%00.allowed.test", "127.0.0.1\\.allowed.test", "localhost\t.allowed.test"]) {
      const r = await ask(p, Buffer.from(`CONNECT ${host}:443 HTTP/1.1\r\n\r\n`, "latin1"));
      expect(r, JSON.stringify(host)).toContain("X-Enclave-Egress: refused:bad_request");
    }
    expect(asked).toEqual([]);
  });

  it("treats an IPv4-mapped address as the IPv4 one however it is spelled: a policy listing all of IPv6 does not reach IPv4 loopback", async () => {
    const p = await front("c-mapped", "t-mapped", ["::/0"]);
    const api = canaries.get("api")?.port ?? 0;
    for (const host of ["[::ffff:7f00:1]", "[::ffff:127.0.0.1]", "[0:0:0:0:0:ffff:7f00:1]", "[::FFFF:7F00:0001]"]) {
      expect(status(await ask(p, `CONNECT ${host}:${api} HTTP/1.1\r\n\r\n`)), host).toBe("HTTP/1.1 403 Forbidden");
    }
    await settle();
    expect(canaryHeard("api")).toBe(0);
  });
});

describe("the TLS server name in a tunnel", () => {
  const policy = (): string[] => [`tls.test:${raw.port}`, `127.0.0.1/32:${raw.port}`];

  it("refuses a ClientHello for a name the policy does not list, whole, split over segments or over records; one it lists passes however split", async () => {
    const p = await front("c-sni", "t-sni", policy());
    const other = clientHello("other.test");
    const cases: Array<[string, Array<string | Buffer>]> = [
      ["whole", [other]],
      ["split after 3 bytes", [other.subarray(0, 3), other.subarray(3)]],
      ["split after the record header", [other.subarray(0, 5), other.subarray(5, 30), other.subarray(30)]],
      ["two records", [twoRecords(other)]],
      ["two records, apart", [twoRecords(other).subarray(0, 25), twoRecords(other).subarray(25)]],
      ["a NUL in the name", [clientHello("evil.test\u0000.tls.test")]],
    ];
    for (const [what, parts] of cases) {
      raw.received.length = 0;
      const r = await ask(p, [`CONNECT tls.test:${raw.port} HTTP/1.1\r\n\r\n`, ...parts]);
      expect(status(r), what).toBe("HTTP/1.1 200 Connection established");
      await settle(50);
      expect(Buffer.concat(raw.received).length, what).toBe(0);
      expect(events.at(-1)?.outcome, what).toBe("refused:sni_not_allowed");
    }
    const own = clientHello("tls.test");
    for (const parts of [[own], [own.subarray(0, 3), own.subarray(3)], [twoRecords(own)]]) {
      raw.received.length = 0;
      await ask(p, [`CONNECT tls.test:${raw.port} HTTP/1.1\r\n\r\n`, ...parts]);
      await settle(50);
      expect(Buffer.concat(raw.received).equals(Buffer.concat(parts))).toBe(true);
    }
  });
});

describe("bounds", () => {
  it("a request head that never ends is cut at the deadline, one too large at once; the slots come back", async () => {
    tunable.egressIdleMs = 400;
    const p = await front("c-slow", "t-slow", [`mirror.test:${mirrorPort}`]);
    const t0 = Date.now();
    const slow = await ask(p, ["CONNECT mirror.test", ":1", "2 HTTP/1.1\r\n", "X: 1\r\n", "X: 2\r\n", "X: 3\r\n", "X: 4\r\n", "X: 5\r\n", "X: 6\r\n"], 100);
    expect(status(slow)).toBe("HTTP/1.1 408 Request Timeout");
    expect(Date.now() - t0).toBeLessThan(2_000);
    const huge = await ask(p, ["GET http://mirror.test/ HTTP/1.1\r\nX: ", Buffer.alloc(LIMITS.egressHeadMaxBytes * 4, 97)]);
    expect(status(huge)).toBe("HTTP/1.1 431 Request Header Fields Too Large");
    expect(proxy.open("c-slow")).toBe(0);
  });

  it("cuts a tunnel past its byte bound", async () => {
    tunable.egressMaxBytesPerConnection = 64 * 1024;
    const p = await front("c-bytes", "t-bytes", [`127.0.0.1/32:${raw.port}`]);
    raw.received.length = 0;
    await ask(p, [`CONNECT 127.0.0.1:${raw.port} HTTP/1.1\r\n\r\n`, ...Array.from({ length: 8 }, () => Buffer.alloc(32 * 1024, 1))], 10);
    await settle();
    expect(Buffer.concat(raw.received).length).toBeLessThanOrEqual(LIMITS.egressMaxBytesPerConnection + 32 * 1024);
    expect(events.filter((e) => e.conversationId === "c-bytes").at(-1)?.outcome).toBe("error:too_large");
  });

  it("half-open connections fill one conversation's and one tenant's slots, never another tenant's", async () => {
    tunable.egressConnectionsPerConversation = 3;
    tunable.egressConnectionsPerTenant = 5;
    const a1 = await front("c-a1", "t-a", [`mirror.test:${mirrorPort}`, `127.0.0.1/32:${mirrorPort}`]);
    const a2 = await front("c-a2", "t-a", [`mirror.test:${mirrorPort}`, `127.0.0.1/32:${mirrorPort}`]);
    const b = await front("c-b", "t-b", [`mirror.test:${mirrorPort}`, `127.0.0.1/32:${mirrorPort}`]);
    const held: Socket[] = [];
    const hold = async (port: number): Promise<void> => {
      const s = connect(port, "127.0.0.1");
      s.on("error", () => undefined);
      held.push(s);
      await new Promise((r) => s.once("connect", r));
      s.write("CONNECT mirror.test");
    };
    try {
      for (let i = 0; i < 3; i++) await hold(a1);
      await settle();
      expect(await ask(a1, `GET http://mirror.test:${mirrorPort}/ HTTP/1.1\r\n\r\n`)).toContain("X-Enclave-Egress: refused:quota_exceeded");
      for (let i = 0; i < 2; i++) await hold(a2);
      await settle();
      expect(await ask(a2, `GET http://mirror.test:${mirrorPort}/ HTTP/1.1\r\n\r\n`)).toContain("X-Enclave-Egress: refused:quota_exceeded");
      expect(status(await ask(b, `GET http://mirror.test:${mirrorPort}/ HTTP/1.1\r\n\r\n`))).toBe("HTTP/1.1 200 OK");
    } finally {
      for (const s of held) s.destroy();
    }
  });

  it("a flood of refused requests records at most a few a second per conversation, with a count of the rest", async () => {
    const p = await front("c-flood", "t-flood", [`mirror.test:${mirrorPort}`]);
    const before = events.length;
    const t0 = Date.now();
    for (let i = 0; i < 40; i++) await Promise.all(Array.from({ length: 10 }, (_, j) => ask(p, `CONNECT 127.0.0.1:${1000 + i * 10 + j} HTTP/1.1\r\n\r\n`)));
    const seconds = Math.ceil((Date.now() - t0) / 1000) + 1;
    const recorded = events.slice(before).filter((e) => e.conversationId === "c-flood");
    expect(recorded.length).toBeLessThanOrEqual(seconds * LIMITS.egressRefusalsAuditedPerSecond);
    // The next refusal after the flood says how many went unrecorded.
    await settle(1100);
    await ask(p, `CONNECT 127.0.0.1:1 HTTP/1.1\r\n\r\n`);
    expect(events.at(-1)?.detail).toMatch(/; \d+ more refused or failed since the last record$/);
  });
});

describe("a policy or maximum narrowed while a tunnel is open", () => {
  async function openTunnel(port: number): Promise<{ s: Socket; closed: Promise<number> }> {
    const s = connect(port, "127.0.0.1");
    s.on("error", () => undefined);
    await new Promise((r) => s.once("connect", r));
    s.write(`CONNECT 127.0.0.1:${raw.port} HTTP/1.1\r\n\r\n`);
    await new Promise((r) => s.once("data", r));
    s.write("hello");
    // Carried on before anything changes (a change before the first bytes is caught as they come).
    await settle(100);
    const t0 = Date.now();
    return { s, closed: new Promise((r) => s.once("close", () => r(Date.now() - t0))) };
  }

  it("cuts it within the recheck interval when the conversation's policy no longer allows it", async () => {
    const p = await front("c-narrow", "t-narrow", [`127.0.0.1/32:${raw.port}`]);
    const { closed } = await openTunnel(p);
    policies.set("c-narrow", [d(`127.0.0.1/32:${mirrorPort}`)]);
    expect(await closed).toBeLessThan(LIMITS.egressRecheckMs * 3);
    await settle(50);
    expect(events.filter((e) => e.conversationId === "c-narrow").at(-1)?.outcome).toBe("refused:policy_changed");
  });

  it("cuts it within the recheck interval when the operator lowers the tenant's maximum", async () => {
    const p = await front("c-lower", "t-lower", [`127.0.0.1/32:${raw.port}`], [`127.0.0.0/8`]);
    const { closed } = await openTunnel(p);
    maxima.set("t-lower", []);
    expect(await closed).toBeLessThan(LIMITS.egressRecheckMs * 3);
    await settle(50);
    expect(events.filter((e) => e.conversationId === "c-lower").at(-1)?.outcome).toBe("refused:policy_changed");
  });

  it("keeps a tunnel the narrowed policy still allows", async () => {
    const p = await front("c-keep", "t-keep", [`127.0.0.1/32:${raw.port}`, `127.0.0.1/32:${mirrorPort}`]);
    const { s, closed } = await openTunnel(p);
    policies.set("c-keep", [d(`127.0.0.1/32:${raw.port}`)]);
    const early = await Promise.race([closed, settle(LIMITS.egressRecheckMs * 2).then(() => "open")]);
    s.destroy();
    expect(early).toBe("open");
  });
});
