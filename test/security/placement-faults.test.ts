// Promises about the placement failing under a call:
// - the agent killed mid-call: the call gets a clear error, the next call works, and the workspace is
//   intact (files written before are unchanged; a file being written is all old or all new);
// - the container killed from outside: every call says so and how to recover, and the conversation
//   moves to host placement only when the enclosure is stopped explicitly — never silently.
// Under every runtime in ENCLAVE_TEST_RUNTIMES.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { TEST_RUNTIMES } from "../helpers/runtimes.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";
import { eventually } from "../helpers/wait.js";

const docker = new Docker();

describe.each(TEST_RUNTIMES)("placement faults under %s", (runtime) => {
  let fx: Fixture;

  beforeAll(async () => {
    fx = await startFixture();
  });
  afterAll(async () => fx?.close());

  /** Runs a command inside the enclosure through the engine's exec, as its user; its output. */
  async function inside(containerId: string, cmd: string[]): Promise<string> {
    const container = docker.getContainer(containerId);
    const user = (await container.inspect()).Config.User;
    const exec = await container.exec({ Cmd: cmd, User: user, AttachStdout: true, AttachStderr: true });
    const stream = await exec.start({ hijack: true, stdin: false });
    const out: Buffer[] = [];
    const sink = new PassThrough().on("data", (b: Buffer) => out.push(b));
    docker.modem.demuxStream(stream, sink, new PassThrough().resume());
    await new Promise<void>((resolve) => {
      stream.on("end", () => resolve());
      stream.on("error", () => resolve());
    });
    return Buffer.concat(out).toString("utf8");
  }

  /**
   * The enclosure's agent. Under runc its pid is the host's, from the engine's process list, and
   * killing it from here is instant. Under gVisor the host has no such process — and the engine's
   * list is wrong there (it shows the host's processes that happen to have gVisor's pids) — so the
   * pid is gVisor's own, found and killed from inside through the engine's exec.
   */
  async function agentPid(conversationId: string): Promise<{ containerId: string; pid: number }> {
    const conv = await fx.client.getConversation(conversationId);
    const containerId = conv.enclosure?.containerId ?? "";
    // Just after a kill the supervisor may still be restarting the agent: wait until exactly one runs.
    if (runtime === "runsc") {
      const pids = await eventually(async () => {
        const found = (await inside(containerId, ["pgrep", "-f", "(^|/)node .*enclave-agent\\.mjs"])).split("\n").filter((l) => /^\d+$/.test(l.trim()));
        return found.length === 1 ? found : undefined;
      }, "exactly one agent process in the enclosure");
      return { containerId, pid: Number(pids[0]) };
    }
    const agents = await eventually(async () => {
      const top = await docker.getContainer(containerId).top({ ps_args: "-eo pid,args" });
      const found = ((top.Processes ?? []) as string[][]).filter((p) => /node .*enclave-agent\.mjs/.test(p.join(" ")));
      return found.length === 1 ? found : undefined;
    }, "exactly one agent process in the enclosure");
    return { containerId, pid: Number(agents[0]?.[0]) };
  }

  async function kill(agent: { containerId: string; pid: number }): Promise<void> {
    if (runtime === "runsc") await inside(agent.containerId, ["kill", "-9", String(agent.pid)]);
    else process.kill(agent.pid, "SIGKILL");
  }

  async function killAgent(conversationId: string): Promise<void> {
    await kill(await agentPid(conversationId));
  }

  const digest = (b: Buffer | string): string => createHash("sha256").update(b).digest("hex");

  describe("the agent killed mid-call", () => {
    let run: string;
    let workspace: string;
    beforeAll(async () => {
      workspace = (await fx.client.createConversation("agent-kill")).workspacePath;
      writeFileSync(join(workspace, "before.txt"), "written before the fault\n");
      await fx.client.startEnclosure("agent-kill", { runtime });
      run = (await fx.client.openRun("agent-kill", { approvalPolicy: "never", resources: ["workspace", "shell"] })).id;
    });

    it("answers the call with agent_lost, recovers on the next call, and keeps the workspace intact", async () => {
      const pending = fx.client.callTool(run, "exec", { command: "sleep 30" });
      await new Promise((r) => setTimeout(r, 500));
      await killAgent("agent-kill");
      const r = await pending;
      expect(r.errorCode).toBe("agent_lost");
      // The transport's own words (gRPC's detail, in parentheses) vary with how the connection broke.
      await expectTranscript(resultText(r), `transcripts/placement-faults/agent-lost-${runtime}.txt`, [
        [/\b[0-9a-f]{12}\b/g, "<container>"],
        [/ \((?:Connection dropped|[^)]*ECONNRESET[^)]*|[^)]*Stream removed[^)]*)\)/g, " (<transport>)"],
      ]);
      const again = await fx.client.callTool(run, "read", { path: "before.txt" });
      expect(resultText(again)).toBe("written before the fault\n");
    });

    it("never leaves a file half-written when the agent dies during writes", async () => {
      const old = "old\n".repeat(1000);
      const fresh = "0123456789abcdef".repeat(768 * 1024); // 12 MiB: long enough to be cut mid-write
      const names = ["w0.txt", "w1.txt", "w2.txt"];
      // How long the three writes take together, so the kill can be aimed inside them; when a kill
      // lands after they all finished, aim earlier next time.
      for (const n of names) writeFileSync(join(workspace, n), old);
      const t0 = Date.now();
      await Promise.all(names.map((n) => fx.client.callTool(run, "write", { path: n, content: fresh })));
      let delay = (Date.now() - t0) / 3;
      let cut = 0;
      for (let attempt = 0; attempt < 12 && cut === 0; attempt++) {
        for (const n of names) writeFileSync(join(workspace, n), old);
        const agent = await agentPid("agent-kill");
        const writes = names.map((n) => fx.client.callTool(run, "write", { path: n, content: fresh }));
        await new Promise((r) => setTimeout(r, delay));
        await kill(agent);
        const results = await Promise.all(writes);
        cut = results.filter((r) => r.errorCode === "agent_lost").length;
        for (const n of names) {
          const now = digest(readFileSync(join(workspace, n)));
          expect([digest(old), digest(fresh)], `${n} is neither the old nor the new content`).toContain(now);
        }
        delay /= 2;
        await fx.client.callTool(run, "list", {}); // wait for the agent to be back
      }
      expect(cut, "no kill landed while a write was in flight; nothing was tested").toBeGreaterThan(0);
      expect(resultText(await fx.client.callTool(run, "exec", { command: "echo back" }))).toMatch(/^back$/m);
    });
  });

  describe("the container killed from outside", () => {
    it("is reported on every call, and only an explicit stop brings the conversation to the host", async () => {
      const workspace = (await fx.client.createConversation("container-kill")).workspacePath;
      await fx.client.startEnclosure("container-kill", { runtime });
      const run = (await fx.client.openRun("container-kill", { approvalPolicy: "never", resources: ["workspace", "shell"] })).id;
      await fx.client.callTool(run, "write", { path: "kept.txt", content: "kept\n" });
      const id = (await fx.client.getConversation("container-kill")).enclosure?.containerId ?? "";
      await docker.getContainer(id).kill();
      await new Promise((r) => setTimeout(r, 500));
      const answers: string[] = [];
      for (const [tool, args] of [
        ["read", { path: "kept.txt" }],
        ["exec", { command: "true" }],
        ["list", {}],
      ] as const) {
        const r = await fx.client.callTool(run, tool, args);
        expect(r.errorCode, `${tool}: ${resultText(r)}`).toBe("enclosure_dead");
        answers.push(`## ${tool}\n${resultText(r)}\n`);
      }
      // Each says what to do (stop the enclosure), recorded whole.
      await expectTranscript(answers.join(""), `transcripts/placement-faults/container-killed-${runtime}.txt`, [[/\b[0-9a-f]{12}\b/g, "<container>"]]);
      const conv = await fx.client.getConversation("container-kill");
      expect(conv.placement).toBe("enclosure");
      expect(conv.enclosure?.state).toBe("dead");
      const stopped = await fx.client.stopEnclosure("container-kill");
      expect(stopped.placement).toBe("host");
      expect(resultText(await fx.client.callTool(run, "read", { path: "kept.txt" }))).toBe("kept\n");
      expect(existsSync(join(workspace, "kept.txt"))).toBe(true);
    });
  });
});
