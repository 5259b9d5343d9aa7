// Promise: a fork bomb inside an enclosure is held by the pids limit; while it rages the agent still
// answers, when its call times out everything it started is killed, and the enclosure is usable after.
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "../../control-plane/src/client/control-plane-client.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { pidsCgroupDir, readPidsCgroup } from "../helpers/container-pids.js";
import { until } from "../helpers/wait.js";

const PIDS = 256;
let fx: Fixture;
let run: string;
let containerId: string;
const docker = new Docker();

beforeAll(async () => {
  fx = await startFixture();
  await fx.client.createConversation("bomb");
  const conv = await fx.client.startEnclosure("bomb", { pidsLimit: PIDS });
  containerId = conv.enclosure?.containerId ?? "";
  run = (await fx.client.openRun("bomb", { resources: ["workspace", "shell"] })).id;
  await fx.client.callTool(run, "write", { path: "still-here.txt", content: "yes\n" });
});
afterAll(async () => fx?.close());

const processCount = async (): Promise<number> => ((await docker.getContainer(containerId).top({ ps_args: "-e" })).Processes ?? []).length;

describe("fork bomb in an enclosure", () => {
  it("is stopped by the pids limit and the agent keeps answering", async () => {
    const info = await docker.getContainer(containerId).inspect();
    expect(info.HostConfig.PidsLimit).toBe(PIDS);
    const cgroup = await pidsCgroupDir(containerId);
    const before = readPidsCgroup(cgroup);
    expect(before.max).toBe(PIDS);
    // Every process forks forever and shrugs off EAGAIN, so the bomb presses on the limit until killed
    // (a shell bomb collapses on its own once forks start failing). The first refusal each process
    // meets is printed, so the output shows the limit was reached (EAGAIN is errno 11).
    const bomb = fx.client.callTool(run, "exec", {
      command: `python3 -c 'import os, time\nnoted = False\nwhile True:\n  try: os.fork()\n  except OSError as e:\n    if not noted: noted = True; print("fork refused: errno", e.errno, flush=True)\n    time.sleep(0.01)'`,
      timeout_seconds: 8,
    });
    // Wait (bounded) until the kernel has refused a fork at the limit, then ask the agent while the
    // bomb holds every pid.
    await until(() => readPidsCgroup(cgroup).refused > before.refused, "the pids limit to refuse a fork", 20_000);
    // The agent answers while the bomb holds every pid.
    const read = await fx.client.callTool(run, "read", { path: "still-here.txt" });
    expect(resultText(read)).toBe("yes\n");
    const ended = await bomb;
    expect(resultText(ended)).toMatch(/timed out after 8 s and was killed/);
    expect(resultText(ended)).toMatch(/fork refused: errno 11/);
    // The kernel itself refused forks at this container's limit, and the count reached it.
    const limited = readPidsCgroup(cgroup);
    expect(limited.refused).toBeGreaterThan(before.refused);
    if (limited.peak !== undefined) expect(limited.peak).toBe(PIDS);
    // Everything the bomb started is gone, and new processes can start again.
    let left = PIDS;
    for (let i = 0; i < 40 && left > 10; i++) {
      await new Promise((r) => setTimeout(r, 250));
      left = await processCount();
    }
    expect(left).toBeLessThanOrEqual(10);
    const after = await fx.client.callTool(run, "exec", { command: "echo recovered" });
    expect(resultText(after)).toMatch(/^recovered$/m);
  }, 120_000);
});
