// An agent found restarted (another agent answers than the one before, with no stop in between) is
// recorded as an agent_restarted audit event, on host placement and in an enclosure; a deliberate
// stop and start is not a restart.
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { until } from "../helpers/wait.js";

let fx: Fixture;
const docker = new Docker();

beforeAll(async () => {
  fx = await startFixture();
});
afterAll(async () => fx?.close());

const restarts = (conversationId: string) => fx.cp.audit.history(conversationId).filter((e) => e.kind === "agent_restarted");

describe("agent_restarted", () => {
  it("is recorded when the host agent died and another answers", async () => {
    await fx.client.createConversation("restart-host");
    const run = (await fx.client.openRun("restart-host", { approvalPolicy: "never", resources: ["workspace"] })).id;
    const wrote = await fx.client.callTool(run, "write", { path: "a.txt", content: "a\n" });
    expect(wrote.isError, resultText(wrote)).toBe(false);
    const pid = await until(() => fx.cp.hostAgents.pid("restart-host"), "the host agent's pid");
    await fx.client.callTool(run, "list", {});
    expect(restarts("restart-host")).toHaveLength(0);
    process.kill(pid, "SIGKILL");
    await until(() => fx.cp.hostAgents.pid("restart-host") === undefined, "the host agent to be gone");
    expect(resultText(await fx.client.callTool(run, "read", { path: "a.txt" }))).toBe("a\n");
    const events = restarts("restart-host");
    expect(events).toHaveLength(1);
    expect(events[0]?.detail).toContain(`pid ${pid}`);
  });

  it("is recorded when an enclosure's agent died and was started again, and not for a stop and start", async () => {
    await fx.client.createConversation("restart-enclosure");
    await fx.client.startEnclosure("restart-enclosure");
    const run = (await fx.client.openRun("restart-enclosure", { approvalPolicy: "never", resources: ["workspace", "shell"] })).id;
    await fx.client.callTool(run, "list", {});
    expect(restarts("restart-enclosure")).toHaveLength(0);

    const id = (await fx.client.getConversation("restart-enclosure")).enclosure?.containerId ?? "";
    const top = await docker.getContainer(id).top({ ps_args: "-eo pid,args" });
    const agent = ((top.Processes ?? []) as string[][]).find((p) => /node .*enclave-agent\.mjs/.test(p.join(" ")));
    process.kill(Number(agent?.[0]), "SIGKILL");
    // The call in flight may be cut; a later one reaches the agent started again.
    for (let i = 0; i < 5 && (await fx.client.callTool(run, "list", {})).errorCode; i++);
    expect(restarts("restart-enclosure")).toHaveLength(1);

    // Stopped and started on purpose: the new agents (host, then another enclosure) are no restart.
    await fx.client.stopEnclosure("restart-enclosure");
    await fx.client.callTool(run, "list", {});
    await fx.client.startEnclosure("restart-enclosure");
    await fx.client.callTool(run, "list", {});
    expect(restarts("restart-enclosure")).toHaveLength(1);
  });
});
