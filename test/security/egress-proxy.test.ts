// Promise: an enclosure reaches exactly what its conversation's egress policy allows, through the
// control plane's proxy, and every request is audited. Under runc, under runsc (gVisor runs with
// --network=none) and on host placement: with a policy allowing one test server standing in for a
// package mirror, `pip download` from a cell works; a second listener the policy does not list is
// refused, audited and never reached; a name the policy allows that resolves to an address it does
// not list (localhost → 127.0.0.1, with only a port of 127.0.0.1 allowed by cidr) is refused. The
// egress audit expects exactly the proxy's listener and its probe refused. A tenant cannot widen past
// its operator's maximum. Without a policy nothing changes: no listener, no proxy variables.
// Every test server listens on 127.0.0.1 only.
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:net";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import type { AuditEvent, EgressDestination } from "@enclave/proto/gen/enclave/control/v1/control.js";
import type { EnclosureRuntime } from "@enclave/control-plane/model/enclosure.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { MIRROR_PACKAGE, MIRROR_WHEEL, type PackageMirror, startPackageMirror } from "../helpers/package-mirror.js";
import { TEST_RUNTIMES } from "../helpers/runtimes.js";

/** Python for a cell: sends one raw request to the proxy the agent listens on, prints the response head. */
const ASK = `
import os, socket
def ask(request):
    port = int(os.environ["HTTP_PROXY"].rsplit(":", 1)[1])
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    s.sendall(request.encode())
    data = b""
    while b"\\r\\n\\r\\n" not in data:
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
    s.close()
    return data.split(b"\\r\\n\\r\\n")[0].decode()
`;

let fx: Fixture;
let mirror: PackageMirror;
/** A listener no policy lists: it must never see a connection. */
let other: Server;
let otherPort: number;
let otherAccepted = 0;

beforeAll(async () => {
  mirror = await startPackageMirror();
  other = createServer((s) => {
    otherAccepted++;
    s.end("HTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\nsecret");
  });
  await new Promise<void>((resolve) => other.listen({ host: "127.0.0.1", port: 0 }, resolve));
  otherPort = (other.address() as AddressInfo).port;
  fx = await startFixture();
}, 120_000);
afterAll(async () => {
  await fx?.close();
  await mirror?.close();
  other?.close();
});

function mirrorPolicy(): Array<Partial<EgressDestination>> {
  return [{ cidr: "127.0.0.1/32", ports: [mirror.port] }];
}

async function history(conversationId: string): Promise<AuditEvent[]> {
  const events: AuditEvent[] = [];
  for await (const e of fx.client.auditEvents({ conversationId, includeHistory: true, historyOnly: true })) events.push(e);
  return events;
}

