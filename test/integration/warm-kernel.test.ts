// An agent started for a cell (`--warm-kernel`) starts that language's kernel at once, while the rest
// of it loads: the kernel is alive before any cell is sent, and the first cell runs in it. A host agent
// started by an eval is started so; one started by any other tool is not.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AgentClient } from "@enclave/control-plane/agent-client/agent-client.js";
import { resultText } from "@enclave/client/control-plane-client.js";
import { agentBundleEntry } from "@enclave/control-plane/repo-paths.js";
import { startFixture } from "../helpers/control-plane-fixture.js";
import { hostPython } from "../helpers/host-python.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";
import { eventually } from "../helpers/wait.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function scratch(): { ws: string; state: string; socket: string } {
  const root = mkdtempSync(join(tmpdir(), "enclave-warm-kernel-"));
  dirs.push(root);
  const ws = join(root, "ws");
  mkdirSync(ws);
  return { ws, state: join(root, "state"), socket: join(root, "agent.sock") };
}

describe("a kernel started ahead of its first cell", () => {
  it("is alive before any cell is sent when the agent is told --warm-kernel python", async () => {
    const { ws, state, socket } = scratch();
    const child = spawn(process.execPath, [agentBundleEntry, "--socket", socket, "--workspace", ws, "--state-dir", state, "--warm-kernel", "python"], {
      env: { ...process.env, ENCLAVE_PYTHON: hostPython() },
      stdio: ["ignore", "ignore", "pipe"],
    });
    const client = new AgentClient(socket, () => "test agent");
    try {
      await client.health(20_000);
      await eventually(
        async () => (await client.listKernels()).kernels.some((k) => k.info?.language === "python"),
        "the python kernel to be running with no cell sent",
        20_000,
      );
      const [kernel] = (await client.listKernels()).kernels;
      expect(kernel?.cells).toBe(0);
    } finally {
      client.close();
      child.kill("SIGTERM");
    }
  });

  it("refuses a language it has no kernel for, saying which it has", async () => {
    const { ws, state, socket } = scratch();
    const r = spawnSync(process.execPath, [agentBundleEntry, "--socket", socket, "--workspace", ws, "--state-dir", state, "--warm-kernel", "ruby"], {
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(r.status).toBe(2);
    // A usage error (exit status 2); what it says, recorded.
    await expectTranscript(r.stderr, "transcripts/warm-kernel/unknown-language.txt");
  });

  it("on host placement: an eval's agent has the kernel started with it, another tool's agent has none", async () => {
    process.env.ENCLAVE_PYTHON = hostPython();
    const fx = await startFixture();
    try {
      await fx.client.createConversation("by-eval");
      const run = (await fx.client.openRun("by-eval", { approvalPolicy: "never" })).id;
      const r = await fx.client.callTool(run, "eval", { description: "the first cell of this conversation", code: "1 + 1" });
      expect(resultText(r)).toBe("2");
      await fx.client.createConversation("by-exec");
      const other = (await fx.client.openRun("by-exec", { approvalPolicy: "never" })).id;
      expect((await fx.client.callTool(other, "exec", { command: "echo hi" })).isError).toBe(false);
      // What the control plane asked of each agent, from the sandboxed agent's own command line.
      const argsOf = (id: string): string[] => {
        const pid = fx.cp.hostAgents.auditTarget(id)?.agentPid;
        expect(pid).toBeDefined();
        return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      };
      expect(argsOf("by-eval").join(" ")).toMatch(/ --warm-kernel python( |$)/);
      expect(argsOf("by-exec")).not.toContain("--warm-kernel");
      const kernelsOf = async (id: string) => (await (await fx.cp.placements.endpoint(id)).client.listKernels()).kernels.map((k) => k.info?.language);
      expect(await kernelsOf("by-exec")).toEqual([]);
    } finally {
      await fx.close();
    }
  });
});
