// A real enclosure on the real Docker engine: the agent inside answers through the engine's exec
// relay, files cross to the host, Exec runs inside, and the network is loopback only — under every
// runtime in ENCLAVE_TEST_RUNTIMES (runc and gVisor's runsc by default).
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { loadConfig } from "@enclave/control-plane/config.js";
import { LABELS } from "@enclave/control-plane/model/labels.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { TEST_RUNTIMES } from "../helpers/runtimes.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";

const docker = new Docker();

describe.each(TEST_RUNTIMES)("enclosure under %s", (runtime) => {
  let fx: Fixture;
  let runId: string;
  let workspace: string;
  // Named per runtime: the containers' labels say which conversation they serve.
  const enc1 = `enc1-${runtime}`;
  const enc3 = `enc3-${runtime}`;

  beforeAll(async () => {
    fx = await startFixture();
    workspace = (await fx.client.createConversation(enc1)).workspacePath;
    writeFileSync(join(workspace, "from-host.txt"), "host wrote this\n");
    const conv = await fx.client.startEnclosure(enc1, { runtime });
    expect(conv.placement).toBe("enclosure");
    expect(conv.enclosure?.runtime).toBe(runtime);
    runId = (await fx.client.openRun(enc1, { approvalPolicy: "never" })).id;
  });
  afterAll(async () => fx?.close());

  async function sh(command: string): Promise<string> {
    const r = await fx.client.callTool(runId, "exec", { command });
    expect(r.isError, resultText(r)).toBe(false);
    return resultText(r);
  }

  it("runs hardened: no network, all capabilities dropped, read-only root, non-root", async () => {
    const conv = await fx.client.getConversation(enc1);
    const info = await docker.getContainer(conv.enclosure?.containerId ?? "").inspect();
    expect(info.HostConfig.Runtime).toBe(runtime);
    expect(info.HostConfig.NetworkMode).toBe("none");
    expect(info.HostConfig.CapDrop).toEqual(["ALL"]);
    expect(info.HostConfig.ReadonlyRootfs).toBe(true);
    expect(info.HostConfig.SecurityOpt).toContain("no-new-privileges:true");
    expect(info.HostConfig.PidsLimit).toBeGreaterThan(0);
    expect(info.HostConfig.Memory).toBeGreaterThan(0);
    // Its own uid from the reserved range, uid and gid the same number, as recorded.
    const { base, count } = loadConfig().enclosure.uids;
    const uid = Number(info.Config.User?.split(":")[0]);
    expect(info.Config.User).toBe(`${uid}:${uid}`);
    expect(uid).toBeGreaterThanOrEqual(base);
    expect(uid).toBeLessThan(base + count);
    expect(conv.enclosure?.relaxations).toEqual([]);
  });

  it("writes a file inside that the host reads, and reads what the host wrote", async () => {
    const w = await fx.client.callTool(runId, "write", { path: "inside.txt", content: "from the enclosure\n" });
    expect(w.isError, resultText(w)).toBe(false);
    expect(readFileSync(join(workspace, "inside.txt"), "utf8")).toBe("from the enclosure\n");
    expect(resultText(await fx.client.callTool(runId, "read", { path: "from-host.txt" }))).toBe("host wrote this\n");
  });

  it("runs Exec inside the container", async () => {
    const out = await sh("id -u; cat /proc/1/cgroup | head -1; node --version; test -f /.dockerenv && echo in-docker");
    const info = await docker.getContainer((await fx.client.getConversation(enc1)).enclosure?.containerId ?? "").inspect();
    expect(out).toMatch(new RegExp(`^${info.Config.User?.split(":")[0]}$`, "m"));
    expect(out).toMatch(/v18\./);
    expect(out).toMatch(/in-docker/);
  });

  it("has only a loopback interface and no listening TCP/UDP socket", async () => {
    const ifaces = (await sh("tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '")).split("\n").filter((l) => l && !l.startsWith("["));
    expect(ifaces).toEqual(["lo"]);
    // State 0A is LISTEN for TCP; any bound UDP socket counts as listening.
    const tcp = await sh("cat /proc/net/tcp /proc/net/tcp6 | awk 'NR>1 && $4==\"0A\"' | wc -l");
    expect(tcp.split("\n")[0]?.trim()).toBe("0");
    const udp = await sh("cat /proc/net/udp /proc/net/udp6 | awk '$1 ~ /:$/' | wc -l");
    expect(udp.split("\n")[0]?.trim()).toBe("0");
    const out = await fx.client.callTool(runId, "exec", {
      command: "node -e \"require('net').connect(80,'1.1.1.1').on('error',e=>{console.log(e.code);process.exit(0)})\"",
      timeout_seconds: 20,
    });
    expect(resultText(out)).toMatch(/ENETUNREACH|EHOSTUNREACH|EAI_AGAIN|ECONNREFUSED/);
  });

  it("refuses path escapes inside too", async () => {
    await sh("ln -s /etc etc-link");
    for (const path of ["../etc/passwd", "/etc/passwd", "etc-link/passwd"]) {
      expect((await fx.client.callTool(runId, "read", { path })).errorCode).toBe("outside_workspace");
    }
  });

  it("copies the workspace in and out in copy mode", async () => {
    const ws = (await fx.client.createConversation(enc3)).workspacePath;
    writeFileSync(join(ws, "seed.txt"), "seed\n");
    await fx.client.startEnclosure(enc3, { runtime, workspaceMode: "copy" });
    const run3 = (await fx.client.openRun(enc3, { approvalPolicy: "never" })).id;
    expect(resultText(await fx.client.callTool(run3, "read", { path: "seed.txt" }))).toBe("seed\n");
    const wrote = await fx.client.callTool(run3, "write", { path: "made-inside.txt", content: "copied out\n" });
    expect(wrote.isError, resultText(wrote)).toBe(false);
    expect(() => readFileSync(join(ws, "made-inside.txt"))).toThrow();
    await fx.client.stopEnclosure(enc3);
    expect(readFileSync(join(ws, "made-inside.txt"), "utf8")).toBe("copied out\n");
  });

  it("describes what the enclosure can run, and why not", async () => {
    const d = await fx.client.describePlacement(enc1);
    expect(d.placement).toBe("enclosure");
    const by = (id: string) => d.components.find((c) => c.id === id);
    expect(by("python")?.usable).toBe(true);
    expect(by("clangd")?.usable).toBe(true);
    expect(by("dart")?.usable).toBe(false);
    await expectTranscript(by("dart")?.detail ?? "", "transcripts/enclosure/dart-unusable.txt");
  });

  it("leaves no container or relay socket behind when stopped", async () => {
    const relays = () => readdirSync(fx.cp.socketRoot).filter((n) => n.startsWith("e-"));
    expect(relays().length).toBe(1);
    await fx.client.stopEnclosure(enc1);
    expect(relays()).toEqual([]);
    const left = await docker.listContainers({ all: true, filters: { label: [`${LABELS.conversation}=${enc1}`] } });
    expect(left).toEqual([]);
  });
});
