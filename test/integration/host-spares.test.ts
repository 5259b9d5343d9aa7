// Spare host agents (ENCLAVE_HOST_SPARES): started in sandboxes of their own before any conversation,
// taken by a new conversation whose workspace the control plane makes, never handed on, refilled,
// and gone with the control plane.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { eventually } from "../helpers/wait.js";

describe("spare host agents", () => {
  let fx: Fixture;
  const spareReady = () => eventually(async () => fx.cp.hostAgents.spareCount() >= 1, "a spare host agent to be ready", 60_000);
  const exec = async (id: string, command: string): Promise<string> => {
    const run = (await fx.client.openRun(id, { approvalPolicy: "never" })).id;
    const r = await fx.client.callTool(run, "exec", { command });
    expect(r.isError, resultText(r)).toBe(false);
    return resultText(r);
  };

  beforeAll(async () => {
    fx = await startFixture((config) => {
      config.hostSandbox.spares = 1;
    });
  });
  afterAll(async () => {
    const spares = join(fx.dataDir, "host-spares");
    await fx.cp.close();
    // Closing stops the spares and removes their folders.
    expect(existsSync(spares) ? readdirSync(spares) : []).toEqual([]);
    await fx.close().catch(() => undefined);
  });

  it("gives a new conversation a running agent over an empty workspace, and gives it what was put there before the first call", async () => {
    await spareReady();
    const view = await fx.client.createConversation("took-spare");
    const pid = fx.cp.hostAgents.pid("took-spare");
    // Running before any call: the spare's own agent.
    expect(pid).toBeDefined();
    expect(readdirSync(view.workspacePath)).toEqual([]);
    writeFileSync(join(view.workspacePath, "from-platform.txt"), "made by the platform as root\n");
    const out = await exec("took-spare", "echo appended >> from-platform.txt && cat from-platform.txt && pwd && ls -A");
    expect(out).toContain("made by the platform as root\nappended\n/workspace\nfrom-platform.txt");
    expect(fx.cp.hostAgents.pid("took-spare")).toBe(pid);
    // Its state folder is the conversation's, where a restarted agent finds it.
    expect(existsSync(join(fx.dataDir, "host-state", "took-spare"))).toBe(true);
    await spareReady();
  });

  it("never hands one on: each conversation gets its own, and sees only its own workspace", async () => {
    await spareReady();
    await fx.client.createConversation("first");
    await exec("first", "echo mine > secret.txt");
    await spareReady();
    await fx.client.createConversation("second");
    expect(fx.cp.hostAgents.pid("second")).not.toBe(fx.cp.hostAgents.pid("first"));
    expect(await exec("second", "ls -A; cat /workspace/secret.txt 2>&1 || true")).toMatch(/No such file/);
    // Deleting a conversation stops its agent; another spare does not come back to it.
    await fx.client.deleteConversation("first");
    expect(fx.cp.hostAgents.pid("first")).toBeUndefined();
  });

  it("is not taken by a conversation over a workspace of the caller's", async () => {
    await spareReady();
    const mine = join(fx.dataDir, "callers-own");
    mkdirSync(mine);
    await fx.client.createConversation("own-folder", mine);
    expect(fx.cp.hostAgents.pid("own-folder")).toBeUndefined();
    expect(fx.cp.hostAgents.spareCount()).toBe(1);
    expect(await exec("own-folder", "pwd")).toContain("/workspace");
  });
});
