// Promise: the agent keeps its own state (apply journal, kernel environments) in one private folder:
// without --state-dir, a new one under the temporary folder with an unpredictable name, mode 0700,
// removed when the agent stops; with --state-dir, only a folder that is a real directory owned by the
// agent's user, closed to others and apart from the workspace — anything else stops the agent at
// start with a message saying what to fix.
import { spawn } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { credentials } from "@grpc/grpc-js";
import { afterAll, describe, expect, it } from "vitest";
import { agentBundleEntry } from "@enclave/control-plane/repo-paths.js";
import { AgentInfoClient } from "@enclave/proto/gen/enclave/agent/v1/info.js";

const cleanup: string[] = [];
afterAll(() => {
  for (const d of cleanup) rmSync(d, { recursive: true, force: true });
});

function scratch(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  cleanup.push(d);
  return d;
}

interface Started {
  ready: boolean;
  code: number | null;
  log: string;
  stop(): Promise<void>;
}

/** Starts the agent; resolves once it serves, or once it exited (ready false). */
async function start(ws: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Started> {
  const socket = join(scratch("state-sock-"), "a.sock");
  const child = spawn(process.execPath, [agentBundleEntry, "--socket", socket, "--workspace", ws, ...args], { env, stdio: ["ignore", "ignore", "pipe"] });
  const out: Started = { ready: false, code: null, log: "", stop: async () => undefined };
  child.stderr.on("data", (d: Buffer) => (out.log += d.toString()));
  const exited = new Promise<void>((r) =>
    child.once("exit", (code) => {
      out.code = code;
      r();
    }),
  );
  const client = new AgentInfoClient(`unix://${socket}`, credentials.createInsecure());
  const ready = new Promise<boolean>((resolve) => client.waitForReady(Date.now() + 20_000, (err) => resolve(!err)));
  out.ready = await Promise.race([ready, exited.then(() => false)]);
  client.close();
  out.stop = async () => {
    if (out.code === null) child.kill("SIGTERM");
    await exited;
  };
  if (!out.ready) await out.stop();
  return out;
}

describe("the agent's state folder", () => {
  it("is made private under the temporary folder when none is given, and removed when the agent stops", async () => {
    const ws = scratch("state-ws-");
    const tmp = scratch("state-tmp-");
    const agent = await start(ws, [], { ...process.env, TMPDIR: tmp });
    expect(agent.ready, agent.log).toBe(true);
    const made = readdirSync(tmp);
    expect(made).toHaveLength(1);
    expect(made[0]).toMatch(/^enclave-agent-[A-Za-z0-9]{6}$/);
    const st = statSync(join(tmp, made[0] as string));
    expect(st.mode & 0o777).toBe(0o700);
    expect(st.uid).toBe(process.getuid?.());
    expect(readdirSync(join(tmp, made[0] as string)).sort()).toEqual(["journal", "kernels", "lsp"]);
    expect(readdirSync(ws)).toEqual([]);
    await agent.stop();
    expect(readdirSync(tmp)).toEqual([]);
  });

  it("is made with mode 0700 when the given one does not exist yet, and kept across restarts", async () => {
    const ws = scratch("state-ws-");
    const state = join(scratch("state-parent-"), "state");
    const first = await start(ws, ["--state-dir", state]);
    expect(first.ready, first.log).toBe(true);
    expect(statSync(state).mode & 0o777).toBe(0o700);
    await first.stop();
    expect(existsSync(join(state, "journal"))).toBe(true);
    const second = await start(ws, ["--state-dir", state]);
    expect(second.ready, second.log).toBe(true);
    await second.stop();
  });

  it("refuses a given folder that others can open, that is a link, that another user owns, or that overlaps the workspace", async () => {
    const ws = scratch("state-ws-");
    const open = scratch("state-open-");
    chmodSync(open, 0o755);
    const target = scratch("state-target-");
    const link = join(scratch("state-link-"), "state");
    symlinkSync(target, link);
    const inWorkspace = join(ws, ".state");
    const plantedJournal = scratch("state-planted-");
    symlinkSync(scratch("state-elsewhere-"), join(plantedJournal, "journal"));
    const cases: Array<[string, RegExp]> = [
      [open, /is open to other users \(mode 755\); make it mode 0700/],
      [link, /is not a directory \(a symbolic link or a file\)/],
      [inWorkspace, /overlaps the workspace/],
      [plantedJournal, /state subfolder .*journal is not a directory/],
    ];
    if (process.getuid?.() === 0) {
      const foreign = scratch("state-foreign-");
      chownSync(foreign, 1000, 1000);
      cases.push([foreign, /is owned by uid 1000, not by the agent's user \(uid 0\)/]);
    }
    for (const [dir, why] of cases) {
      const agent = await start(ws, ["--state-dir", dir]);
      expect(agent.ready, `${dir} was accepted`).toBe(false);
      expect(agent.code).toBe(1);
      expect(agent.log).toMatch(why);
    }
    expect(readdirSync(target)).toEqual([]);
    expect(existsSync(inWorkspace), "the agent made its state folder in the workspace before refusing it").toBe(false);
  });
});
