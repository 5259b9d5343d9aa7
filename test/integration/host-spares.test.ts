// Spare host agents (ENCLAVE_HOST_SPARES): started in sandboxes of their own before any conversation,
// taken by a new conversation whose workspace the control plane makes, never handed on, refilled,
// and gone with the control plane. Each starts its Python kernel ahead; a first cell still runs in a
// .venv put in the workspace after the spare was made.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
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

  it("is refilled by a host call, not by a conversation made: one made for an enclosure costs no refill", async () => {
    await spareReady();
    await fx.client.createConversation("took-no-call");
    // Taken, and no call yet: nothing is started for the next one (its host agent may never be used).
    await new Promise((r) => setTimeout(r, 3_000));
    expect(fx.cp.hostAgents.spareCount()).toBe(0);
    // A call served on host placement starts the next spare.
    await exec("took-no-call", "true");
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

  const cell = async (id: string, code: string): Promise<{ isError: boolean; text: string; fresh?: boolean }> => {
    const run = (await fx.client.openRun(id, { approvalPolicy: "never" })).id;
    const r = await fx.client.callTool(run, "eval", { description: "a cell in a new conversation", language: "python", code });
    const details = r.isError ? undefined : (JSON.parse(r.detailsJson) as { kernel?: { fresh?: boolean } });
    return { isError: r.isError, text: resultText(r), fresh: details?.kernel?.fresh };
  };

  it("answers the first cell from the Python kernel it started ahead", async () => {
    await spareReady();
    await fx.client.createConversation("warm-kernel");
    const pid = fx.cp.hostAgents.pid("warm-kernel");
    // The spare's kernel, started before the conversation existed, is alive already.
    expect(await fx.cp.liveKernels("warm-kernel")).toEqual(["python"]);
    // Read before the cell's echo imports anything: the pretty printer was imported ahead, and the
    // variable that asked for it is not left for the cell's code to see.
    const first = await cell("warm-kernel", "import sys, os; (sys.prefix, '_enclave_kernel.pretty' in sys.modules, 'ENCLAVE_KERNEL_AHEAD' in os.environ)");
    expect(first.text).toMatch(/^\('\/run\/enclave\/state\/kernels\/python-\w+', True, False\)$/);
    // Its first use: a kernel with no cell before this one.
    expect(first.fresh).toBe(true);
    expect((await cell("warm-kernel", "1+1")).fresh).toBe(false);
    expect(fx.cp.hostAgents.pid("warm-kernel")).toBe(pid);
  });

  it("runs the first cell in a .venv put in the workspace before it, not in the kernel started over the empty one", async () => {
    await spareReady();
    const view = await fx.client.createConversation("venv-after");
    const pid = fx.cp.hostAgents.pid("venv-after");
    // A venv the sandbox can run (its base is the system's, which the sandbox shows): the agent stays.
    execFileSync("/usr/bin/python3", ["-m", "venv", "--without-pip", join(view.workspacePath, ".venv")]);
    expect((await cell("venv-after", "import sys; sys.prefix")).text).toContain("/workspace/.venv");
    expect(fx.cp.hostAgents.pid("venv-after")).toBe(pid);
  });

  it("is replaced by an agent of the conversation's own when a .venv put there needs its sandbox made otherwise", async () => {
    await spareReady();
    const view = await fx.client.createConversation("venv-refused");
    const pid = fx.cp.hostAgents.pid("venv-refused");
    // A venv naming /etc as its Python: refused, which only an agent started over it can say.
    mkdirSync(join(view.workspacePath, ".venv", "bin"), { recursive: true });
    writeFileSync(join(view.workspacePath, ".venv", "pyvenv.cfg"), "home = /etc\ninclude-system-site-packages = false\nversion = 3.11.7\n");
    symlinkSync("/etc/python3", join(view.workspacePath, ".venv", "bin", "python"));
    const refused = await cell("venv-refused", "1+1");
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/\[venv_base_not_(allowed|python)\]/);
    expect(fx.cp.hostAgents.pid("venv-refused")).not.toBe(pid);
  });

  it("is not taken by a conversation with an egress policy (its kernel started without the proxy's variables)", async () => {
    await spareReady();
    await fx.client.createConversation("with-egress", "", { egress: [{ cidr: "127.0.0.1/32", ports: [3141] }] });
    expect(fx.cp.hostAgents.pid("with-egress")).toBeUndefined();
    expect(fx.cp.hostAgents.spareCount()).toBe(1);
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
