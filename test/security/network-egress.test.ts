// Promise: nothing inside an enclosure reaches the network. Attempts from an Exec'd command and from
// a language server the agent starts (a project-local one that tries to phone home before serving)
// all fail: no interface but loopback, no route, no name resolution. The attempts include a listener
// the test starts on a Docker network of its own; as a positive control, the same probe in an
// enclosure deliberately relaxed onto that network reaches it, so the failures above are the
// enclosure's doing, not a probe that could never succeed. The attempts run under every runtime in
// ENCLAVE_TEST_RUNTIMES; gVisor refuses the relaxation itself.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { GenericContainer, Network, type StartedNetwork, type StartedTestContainer, Wait } from "testcontainers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { imageTags } from "@enclave/control-plane/image-set/image-tags.js";
import { resultText } from "@enclave/client/control-plane-client.js";
import type { EnclosureRuntime } from "@enclave/control-plane/model/enclosure.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { TEST_RUNTIMES } from "../helpers/runtimes.js";

/** A Node script that tries every way out and writes what happened as JSON lines to its argument. */
const PROBE = `
const net = require("node:net"), dns = require("node:dns"), fs = require("node:fs");
const out = process.argv[2];
const listener = process.argv[3];
const note = (what, result) => fs.appendFileSync(out, JSON.stringify({ what, result }) + "\\n");
const tcp = (host, port) => new Promise((done) => {
  const s = net.connect({ host, port, timeout: 3000 });
  s.on("connect", () => { note(\`tcp \${host}:\${port}\`, "connected"); s.destroy(); done(); });
  s.on("timeout", () => { note(\`tcp \${host}:\${port}\`, "timeout"); s.destroy(); done(); });
  s.on("error", (e) => { note(\`tcp \${host}:\${port}\`, e.code); done(); });
});
(async () => {
  if (listener) await tcp(listener, 8080);
  await tcp("1.1.1.1", 443);
  await tcp("8.8.8.8", 53);
  await tcp("2606:4700:4700::1111", 443);
  await new Promise((done) => dns.lookup("registry.npmjs.org", (e) => { note("dns registry.npmjs.org", e ? e.code : "resolved"); done(); }));
  note("finished", "yes");
})();
`;

/** A TCP server in the runtime image (nothing can be pulled here) that greets and closes. */
const LISTENER = `require("node:net").createServer((s) => s.end("hello\\n")).listen(8080, () => console.log("listening"))`;

let fx: Fixture;
let network: StartedNetwork;
let listener: StartedTestContainer;
/** The listener's address on the test's network. */
let listenerIp: string;
/** Per runtime: the conversation's workspace and run. */
const placed = new Map<EnclosureRuntime, { workspace: string; run: string }>();

beforeAll(async () => {
  network = await new Network().start();
  listener = await new GenericContainer(imageTags().runtime)
    .withEntrypoint(["node", "-e", LISTENER])
    .withNetwork(network)
    .withWaitStrategy(Wait.forLogMessage("listening"))
    .start();
  listenerIp = listener.getIpAddress(network.getName());
  fx = await startFixture();
  for (const runtime of TEST_RUNTIMES) {
    const id = `egress-${runtime}`;
    const workspace = (await fx.client.createConversation(id)).workspacePath;
    writeFileSync(join(workspace, "probe.cjs"), PROBE);
    // A TypeScript project whose project-local language server is the probe: the agent starts it
    // (project-local bins come first), it tries the network, then exits.
    const bin = join(workspace, "phone-home", "node_modules", ".bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(workspace, "phone-home", "tsconfig.json"), "{}\n");
    writeFileSync(join(workspace, "phone-home", "x.ts"), "export const x = 1;\n");
    writeFileSync(join(bin, "typescript-language-server"), `#!/bin/sh\nnode /workspace/probe.cjs /workspace/ls-probe.jsonl ${listenerIp}\nexit 3\n`);
    chmodSync(join(bin, "typescript-language-server"), 0o755);
    await fx.client.startEnclosure(id, { runtime });
    placed.set(runtime, { workspace, run: (await fx.client.openRun(id, { approvalPolicy: "never", resources: ["workspace", "shell", "lsp"] })).id });
  }
});
afterAll(async () => {
  // Enclosures first: a network with a container attached cannot be removed.
  await fx?.close();
  await listener?.stop();
  await network?.stop();
});

function outcomes(file: string): Record<string, string> {
  return Object.fromEntries(
    readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { what: string; result: string })
      .map((e) => [e.what, e.result]),
  );
}

