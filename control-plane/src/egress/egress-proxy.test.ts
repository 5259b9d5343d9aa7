// The proxy on real sockets: a test client connects to a listener whose connections the proxy serves
// (as the tunnel hands them over), and an HTTP server on 127.0.0.1 is the only upstream.
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { connect, createServer, type AddressInfo, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuditInput } from "../audit/audit-log.js";
import { parseDestinationText } from "./egress-policy.js";
import { EgressProxy } from "./egress-proxy.js";

let upstream: HttpServer;
let upstreamPort: number;
let front: Server;
let frontPort: number;
const events: AuditInput[] = [];

beforeAll(async () => {
  upstream = createHttpServer((req, res) =>
    res.end(`host=${req.headers.host ?? ""} path=${req.url ?? ""} proxy-auth=${req.headers["proxy-authorization"] ?? "-"}`),
  );
  await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", r));
  upstreamPort = (upstream.address() as AddressInfo).port;
  const proxy = new EgressProxy({
    policyOf: () => [parseDestinationText(`127.0.0.1/32:${upstreamPort}`, "test")],
    maximumOf: () => undefined,
    record: (e) => events.push(e),
  });
  // Half-open, as the tunnel's connections are: a client done sending still reads the answer.
  front = createServer({ allowHalfOpen: true }, (s) => void proxy.serve(s, { conversationId: "c", tenant: "t", placement: "host" }));
  await new Promise<void>((r) => front.listen(0, "127.0.0.1", r));
  frontPort = (front.address() as AddressInfo).port;
});
afterAll(() => {
  upstream?.close();
  front?.close();
});

function ask(request: string | Buffer): Promise<string> {
  return new Promise((resolve) => {
    // Half-closed after the request: a tunnel that was allowed ends when its client is done.
    const s = connect(frontPort, "127.0.0.1", () => s.end(request));
    let got = "";
    s.on("data", (b: Buffer) => (got += b.toString("latin1")));
    s.on("close", () => resolve(got));
    s.on("error", () => resolve(got));
  });
}

const status = (response: string): string => response.split("\r\n")[0] ?? "";

describe("the egress proxy", () => {
  it("forwards an allowed plain-HTTP request in origin form, with the URL's Host and no proxy headers", async () => {
    const r = await ask(`GET http://127.0.0.1:${upstreamPort}/simple/x/?q=1 HTTP/1.1\r\nHost: internal.example\r\nProxy-Authorization: secret\r\n\r\n`);
    expect(status(r)).toBe("HTTP/1.1 200 OK");
    expect(r.endsWith(`host=127.0.0.1:${upstreamPort} path=/simple/x/?q=1 proxy-auth=-`)).toBe(true);
    // Recorded once the connection is closed on the proxy's side too.
    for (let i = 0; i < 50 && !events.length; i++) await new Promise((res) => setTimeout(res, 20));
    expect(events.at(-1)).toMatchObject({ kind: "egress", tool: `GET 127.0.0.1:${upstreamPort}`, outcome: "ok", conversationId: "c", tenant: "t" });
  });

  it("carries a server that speaks first (a banner before the client says anything) at once", async () => {
    const banner = createServer((s) => s.end("SSH-2.0-test\r\n"));
    await new Promise<void>((r) => banner.listen(0, "127.0.0.1", r));
    const port = (banner.address() as AddressInfo).port;
    const proxy = new EgressProxy({
      policyOf: () => [parseDestinationText(`127.0.0.1/32:${port}`, "test")],
      maximumOf: () => undefined,
      record: () => undefined,
    });
    const server = createServer({ allowHalfOpen: true }, (s) => void proxy.serve(s, { conversationId: "b", tenant: "t", placement: "host" }));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const got = await new Promise<string>((resolve) => {
        const s = connect((server.address() as AddressInfo).port, "127.0.0.1", () => s.write(`CONNECT 127.0.0.1:${port} HTTP/1.1\r\n\r\n`));
        let text = "";
        s.on("data", (b: Buffer) => {
          text += b.toString("latin1");
          if (text.includes("SSH-2.0")) {
            s.destroy();
            resolve(text);
          }
        });
        setTimeout(() => {
          s.destroy();
          resolve(text);
        }, 3_000);
      });
      expect(got).toContain("SSH-2.0-test");
    } finally {
      banner.close();
      server.close();
    }
  });

  it("refuses what is not a proxy request it serves, each with its reason", async () => {
    const cases: Array<[string | Buffer, string, string]> = [
      [`GET http://127.0.0.1:${upstreamPort}@10.0.0.1/ HTTP/1.1\r\n\r\n`, "400", "refused:bad_request"],
      [`GET https://127.0.0.1:${upstreamPort}/ HTTP/1.1\r\n\r\n`, "400", "refused:bad_request"],
      [`GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`, "400", "refused:bad_request"],
      [`CONNECT 127.0.0.1:1 HTTP/1.1\r\n\r\n`, "403", "refused:not_allowed"],
      [`CONNECT 127.0.0.2:${upstreamPort} HTTP/1.1\r\n\r\n`, "403", "refused:not_allowed"],
      [`CONNECT [::ffff:127.0.0.1]:${upstreamPort} HTTP/1.1\r\n\r\n`, "200", ""],
      [`CONNECT localhost:${upstreamPort} HTTP/1.1\r\n\r\n`, "403", "refused:not_allowed"],
      [Buffer.concat([Buffer.from("GET http://127.0.0.1/ HTTP/1.1\r\nX: "), Buffer.alloc(20_000, 97)]), "431", "refused:too_large"],
    ];
    for (const [request, code, outcome] of cases) {
      const r = await ask(request);
      expect(status(r), String(request).slice(0, 60)).toMatch(new RegExp(`^HTTP/1\\.1 ${code} `));
      if (outcome) expect(r).toContain(`X-Enclave-Egress: ${outcome}`);
    }
  });
});

