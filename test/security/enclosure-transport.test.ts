// The transport to an enclosure's agent is the engine's exec, and nothing else: no host folder is
// mounted for a socket, a dropped stream (a relay killed, a control-plane restart) leaves the kernels
// where they were, and code inside cannot point the control plane at any other agent.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ControlPlaneClient, resultText } from "@enclave/client/control-plane-client.js";
import { type ControlPlaneConfig, loadConfig } from "@enclave/control-plane/config.js";
import { ControlPlane } from "@enclave/control-plane/control-plane.js";
import { LIMITS } from "@enclave/control-plane/limits.js";
import { configureLogging } from "@enclave/control-plane/observability/log.js";
import { serveControlPlane, type ServingControlPlane } from "@enclave/control-plane/server/serve.js";
import { until } from "../helpers/wait.js";

const docker = new Docker();
let config: ControlPlaneConfig;
let dataDir: string;
let cp: ControlPlane;
let server: ServingControlPlane;
let client: ControlPlaneClient;
let runId: string;
let containerId: string;

async function serve(): Promise<void> {
  cp = await ControlPlane.start(config);
  server = await serveControlPlane(cp, config.listen);
  client = new ControlPlaneClient(server.address);
}

/** Stops serving without touching the enclosure, as a crash or a redeploy would. */
async function unserve(): Promise<void> {
  client.close();
  await server.close();
  await cp.close();
}

async function cell(code: string): Promise<string> {
  const r = await client.callTool(runId, "eval", { description: "a cell for the transport test", code });
  expect(r.isError, resultText(r)).toBe(false);
  return resultText(r);
}

/** Host pids of the processes in the container whose command line contains `needle`. */
async function containerPids(needle: string): Promise<number[]> {
  const top = (await docker.getContainer(containerId).top({ ps_args: "-eo pid,args" })) as { Processes: string[][] };
  return top.Processes.filter((p) => p.join(" ").includes(needle)).map((p) => Number(p[0]));
}

const SECRET = "a-console-token-of-the-control-plane";

beforeAll(async () => {
  process.env.ENCLAVE_CONSOLE_TOKEN = SECRET;
  dataDir = mkdtempSync(join(tmpdir(), "enclave-transport-"));
  config = loadConfig({ dataDir, listen: `unix://${join(dataDir, "cp.sock")}` });
  await serve();
  await client.createConversation("tr1");
  containerId = (await client.startEnclosure("tr1")).enclosure?.containerId ?? "";
  runId = (await client.openRun("tr1", { resources: ["workspace", "shell", "kernel"], approvalPolicy: "never" })).id;
});