const BLOCKED = /^(ENETUNREACH|EHOSTUNREACH|EADDRNOTAVAIL|EAI_AGAIN|ENOTFOUND|ECONNREFUSED)$/;

function expectNoWayOut(got: Record<string, string>): void {
  expect(got.finished).toBe("yes");
  for (const [what, result] of Object.entries(got)) {
    if (what === "finished") continue;
    expect(result, `${what} from inside the enclosure`).toMatch(BLOCKED);
  }
}

describe.each(TEST_RUNTIMES)("no network from inside an enclosure under %s", (runtime) => {
  const at = (): { workspace: string; run: string } => placed.get(runtime) ?? expect.fail(`no enclosure under ${runtime}`);

  it("fails every attempt from an Exec'd command", async () => {
    const { workspace, run } = at();
    const r = await fx.client.callTool(run, "exec", { command: `node probe.cjs exec-probe.jsonl ${listenerIp}`, timeout_seconds: 60 });
    expect(r.isError, resultText(r)).toBe(false);
    const got = outcomes(join(workspace, "exec-probe.jsonl"));
    expect(Object.keys(got)).toContain(`tcp ${listenerIp}:8080`);
    expectNoWayOut(got);
  });

  it("fails every attempt from a language server the agent starts", async () => {
    const { workspace, run } = at();
    const r = await fx.client.callTool(run, "lsp", { action: "hover", file: "phone-home/x.ts", line: 1, symbol: "x" });
    expect(r.isError).toBe(true); // the probe exits instead of serving
    for (let i = 0; i < 100 && !existsSync(join(workspace, "ls-probe.jsonl")); i++) await new Promise((res) => setTimeout(res, 100));
    const got = outcomes(join(workspace, "ls-probe.jsonl"));
    expect(Object.keys(got)).toContain(`tcp ${listenerIp}:8080`);
    expectNoWayOut(got);
  });
});

describe("positive control: an enclosure relaxed onto the test's network", () => {
  it("is refused under gVisor, which runs enclosures with network none only", async () => {
    await fx.client.createConversation("egress-relaxed-runsc");
    const refused = await fx.client.startEnclosure("egress-relaxed-runsc", { runtime: "runsc", networkMode: network.getName() }).then(
      () => undefined,
      (err: Error) => err,
    );
    expect(refused?.message).toBe(
      `runtime runsc (gVisor) runs enclosures with network mode none only; network_mode \`${network.getName()}\` needs runtime runc`,
    );
    expect((await fx.client.getConversation("egress-relaxed-runsc")).placement).toBe("host");
  });

  it("reaches the listener with the same probe (under runc)", async () => {
    const relaxed = (await fx.client.createConversation("egress-relaxed")).workspacePath;
    writeFileSync(join(relaxed, "probe.cjs"), PROBE);
    const conv = await fx.client.startEnclosure("egress-relaxed", { runtime: "runc", networkMode: network.getName() });
    expect(conv.enclosure?.relaxations.join(" ")).toContain(`network_mode=${network.getName()}`);
    const relaxedRun = (await fx.client.openRun("egress-relaxed", { approvalPolicy: "never", resources: ["workspace", "shell"] })).id;
    const r = await fx.client.callTool(relaxedRun, "exec", { command: `node probe.cjs probe.jsonl ${listenerIp}`, timeout_seconds: 60 });
    expect(r.isError, resultText(r)).toBe(false);
    const got = outcomes(join(relaxed, "probe.jsonl"));
    expect(got.finished).toBe("yes");
    expect(got[`tcp ${listenerIp}:8080`]).toBe("connected");
  });
});