/** The conversation's egress events once `enough` holds of them: each is recorded when its connection closes, just after the cell that made it. */
async function egressEvents(conversationId: string, enough: (events: AuditEvent[]) => boolean): Promise<AuditEvent[]> {
  let events: AuditEvent[] = [];
  for (let i = 0; i < 50; i++) {
    events = (await history(conversationId)).filter((e) => e.kind === "egress");
    if (enough(events)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return events;
}

/** The audit's failed items but "runtime", which its own suite (egress-audit.test.ts) holds: it depends on how the engine registers runsc, nothing egress changes. */
function failedBesidesRuntime(checks: ReadonlyArray<{ item: string; ok: boolean }>): string[] {
  return checks.filter((c) => !c.ok && c.item !== "runtime").map((c) => c.item);
}

async function cell(run: string, code: string): Promise<string> {
  const r = await fx.client.callTool(run, "eval", { description: "a cell of the egress proxy test", code });
  expect(r.isError, resultText(r)).toBe(false);
  return resultText(r);
}

const PLACEMENTS: Array<{ name: string; runtime?: EnclosureRuntime }> = [...TEST_RUNTIMES.map((runtime) => ({ name: runtime, runtime })), { name: "host" }];

describe.each(PLACEMENTS)("egress by policy, $name", ({ name, runtime }) => {
  const id = `egress-${name}`;
  let run = "";
  let workspace = "";

  beforeAll(async () => {
    otherAccepted = 0;
    workspace = (await fx.client.createConversation(id, "", { egress: mirrorPolicy() })).workspacePath;
    if (runtime) await fx.client.startEnclosure(id, { runtime });
    run = (await fx.client.openRun(id, { approvalPolicy: "never" })).id;
  }, 180_000);

  it("downloads a package from the allowed mirror with pip, from a cell, and audits it", async () => {
    const out = await cell(
      run,
      `import subprocess
r = subprocess.run(["/usr/bin/python3", "-m", "pip", "download", "${MIRROR_PACKAGE}", "--no-deps", "--no-cache-dir", "--disable-pip-version-check",
                    "-d", "dl", "--index-url", "http://127.0.0.1:${mirror.port}/simple/"], capture_output=True, text=True)
print(r.returncode, r.stdout[-1500:], r.stderr[-1500:])`,
    );
    expect(out.startsWith("0 "), out).toBe(true);
    expect(existsSync(join(workspace, "dl", MIRROR_WHEEL))).toBe(true);
    expect(mirror.requests).toContain(`/files/${MIRROR_WHEEL}`);
    const isMirror = (e: AuditEvent): boolean => e.tool === `GET 127.0.0.1:${mirror.port}`;
    const allowed = (await egressEvents(id, (es) => es.filter(isMirror).length >= 2)).filter(isMirror);
    expect(allowed.length).toBeGreaterThan(0);
    expect(allowed.every((e) => e.outcome === "ok")).toBe(true);
    expect(allowed.at(-1)?.detail).toMatch(/^via 127\.0\.0\.1; sent \d+ bytes, received \d+ bytes/);
    expect(allowed.at(-1)?.tenant).toBe("local");
  }, 180_000);

  // npm is on the host's /usr (the sandbox sees it); the enclosure image has Node but no npm.
  it.runIf(!runtime)(
    "reads a package's registry document from the mirror with npm view, from a cell",
    async () => {
      // NO_PROXY names the sandbox's own loopback, where the mirror is not: it is left out for npm.
      const isMirror = (e: AuditEvent): boolean => e.tool === `GET 127.0.0.1:${mirror.port}` && e.outcome === "ok";
      const before = (await history(id)).filter(isMirror).length;
      const out = await cell(
        run,
        `import os, subprocess
env = {k: v for k, v in os.environ.items() if k.lower() not in ("no_proxy", "npm_config_noproxy")}
r = subprocess.run(["npm", "view", "${MIRROR_PACKAGE}", "version", "--registry", "http://127.0.0.1:${mirror.port}/", "--fetch-retries", "0"], capture_output=True, text=True, env=env)
print(r.returncode, r.stdout.strip(), r.stderr[-1500:])`,
      );
      expect(out.startsWith("0 1.0.0"), out).toBe(true);
      expect((await egressEvents(id, (es) => es.filter(isMirror).length > before)).filter(isMirror).length).toBeGreaterThan(before);
      expect(mirror.requests).toContain(`/${MIRROR_PACKAGE}`);
    },
    120_000,
  );

  it("refuses a second listener the policy does not list, by CONNECT and by plain HTTP, and audits both", async () => {
    const out = await cell(
      run,
      `${ASK}
print(ask("CONNECT 127.0.0.1:${otherPort} HTTP/1.1\\r\\nHost: 127.0.0.1:${otherPort}\\r\\n\\r\\n"))
print(ask("GET http://127.0.0.1:${otherPort}/ HTTP/1.1\\r\\nHost: 127.0.0.1:${otherPort}\\r\\n\\r\\n"))`,
    );
    expect(out.match(/^HTTP\/1\.1 403 Forbidden$/gm)?.length, out).toBe(2);
    expect(out.match(/^X-Enclave-Egress: refused:not_allowed$/gm)?.length).toBe(2);
    expect(otherAccepted).toBe(0);
    const isOther = (e: AuditEvent): boolean => e.tool.endsWith(`127.0.0.1:${otherPort}`);
    const refused = (await egressEvents(id, (es) => es.filter(isOther).length >= 2)).filter(isOther);
    expect(refused.map((e) => `${e.tool} ${e.outcome}`).sort()).toEqual([
      `CONNECT 127.0.0.1:${otherPort} refused:not_allowed`,
      `GET 127.0.0.1:${otherPort} refused:not_allowed`,
    ]);
  }, 120_000);

  it("refuses a name the policy allows when it resolves to an address the policy does not list", async () => {
    // localhost is allowed by name on the second listener's port; 127.0.0.1 only on the mirror's.
    await fx.client.setConversationEgress(id, [...mirrorPolicy(), { host: "localhost", ports: [otherPort] }]);
    try {
      const out = await cell(run, `${ASK}\nprint(ask("CONNECT localhost:${otherPort} HTTP/1.1\\r\\nHost: localhost:${otherPort}\\r\\n\\r\\n"))`);
      expect(out).toMatch(/^HTTP\/1\.1 403 Forbidden$/m);
      expect(out).toMatch(/^X-Enclave-Egress: refused:address_not_allowed$/m);
      expect(otherAccepted).toBe(0);
      const isLocalhost = (x: AuditEvent): boolean => x.tool === `CONNECT localhost:${otherPort}`;
      const e = (await egressEvents(id, (es) => es.some(isLocalhost))).filter(isLocalhost).at(-1);
      expect(e?.outcome).toBe("refused:address_not_allowed");
      expect(e?.detail).toContain("localhost resolves to");
    } finally {
      await fx.client.setConversationEgress(id, mirrorPolicy());
    }
  }, 120_000);

  it("refuses a TLS ClientHello for a name the policy does not allow inside an allowed CONNECT", async () => {
    // Domain fronting: the tunnel is to an allowed address, the server name asked for is another.
    const out = await cell(
      run,
      `import os, socket, ssl
port = int(os.environ["HTTP_PROXY"].rsplit(":", 1)[1])
s = socket.create_connection(("127.0.0.1", port), timeout=30)
s.sendall(b"CONNECT 127.0.0.1:${mirror.port} HTTP/1.1\\r\\nHost: 127.0.0.1:${mirror.port}\\r\\n\\r\\n")
print(s.recv(4096).split(b"\\r\\n")[0].decode())
try:
    ssl.create_default_context().wrap_socket(s, server_hostname="evil.example")
    print("handshake went through")
except (ssl.SSLError, OSError) as e:
    print("handshake failed")`,
    );
    expect(out).toBe("HTTP/1.1 200 Connection established\nhandshake failed");
    const isFronted = (e: AuditEvent): boolean => e.tool === `CONNECT 127.0.0.1:${mirror.port}` && e.outcome.startsWith("refused:");
    const e = (await egressEvents(id, (es) => es.some(isFronted))).filter(isFronted).at(-1);
    expect(e?.outcome).toBe("refused:sni_not_allowed");
    expect(e?.detail).toContain("the TLS server name evil.example is not in the egress policy");
  }, 120_000);

  it("refuses the same ClientHello split so that no one write holds the server name", async () => {
    const split = (e: AuditEvent): boolean => e.tool === `CONNECT 127.0.0.1:${mirror.port}` && e.outcome === "refused:sni_not_allowed";
    const before = (await egressEvents(id, () => true)).filter(split).length;
    // The hello is made by Python's own TLS (in memory), then sent in pieces through the agent's tunnel.
    const out = await cell(
      run,
      `import os, socket, ssl, time
inc, outg = ssl.MemoryBIO(), ssl.MemoryBIO()
tls = ssl.create_default_context().wrap_bio(inc, outg, server_hostname="evil.example")
try:
    tls.do_handshake()
except ssl.SSLWantReadError:
    pass
hello = outg.read()
port = int(os.environ["HTTP_PROXY"].rsplit(":", 1)[1])
s = socket.create_connection(("127.0.0.1", port), timeout=30)
s.sendall(b"CONNECT 127.0.0.1:${mirror.port} HTTP/1.1\\r\\nHost: 127.0.0.1:${mirror.port}\\r\\n\\r\\n")
print(s.recv(4096).split(b"\\r\\n")[0].decode())
try:
    for piece in (hello[:3], hello[3:40], hello[40:]):
        s.sendall(piece)
        time.sleep(0.2)
    print("closed" if s.recv(4096) == b"" else "answered")
except OSError:
    print("closed")`,
    );
    // Before the proxy read the whole hello, the mirror got it and answered (an HTTP 400 to TLS bytes).
    expect(out).toBe("HTTP/1.1 200 Connection established\nclosed");
    expect((await egressEvents(id, (es) => es.filter(split).length > before)).filter(split).length).toBe(before + 1);
  }, 120_000);

  it.runIf(!runtime)(
    "bounds the connections one conversation holds open, and records the refusals once an interval",
    async () => {
      const out = await cell(
        run,
        `import os, socket
port = int(os.environ["HTTP_PROXY"].rsplit(":", 1)[1])
held, answers = [], []
for i in range(34):
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    s.sendall(b"CONNECT 127.0.0.1:${mirror.port} HTTP/1.1\\r\\n\\r\\n")
    answers.append(s.recv(4096).split(b"\\r\\n")[0].decode())
    held.append(s)
for s in held:
    s.close()
print(answers.count("HTTP/1.1 200 Connection established"), answers.count("HTTP/1.1 429 Too Many Requests"))`,
      );
      expect(out).toBe("32 2");
      const over = (await egressEvents(id, (es) => es.some((e) => e.outcome === "refused:quota_exceeded"))).filter(
        (e) => e.outcome === "refused:quota_exceeded",
      );
      expect(over).toHaveLength(1);
    },
    120_000,
  );

  it("the egress audit states the policy, expects exactly the proxy's listener, and its probe is refused", async () => {
    const report = await fx.client.auditEnclosure(id);
    const egress = report.checks.find((c) => c.item === "egress");
    expect(egress?.ok, report.text).toBe(true);
    expect(egress?.outside).toContain(`policy 127.0.0.1/32:${mirror.port}`);
    expect(egress?.outside).toMatch(/the proxy answered refused:not_allowed, the listener saw 0 connection\(s\)/);
    expect(egress?.inside).toMatch(/^the proxy answered: HTTP\/1\.1 403 Forbidden$/);
    if (runtime) {
      const listening = report.checks.find((c) => c.item === "listening sockets");
      expect(listening?.ok, report.text).toBe(true);
      expect(listening?.expected).toMatch(/^only the egress proxy's listener tcp 127\.0\.0\.1:\d+/);
      expect(failedBesidesRuntime(report.checks), report.text).toEqual([]);
    }
    expect(report.text).toContain(`GET 127.0.0.1:${mirror.port} ok`);
  }, 120_000);

  it("closes the listener when the policy is emptied: the proxy variables go and the audit wants no listener", async () => {
    await fx.client.setConversationEgress(id, []);
    expect(fx.cp.egress.listening(fx.cp.getConversation(id).id)).toBeUndefined();
    if (runtime) {
      const report = await fx.client.auditEnclosure(id);
      expect(report.checks.find((c) => c.item === "listening sockets")?.ok, report.text).toBe(true);
      expect(report.checks.find((c) => c.item === "egress")?.expected).toBe("no egress policy: no proxy tunnel, no listener, no way out");
    }
  }, 120_000);
});

describe("without a policy, as before", () => {
  it.each(TEST_RUNTIMES)(
    "no listener, no proxy variables and an unchanged audit under %s",
    async (runtime) => {
      const id = `egress-none-${runtime}`;
      await fx.client.createConversation(id);
      await fx.client.startEnclosure(id, { runtime });
      const run = (await fx.client.openRun(id, { approvalPolicy: "never" })).id;
      expect(await cell(run, `import os\nsorted(k for k in os.environ if "proxy" in k.lower())`)).toBe("[]");
      expect(fx.cp.egress.listening(id)).toBeUndefined();
      const report = await fx.client.auditEnclosure(id);
      const listening = report.checks.find((c) => c.item === "listening sockets");
      expect(listening?.expected).toBe("no TCP socket listening and no UDP socket bound (/proc/net/{tcp,tcp6,udp,udp6})");
      expect(failedBesidesRuntime(report.checks), report.text).toEqual([]);
      expect(report.checks.find((c) => c.item === "egress")?.expected).toBe("no egress policy: no proxy tunnel, no listener, no way out");
      expect((await history(id)).filter((e) => e.kind === "egress")).toEqual([]);
    },
    180_000,
  );
});