describe("name lookups", () => {
  it("a tenant whose names never resolve holds at most one lookup: another tenant's name still resolves, and past its queue it is refused as resolver_busy", async () => {
    const recorded: AuditInput[] = [];
    const hung: Array<() => void> = [];
    let started = 0;
    const proxy = new EgressProxy({
      policyOf: () => [parseDestinationText(`*.slow.test:${upstreamPort}`, "test"), parseDestinationText(`fast.test:${upstreamPort}`, "test")],
      // Names under slow.test hang as a hostile tenant's DNS would (getaddrinfo cannot be cancelled).
      resolve: (name) => {
        started++;
        return name.endsWith(".slow.test") ? new Promise<string[]>((r) => hung.push(() => r([]))) : Promise.resolve(["203.0.113.9"]);
      },
      maximumOf: () => undefined,
      record: (e) => recorded.push(e),
    });
    const servers: Server[] = [];
    const serving = async (tenant: string): Promise<number> => {
      const s = createServer({ allowHalfOpen: true }, (c) => void proxy.serve(c, { conversationId: tenant, tenant, placement: "host" }));
      servers.push(s);
      await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
      return (s.address() as AddressInfo).port;
    };
    const [slowPort, fastPort] = [await serving("slow"), await serving("fast")];
    const open = (port: number, host: string): Promise<string> =>
      new Promise((resolve) => {
        const s = connect(port, "127.0.0.1", () => s.write(`CONNECT ${host}:${upstreamPort} HTTP/1.1\r\n\r\n`));
        let got = "";
        s.on("data", (b: Buffer) => {
          got += b.toString("latin1");
          s.destroy();
        });
        s.on("close", () => resolve(got));
        s.on("error", () => resolve(got));
      });
    try {
      const slow = Array.from({ length: 24 }, (_, i) => open(slowPort, `n${i}.slow.test`));
      // The other tenant's name is looked up though every slow lookup still hangs: the policy then
      // refuses its public answer (not in a cidr), which shows the lookup happened.
      const fast = await open(fastPort, "fast.test");
      expect(status(fast)).toMatch(/^HTTP\/1\.1 403/);
      expect(recorded.some((e) => e.conversationId === "fast" && e.outcome === "refused:address_not_allowed")).toBe(true);
      // The slow tenant started one lookup; past its queue (16) its requests were refused at once.
      expect(started).toBe(2);
      const refusedBusy = (await Promise.race([Promise.all(slow.slice(17)), new Promise<string[]>((r) => setTimeout(() => r([]), 5000))])).map(status);
      expect(refusedBusy).toEqual(Array.from({ length: 7 }, () => "HTTP/1.1 503 Service Unavailable"));
    } finally {
      hung.forEach((r) => r());
      servers.forEach((s) => s.close());
    }
  });
});
