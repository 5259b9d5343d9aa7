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
