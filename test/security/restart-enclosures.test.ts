// SIGTERM drains the control plane (a real process): new calls are refused with the stable code
// `draining`, the call in flight finishes, the process exits and its enclosure keeps running. The
// next start on the same data folder reconnects to the same agent in the enclosure (a variable a
// cell defined is still there, through the run opened before the restart; the same language server
// answers), and removes only the
// containers that are its own conversations' orphans. After a SIGKILL too, the kernel is still there.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Docker from "dockerode";
import { afterAll, describe, expect, it } from "vitest";
import { ControlPlaneCallError, resultText } from "@enclave/client/control-plane-client.js";
import { ownerId } from "@enclave/control-plane/placement/docker-driver.js";
import { LABELS } from "@enclave/control-plane/model/labels.js";
import { imageTags } from "@enclave/control-plane/image-set/image-tags.js";
import { type ControlPlaneProcess, startControlPlaneProcess, stopControlPlaneProcess } from "../helpers/control-plane-process.js";
import { until } from "../helpers/wait.js";

const docker = new Docker();
const dataDir = mkdtempSync(join(tmpdir(), "enclave-drain-"));
const planted: string[] = [];
let cp: ControlPlaneProcess | undefined;
let enclosureId = "";

afterAll(async () => {
  if (cp) {
    await cp.client.deleteConversation("drain-enc").catch(() => undefined);
    await stopControlPlaneProcess(cp, "SIGKILL").catch(() => undefined);
  }
  for (const id of [...planted, enclosureId].filter(Boolean))
    await docker
      .getContainer(id)
      .remove({ force: true, v: true })
      .catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
});

/** A container that is never started, with the given labels. */
async function plant(labels: Record<string, string>): Promise<string> {
  const c = await docker.createContainer({ Image: imageTags().runtime, Entrypoint: ["/bin/true"], NetworkDisabled: true, Labels: labels });
  planted.push(c.id);
  return c.id;
}

async function exists(id: string): Promise<boolean> {
  return docker
    .getContainer(id)
    .inspect()
    .then(
      () => true,
      () => false,
    );
}

/** Host pids of the container's processes whose command line contains `needle`. */
async function pidsOf(containerId: string, needle: string): Promise<number[]> {
  const top = (await docker.getContainer(containerId).top({ ps_args: "-eo pid,args" })) as { Processes: string[][] };
  return top.Processes.filter((p) => p.join(" ").includes(needle)).map((p) => Number(p[0]));
}

const agentPids = (containerId: string) => pidsOf(containerId, "enclave-agent.mjs");

describe("SIGTERM and a restart with an enclosure running", () => {
  it("drains, leaves the enclosure running, reconnects to its kernel, and reaps only its own orphans", async () => {
    cp = await startControlPlaneProcess(dataDir);
    let client = cp.client;
    await client.createConversation("drain-enc");
    enclosureId = (await client.startEnclosure("drain-enc")).enclosure?.containerId ?? "";
    expect(enclosureId).not.toBe("");
    const runId = (await client.openRun("drain-enc", { approvalPolicy: "never", resources: ["workspace", "shell", "kernel", "lsp"] })).id;
    const cell = (code: string) => client.callTool(runId, "eval", { description: "a cell across the control plane restart", language: "python", code });
    const defined = await cell("x = 41");
    expect(defined.isError, resultText(defined)).toBe(false);
    // A language server running too.
    await client.callTool(runId, "write", { path: "pyproject.toml", content: '[project]\nname = "m"\n' });
    await client.callTool(runId, "write", { path: "m.py", content: "def greet():\n    return 1\n" });
    const hover = () => client.callTool(runId, "lsp", { action: "hover", file: "m.py", line: 1, symbol: "greet" });
    const hovered = await hover();
    expect(hovered.isError, resultText(hovered)).toBe(false);
    const serversBefore = await pidsOf(enclosureId, "pyright");
    expect(serversBefore.length).toBeGreaterThan(0);
    const agentsBefore = await agentPids(enclosureId);
    expect(agentsBefore.length).toBeGreaterThan(0);

    const owner = ownerId(dataDir);
    const ghost = await plant({ [LABELS.managed]: "true", [LABELS.owner]: owner, [LABELS.conversation]: "drain-ghost" });
    const notAConversation = await plant({ [LABELS.managed]: "true", [LABELS.owner]: owner });
    const foreign = await plant({ [LABELS.managed]: "true", [LABELS.owner]: "another-control-plane", [LABELS.conversation]: "drain-ghost" });

    // A call in flight when SIGTERM comes.
    let started = false;
    const inFlight = client.callTool(runId, "exec", { command: "echo started; sleep 3; echo finished" }, (e) => {
      if (e.event?.$case === "output" && e.event.value.data.toString().includes("started")) started = true;
    });
    await until(() => started, "the long call to start");
    const exited = (cp.child.kill("SIGTERM"), cp.exited);
    await until(() => cp?.stderr().includes("draining"), "the control plane to start draining");
    const refused = await client.callTool(runId, "list", {}).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(ControlPlaneCallError);
    expect((refused as ControlPlaneCallError).code).toBe("draining");
    const finished = await inFlight;
    expect(finished.isError, resultText(finished)).toBe(false);
    expect(resultText(finished)).toContain("finished");
    expect(await exited).toBe(0);
    client.close();
    expect((await docker.getContainer(enclosureId).inspect()).State.Running).toBe(true);

    cp = await startControlPlaneProcess(dataDir);
    client = cp.client;
    expect(await exists(ghost), "our conversation's orphan").toBe(false);
    expect(cp.stderr()).toContain(`reaped orphaned container ${ghost.slice(0, 12)}`);
    expect(await exists(notAConversation), "ours, but no conversation's (a warm pool's)").toBe(true);
    expect(await exists(foreign), "another control plane's").toBe(true);

    // The run opened before the restart still works, on the same agent, with the kernel's state.
    const read = await client.callTool(runId, "eval", { description: "a cell across the control plane restart", language: "python", code: "print(x + 1)" });
    expect(read.isError, resultText(read)).toBe(false);
    expect(resultText(read)).toContain("42");
    expect(await agentPids(enclosureId)).toEqual(agentsBefore);
    const hoveredAgain = await hover();
    expect(hoveredAgain.isError, resultText(hoveredAgain)).toBe(false);
    expect(await pidsOf(enclosureId, "pyright")).toEqual(serversBefore);
    expect((await client.getConversation("drain-enc")).enclosure?.state).toBe("running");

    // A crash instead of a drain: SIGKILL with a call in flight; the kernel is still there after.
    const again = await client.callTool(runId, "eval", { description: "a cell across the control plane restart", language: "python", code: "y = x * 2" });
    expect(again.isError, resultText(again)).toBe(false);
    let sleeping = false;
    const cut = client
      .callTool(runId, "exec", { command: "echo started; sleep 30" }, (e) => {
        if (e.event?.$case === "output" && e.event.value.data.toString().includes("started")) sleeping = true;
      })
      .catch(() => undefined);
    await until(() => sleeping, "the call to be in flight");
    await stopControlPlaneProcess(cp, "SIGKILL");
    await cut;
    cp = await startControlPlaneProcess(dataDir);
    client = cp.client;
    const afterCrash = await client.callTool(runId, "eval", {
      description: "a cell across the control plane restart",
      language: "python",
      code: "print(x, y)",
    });
    expect(afterCrash.isError, resultText(afterCrash)).toBe(false);
    expect(resultText(afterCrash)).toContain("41 82");
    expect(resultText(afterCrash)).not.toContain("host_agent_lost");
  });
});
