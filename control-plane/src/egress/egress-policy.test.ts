import { connect } from "node:tls";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { EnclaveError } from "../errors.js";
import { allowsAddress, allowsName, checkWithinMaximum, formatDestination, isPublicAddress, parseDestinationText } from "./egress-policy.js";
import { clientHelloRecord, tlsServerName } from "./tls-sni.js";

const d = (t: string) => parseDestinationText(t, "test");

function code(f: () => unknown): string {
  try {
    f();
    return "ok";
  } catch (err) {
    return err instanceof EnclaveError ? err.code : String(err);
  }
}

describe("egress destinations", () => {
  it("parse and print in their text form", () => {
    expect(
      ["pypi.org:443", "*.mirror.example:80,443", "10.1.0.0/16:8080", "[2001:db8::/32]:443", "2001:db8::/32", "Example.COM"].map((t) =>
        formatDestination(d(t)),
      ),
    ).toEqual(["pypi.org:443", "*.mirror.example:80,443", "10.1.0.0/16:8080", "[2001:db8::/32]:443", "2001:db8::/32", "example.com"]);
    // A range's host bits are cleared.
    expect(formatDestination(d("10.1.2.3/16"))).toBe("10.1.0.0/16");
  });

  it("refuses what is not a destination", () => {
    for (const bad of ["1.2.3.4", "a..b", "*.*.x", "x:0", "x:70000", "x:a", "1.2.3.4/33", "::1/129", "-a.com", "a.com/8", "a b"]) {
      expect(
        code(() => d(bad)),
        bad,
      ).toBe("invalid_arguments");
    }
  });

  it("matches names: exact, or below a wildcard (not the wildcard's own name)", () => {
    const p = [d("pypi.org:443"), d("*.example.com")];
    expect(allowsName(p, "pypi.org", 443)).toBe(true);
    expect(allowsName(p, "PyPI.org.", 443)).toBe(true);
    expect(allowsName(p, "pypi.org", 80)).toBe(false);
    expect(allowsName(p, "files.pypi.org", 443)).toBe(false);
    expect(allowsName(p, "a.b.example.com", 1)).toBe(true);
    expect(allowsName(p, "example.com", 443)).toBe(false);
    expect(allowsName(p, "evilexample.com", 443)).toBe(false);
  });

  it("allows a public address for an allowed name, a private one only by cidr", () => {
    const p = [d("localhost:8080"), d("127.0.0.1/32:9000")];
    expect(allowsAddress(p, "127.0.0.1", 8080, true)).toBe(false);
    expect(allowsAddress(p, "127.0.0.1", 9000, true)).toBe(true);
    expect(allowsAddress(p, "::ffff:127.0.0.1", 9000, false)).toBe(true);
    expect(allowsAddress(p, "93.184.216.34", 8080, true)).toBe(true);
    expect(allowsAddress(p, "93.184.216.34", 8080, false)).toBe(false);
    for (const a of [
      "10.0.0.1",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "::1",
      "fe80::1",
      "fd00::1",
      "::ffff:10.0.0.1",
      "::127.0.0.1",
      "::7f00:1",
      "224.0.0.1",
    ]) {
      expect(isPublicAddress(a), a).toBe(false);
    }
    expect(isPublicAddress("2606:4700:4700::1111")).toBe(true);
  });

  it("reads an IPv4-mapped address as its IPv4 address in every spelling, in a request and in a cidr", () => {
    const all6 = [d("::/0")];
    for (const a of ["::ffff:7f00:1", "::ffff:127.0.0.1", "0:0:0:0:0:ffff:7f00:1", "::FFFF:7F00:0001"]) {
      expect(allowsAddress(all6, a, 80, false), a).toBe(false);
      expect(allowsAddress([d("127.0.0.1/32")], a, 80, false), a).toBe(true);
      expect(isPublicAddress(a), a).toBe(false);
    }
    expect(allowsAddress(all6, "::1", 80, false)).toBe(true);
    expect(formatDestination(d("::ffff:10.0.0.0/104"))).toBe("10.0.0.0/8");
    expect(formatDestination(d("::ffff:0:0/96"))).toBe("0.0.0.0/0");
    expect(code(() => d("::ffff:7f00:1/64"))).toBe("invalid_arguments");
  });

  it("keeps a policy within the operator's maximum", () => {
    const max = [d("pypi.org:443"), d("*.mirror.example:80,443"), d("10.1.0.0/16:8080")];
    for (const ok of ["pypi.org:443", "a.mirror.example:443", "*.b.mirror.example:80", "10.1.2.0/24:8080"])
      expect(
        code(() => checkWithinMaximum([d(ok)], max, "acme")),
        ok,
      ).toBe("ok");
    for (const wider of ["pypi.org", "pypi.org:80", "mirror.example:443", "*.example:443", "10.0.0.0/8:8080", "10.1.2.0/24", "x.org:443"]) {
      expect(
        code(() => checkWithinMaximum([d(wider)], max, "acme")),
        wider,
      ).toBe("invalid_arguments");
    }
    expect(code(() => checkWithinMaximum([d("x.org")], undefined, "local"))).toBe("ok");
    expect(code(() => checkWithinMaximum([d("x.org")], [], "globex"))).toBe("invalid_arguments");
  });
});

describe("the TLS server name", () => {
  it("is read from a real ClientHello, and is undefined for other bytes", async () => {
    const hello = await new Promise<Buffer>((resolve) => {
      const server = createServer((s) => {
        s.once("data", (b: Buffer) => {
          resolve(b);
          s.destroy();
          server.close();
        });
      });
      server.listen(0, "127.0.0.1", () => {
        const c = connect({ host: "127.0.0.1", port: (server.address() as AddressInfo).port, servername: "Files.PyPI.org" });
        c.on("error", () => undefined);
      });
    });
    expect(tlsServerName(hello)).toBe("files.pypi.org");
    expect(tlsServerName(Buffer.from("GET / HTTP/1.1\r\n\r\n"))).toBeUndefined();
    expect(tlsServerName(hello.subarray(0, 20))).toBeUndefined();
    // Whole only once every byte of the ClientHello is in, however it was split.
    expect(clientHelloRecord(hello.subarray(0, 3))).toBe("partial");
    expect(clientHelloRecord(hello.subarray(0, 40))).toBe("partial");
    const whole = clientHelloRecord(hello);
    expect(whole instanceof Buffer && tlsServerName(whole)).toBe("files.pypi.org");
    const hs = hello.subarray(5);
    const records = Buffer.concat([
      hello.subarray(0, 3),
      Buffer.from([0, 10]),
      hs.subarray(0, 10),
      hello.subarray(0, 3),
      Buffer.from([(hs.length - 10) >> 8, (hs.length - 10) & 255]),
      hs.subarray(10),
    ]);
    const joined = clientHelloRecord(records);
    expect(joined instanceof Buffer && tlsServerName(joined)).toBe("files.pypi.org");
    expect(clientHelloRecord(Buffer.concat([records.subarray(0, 15), Buffer.from([23, 3, 3, 0, 1, 0])]))).toBe("malformed");
    expect(clientHelloRecord(Buffer.from("GET / HTTP/1.1\r\n\r\n"))).toBeUndefined();
  });
});
