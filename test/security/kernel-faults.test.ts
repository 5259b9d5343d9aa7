// Promises about kernels misbehaving inside an enclosure:
// - a cell allocating past the memory limit: the kernel dies, the error says out of memory, the
//   agent survives (same process) and the next cell runs in a fresh kernel;
// - a fork bomb in a cell is held by the pids limit, the agent answers meanwhile, the cell's budget
//   stops it and everything it started is reaped;
// - a cell trying to reach the network (Python and JavaScript) fails every way.
// Under every runtime in ENCLAVE_TEST_RUNTIMES; under gVisor the first two end the enclosure instead
// (said below, where the cases split).
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { type EvalPlace, evalCell, evalOk } from "../helpers/eval-cases.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { pidsCgroupDir, readPidsCgroup } from "../helpers/container-pids.js";
import { TEST_RUNTIMES } from "../helpers/runtimes.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";
import { eventually, until } from "../helpers/wait.js";

const MEMORY = 1024 * 1024 ** 2;
const PIDS = 256;
const docker = new Docker();

describe.each(TEST_RUNTIMES)("kernel faults in an enclosure under %s", (runtime) => {
  let fx: Fixture;
  let place: EvalPlace;
  let containerId: string;

  beforeAll(async () => {
    fx = await startFixture();
    const conv = await fx.client.createConversation("kfaults");
    const started = await fx.client.startEnclosure("kfaults", { runtime, memoryBytes: MEMORY, pidsLimit: PIDS });
    containerId = started.enclosure?.containerId ?? "";
    place = { fx, conversationId: conv.id, runId: (await fx.client.openRun(conv.id, { approvalPolicy: "never" })).id, workspace: conv.workspacePath };
  });
  afterAll(async () => fx?.close());

  async function agentPid(): Promise<string> {
    const r = await fx.client.callTool(place.runId, "exec", { command: "pgrep -f enclave-agent.mjs | head -1" });
    return resultText(r).split("\n")[0] ?? "";
  }

  const processCount = async (): Promise<number> => ((await docker.getContainer(containerId).top({ ps_args: "-e" })).Processes ?? []).length;

  // Under gVisor a kernel that runs out of memory, or a fork bomb, takes the whole sandbox with it: the
  // cgroup's out-of-memory killer picks gVisor's kernel (Debian's runsc sets no memory limit of its
  // own inside), and a bomb held at RLIMIT_NPROC inside still grows gVisor's host tasks to the
  // cgroup's bound (see fork-bomb.test.ts). The host stays whole; the conversation is told, and a
  // new enclosure starts. These cases say so, and restart the enclosure for the next one.
  const endsSandbox = runtime === "runsc";
  /** The conversation sees its enclosure dead, says why, and the engine's record agrees: killed for memory (or, unless `oomOnly`, exited). */
  async function expectEnclosureEnded(oomOnly: boolean): Promise<void> {
    const dead = await eventually(async () => {
      const conv = await fx.client.getConversation("kfaults");
      return conv.enclosure?.state === "dead" && conv;
    }, "the conversation to see its enclosure dead");
    expect(dead.enclosure?.detail).not.toBe("");
    const { State } = await docker.getContainer(containerId).inspect();
    expect(State.Running).toBe(false);
    if (oomOnly) expect(State.OOMKilled, dead.enclosure?.detail).toBe(true);
    else expect(State.OOMKilled || State.ExitCode !== 0, dead.enclosure?.detail).toBe(true);
    expect((await fx.client.callTool(place.runId, "list", {})).errorCode).toBe("enclosure_dead");
    await fx.client.stopEnclosure("kfaults");
    containerId = (await fx.client.startEnclosure("kfaults", { runtime, memoryBytes: MEMORY, pidsLimit: PIDS })).enclosure?.containerId ?? "";
    expect(await evalOk(place, { code: "6 * 7" })).toBe("42");
  }

  const notUnderGvisor = endsSandbox ? " — not under gVisor, where it ends the enclosure (next case)" : "";
  it.skipIf(endsSandbox)(
    `reports a kernel killed for running out of memory; the next cell runs in a fresh one and the agent lives on${notUnderGvisor}`,
    async () => {
      const before = await agentPid();
      await evalOk(place, { code: "state = 'set before the hog'" });
      const r = await evalCell(place, { code: "print('allocating', flush=True)\nhog = b'x' * (3 * 1024 ** 3)" });
      expect(r.errorCode).toBe("kernel_died");
      const text = resultText(r);
      // What the cell printed, then why its kernel died (the same code as any other death: the words tell this one).
      await expectTranscript(text, "transcripts/kernel-faults/out-of-memory.txt", [[/\bpy-[0-9a-f]+\b/g, "py-<id>"]]);
      expect(await evalOk(place, { code: "'state' in globals()" })).toBe("False");
      expect(await agentPid()).toBe(before);
      const info = await docker.getContainer(containerId).inspect();
      expect(info.State.Running).toBe(true);
    },
  );

  it.skipIf(!endsSandbox)("under gVisor, a kernel running out of memory ends the enclosure, which is reported and starts again", async () => {
    const r = await evalCell(place, { code: "print('allocating', flush=True)\nhog = b'x' * (3 * 1024 ** 3)" });
    expect(r.isError).toBe(true);
    await expectEnclosureEnded(true);
  });

  const FORK_BOMB =
    // Every process forks forever; the first refusal each one meets is printed, so the result shows
    // the limit was reached (EAGAIN is errno 11).
    "import os, time\nnoted = False\nwhile True:\n    try:\n        os.fork()\n    except OSError as e:\n        if not noted:\n            noted = True\n            print('fork refused: errno', e.errno, flush=True)\n        time.sleep(0.01)";

  it.skipIf(endsSandbox)(`holds a fork bomb in a cell at the pids limit, keeps answering, and reaps it when the budget runs out${notUnderGvisor}`, async () => {
    const baseline = await processCount();
    const cgroup = await pidsCgroupDir(containerId);
    const before = readPidsCgroup(cgroup);
    expect(before.max).toBe(PIDS);
    const bomb = evalCell(place, { code: FORK_BOMB, timeout_seconds: 6 });
    // Wait (bounded) until the kernel has refused a fork at the limit, then ask the agent while the
    // bomb holds every pid.
    await until(() => readPidsCgroup(cgroup).refused > before.refused, "the pids limit to refuse a fork", 20_000);
    const read = await fx.client.callTool(place.runId, "list", {});
    expect(read.isError, resultText(read)).toBe(false);
    const ended = await bomb;
    expect(ended.errorCode).toBe("timeout");
    expect(resultText(ended)).toMatch(/fork refused: errno 11/);
    // The kernel itself refused forks at this container's limit, and the count reached it.
    const limited = readPidsCgroup(cgroup);
    expect(limited.refused).toBeGreaterThan(before.refused);
    if (limited.peak !== undefined) expect(limited.peak).toBe(PIDS);
    let left = PIDS;
    for (let i = 0; i < 60 && left > baseline + 2; i++) {
      await new Promise((r) => setTimeout(r, 250));
      left = await processCount();
    }
    expect(left).toBeLessThanOrEqual(baseline + 2);
    // The same kernel answers (whatever the dying forks printed is shown first, as stray output).
    const next = await evalCell(place, { code: "6 * 7" });
    expect(next.isError, resultText(next)).toBe(false);
    expect(resultText(next).trim().split("\n").pop()).toBe("42");
  });

  it.skipIf(!endsSandbox)("under gVisor, a fork bomb in a cell ends the enclosure, which is reported and starts again", async () => {
    await evalCell(place, { code: FORK_BOMB, timeout_seconds: 6 });
    // Whichever bound gVisor meets first: the cgroup's host tasks (it exits) or its memory.
    await expectEnclosureEnded(false);
  });

  it("cannot reach the network from a Python or a JavaScript cell", async () => {
    const py = await evalOk(place, {
      code: [
        "import socket",
        "out = []",
        "for host, port in [('1.1.1.1', 443), ('8.8.8.8', 53)]:",
        "    try:",
        "        socket.create_connection((host, port), timeout=3); out.append('connected')",
        "    except OSError as e:",
        "        out.append(type(e).__name__ + ':' + str(e.errno))",
        "try:",
        "    socket.getaddrinfo('registry.npmjs.org', 443); out.append('resolved')",
        "except OSError as e:",
        "    out.append('dns:' + type(e).__name__)",
        "' '.join(out)",
      ].join("\n"),
    });
    // No route out: Linux says ENETUNREACH (101), gVisor's network stack EHOSTUNREACH (113).
    const unreachable = runtime === "runsc" ? { errno: 113, code: "EHOSTUNREACH" } : { errno: 101, code: "ENETUNREACH" };
    expect(py).toBe(`'OSError:${unreachable.errno} OSError:${unreachable.errno} dns:gaierror'`);
    const js = await evalOk(place, {
      language: "javascript",
      code: "const net = await import('node:net'); await new Promise((done) => net.connect(443, '1.1.1.1').on('error', (e) => done(e.code)).on('connect', () => done('connected')))",
    });
    expect(js).toBe(`'${unreachable.code}'`);
  });
});