afterAll(async () => {
  delete process.env.ENCLAVE_CONSOLE_TOKEN;
  if (cp) {
    for (const c of cp.listConversations()) await cp.deleteConversation(c.id).catch(() => undefined);
    await unserve().catch(() => undefined);
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe("enclosure transport", () => {
  it("mounts no host folder for the agent and names no host path inside", async () => {
    const info = await docker.getContainer(containerId).inspect();
    expect(info.Mounts.find((m) => m.Destination === "/run/enclave")).toBeUndefined();
    expect(Object.keys(info.HostConfig.Tmpfs ?? {})).toContain("/run/enclave");
    for (const bind of info.HostConfig.Binds ?? []) expect(bind).not.toContain(cp.socketRoot);
    const r = await client.callTool(runId, "exec", { command: "cat /proc/self/mountinfo; ls -la /run/enclave" });
    const text = resultText(r);
    expect(text).not.toContain(cp.socketRoot);
    // Socket folder and file names, not messages.
    expect(text).not.toContain("enclave-sock-");
    expect(text).toContain("agent.sock");
  });

  it("passes nothing of the control plane's environment inside (its console token included)", async () => {
    const env = resultText(await client.callTool(runId, "exec", { command: "env; cat /proc/1/environ | tr '\\0' '\\n'" }));
    expect(env).toContain("HOME=/home/enclave");
    expect(env).not.toContain(SECRET);
    expect(env).not.toContain("ENCLAVE_CONSOLE_TOKEN");
  });

  it("keeps the kernel when the stream drops: every relay killed, the next cell finds its variables", async () => {
    await cell("import os\nx = 41\nkernel_pid = os.getpid()");
    const relays = await containerPids("/agent/relay.");
    expect(relays.length).toBeGreaterThan(0);
    for (const pid of relays) process.kill(pid, "SIGKILL");
    // A call racing the drop may be told agent_lost (and to call again); the kernel is still there.
    const first = await client.callTool(runId, "eval", { description: "a cell for the transport test", code: "print(x + 1, os.getpid() == kernel_pid)" });
    if (first.isError) expect(first.errorCode).toBe("agent_lost");
    else expect(resultText(first)).toContain("42 True");
    expect(await cell("print(x + 1, os.getpid() == kernel_pid)")).toContain("42 True");
  });

  it("keeps the kernel across a control-plane restart and reconnects to the same agent", async () => {
    const agentsBefore = await containerPids("enclave-agent.mjs");
    await unserve();
    await serve();
    runId = (await client.openRun("tr1", { resources: ["workspace", "shell", "kernel"], approvalPolicy: "never" })).id;
    expect(await cell("print(x, os.getpid() == kernel_pid)")).toContain("41 True");
    expect(await containerPids("enclave-agent.mjs")).toEqual(agentsBefore);
  });

  it("code inside that floods a relay's standard error reaches the control plane's log only up to the bound", async () => {
    const lines: string[] = [];
    configureLogging({
      format: "json",
      level: "info",
      destination: new Writable({
        write(chunk: Buffer, _enc, done) {
          lines.push(...chunk.toString().split("\n").filter(Boolean));
          done();
        },
      }),
    });
    try {
      // The relays' stderr is a pipe from the engine, open to the enclosure's own uid.
      const r = await client.callTool(runId, "exec", {
        command: `for p in /proc/[0-9]*; do if tr '\\0' ' ' < $p/cmdline 2>/dev/null | grep -q 'agent/relay[.]'; then head -c 8388608 /dev/zero | tr '\\0' x > $p/fd/2 2>/dev/null && echo wrote $p; fi; done`,
      });
      expect(resultText(r)).toMatch(/wrote \/proc\/\d+/);
      await until(
        () => lines.some((l) => l.includes("the rest of this connection's is dropped")) || undefined,
        "the note that the relay's output reached its bound",
      );
      // 8 MiB written in small chunks would be thousands of lines; what reached the log is 64 KiB at most.
      const flooded = lines.filter((l) => l.includes("xxxxxxxx"));
      expect(flooded.length).toBeGreaterThan(0);
      expect(flooded.reduce((n, l) => n + l.length, 0)).toBeLessThan(2 * LIMITS.relayLogMaxBytes);
      expect((await client.callTool(runId, "exec", { command: "echo still served" })).isError).toBe(false);
    } finally {
      configureLogging({ format: "json", level: process.env.ENCLAVE_LOG_LEVEL === "info" ? "info" : "warn" });
    }
  });

  it("cannot be pointed at another agent from inside", async () => {
    // Another conversation on host placement, with a file only it has; its agent's socket is a host
    // path the enclosure may guess or learn.
    const other = await client.createConversation("tr2");
    writeFileSync(join(other.workspacePath, "only-in-tr2.txt"), "tr2's secret\n");
    const otherRun = (await client.openRun("tr2", { approvalPolicy: "never", resources: ["workspace"] })).id;
    expect(resultText(await client.callTool(otherRun, "read", { path: "only-in-tr2.txt" }))).toContain("tr2's secret");
    const hostSockets = (await import("node:fs")).readdirSync(cp.socketRoot).map((n) => join(cp.socketRoot, n));
    expect(hostSockets.length).toBeGreaterThan(1);
    // Replace the agent's socket with links to every host socket, then force a reconnect.
    const plant = hostSockets.map((s, i) => `ln -sf ${s} /run/enclave/guess${i}.sock`).join("; ");
    await client.callTool(runId, "exec", { command: `${plant}; rm -f /run/enclave/agent.sock; ln -s ${hostSockets[0]} /run/enclave/agent.sock; echo planted` });
    // Force a reconnect from scratch: the relays and the agent die (its supervisor restarts it).
    for (const pid of await containerPids("/agent/relay.")) process.kill(pid, "SIGKILL");
    for (const pid of await containerPids("enclave-agent.mjs")) process.kill(pid, "SIGKILL");
    const answers: string[] = [];
    const codes: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await client.callTool(runId, "read", { path: "only-in-tr2.txt" });
      answers.push(`${r.errorCode}: ${resultText(r)}`);
      codes.push(r.errorCode);
      if (r.errorCode === "not_found") break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    for (const a of answers) expect(a).not.toContain("tr2's secret");
    // The restarted agent cleared the planted link and serves this enclosure's workspace again.
    expect(codes.at(-1)).toBe("not_found");
    const again = await client.callTool(runId, "exec", { command: "echo back; ls /run/enclave" });
    expect(resultText(again)).toContain("back");
  });
});
