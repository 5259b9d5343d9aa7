// Promise: the apply journal is the agent's own. It lives in the agent's private state folder, so a
// journal written into the workspace (where agents once kept it) is never replayed — not by a
// restarted host agent, not by an enclosure's restarted agent, and not by the host agent that takes
// over the workspace after an enclosure wrote it. A journal planted in the state folder itself (code
// in an enclosure runs as the agent's user and can write there) is replayed only when every entry is
// one the agent could have written; nothing outside the workspace is ever deleted or created.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { credentials } from "@grpc/grpc-js";
import Docker from "dockerode";
import { expectTranscript } from "@enclave/test-kit/transcript.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentBundleEntry } from "@enclave/control-plane/repo-paths.js";
import { resultText } from "@enclave/client/control-plane-client.js";
import { AgentInfoClient } from "@enclave/proto/gen/enclave/agent/v1/info.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { until } from "../helpers/wait.js";

let fx: Fixture;
const docker = new Docker();
const cleanup: string[] = [];

beforeAll(async () => {
  fx = await startFixture();
});
afterAll(async () => {
  await fx?.close();
  for (const d of cleanup) rmSync(d, { recursive: true, force: true });
});

function outsideDir(): string {
  const d = mkdtempSync(join(tmpdir(), "journal-outside-"));
  cleanup.push(d);
  writeFileSync(join(d, "victim"), "must survive\n");
  return d;
}

/** The two journals the old agent acted on: one deletes `victim`, one moves `payload` to `created`. */
function plantedJournals(outside: string, payload: string): Record<string, string> {
  return {
    "apply-1-x.json": JSON.stringify({ state: "prepare", entries: [{ temp: join(outside, "victim"), target: "/x" }] }),
    "apply-2-y.json": JSON.stringify({ state: "commit", entries: [{ temp: payload, target: join(outside, "created") }] }),
  };
}

function expectUntouched(outside: string): void {
  expect(readFileSync(join(outside, "victim"), "utf8"), "a file outside the workspace was deleted by a journal replay").toBe("must survive\n");
  expect(existsSync(join(outside, "created")), "a journal replay created a file outside the workspace").toBe(false);
}

async function ok(runId: string, tool: string, args: Record<string, unknown>): Promise<string> {
  const r = await fx.client.callTool(runId, tool, args);
  expect(r.isError, `${tool}: ${resultText(r)}`).toBe(false);
  return resultText(r);
}

describe("host placement", () => {
  it("never replays a journal written into the workspace when its agent restarts", async () => {
    const conv = await fx.client.createConversation("journal-host");
    const ws = conv.workspacePath;
    const outside = outsideDir();
    const run = (await fx.client.openRun(conv.id, { approvalPolicy: "never" })).id;
    await ok(run, "write", { path: "payload.txt", content: "planted\n" });
    for (const [name, body] of Object.entries(plantedJournals(outside, join(ws, "payload.txt")))) {
      await ok(run, "write", { path: `.enclave/journal/${name}`, content: body });
    }
    const pid = fx.cp.hostAgents.pid(conv.id);
    expect(pid).toBeGreaterThan(0);
    process.kill(pid as number, "SIGKILL");
    await until(() => fx.cp.hostAgents.pid(conv.id) === undefined, "the host agent to exit");
    await ok(run, "list", {});
    expect(fx.cp.hostAgents.pid(conv.id)).not.toBe(pid);
    expectUntouched(outside);
    expect(readFileSync(join(ws, "payload.txt"), "utf8")).toBe("planted\n");
    // Not read at all: the planted files are still there, as written.
    expect(readdirSync(join(ws, ".enclave", "journal")).sort()).toEqual(["apply-1-x.json", "apply-2-y.json"]);
  });
});

/** A host agent started directly on a workspace and a state folder (what the control plane does, minus the control plane). */
/** The agent's report on the journals it found at start (its `enclave-agent: ` lines; a Docker log's frame headers dropped). */
function journalReport(log: string): string[] {
  const prefix = "enclave-agent: ";
  return log.split("\n").flatMap((l) => (l.includes(prefix) ? [l.slice(l.indexOf(prefix))] : []));
}

async function runAgent(ws: string, state: string): Promise<{ log: string; stop(): Promise<void> }> {
  const sockDir = mkdtempSync(join(tmpdir(), "journal-sock-"));
  cleanup.push(sockDir);
  const socket = join(sockDir, "a.sock");
  const child = spawn(process.execPath, [agentBundleEntry, "--socket", socket, "--workspace", ws, "--state-dir", state], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  child.stderr.on("data", (d: Buffer) => (log += d.toString()));
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const client = new AgentInfoClient(`unix://${socket}`, credentials.createInsecure());
  try {
    await Promise.race([
      new Promise<void>((resolve, reject) => client.waitForReady(Date.now() + 20_000, (err) => (err ? reject(err) : resolve()))),
      exited.then(() => Promise.reject(new Error(`the agent exited before it was ready:\n${log}`))),
    ]);
  } finally {
    client.close();
  }
  return {
    get log() {
      return log;
    },
    async stop() {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

describe("a journal planted in the agent's own state folder", () => {
  it("is refused and logged when an entry reaches outside the workspace or outside the journal folder", async () => {
    const ws = mkdtempSync(join(tmpdir(), "journal-ws-"));
    const state = mkdtempSync(join(tmpdir(), "journal-state-"));
    cleanup.push(ws, state);
    const outside = outsideDir();
    const journal = join(state, "journal");
    mkdirSync(journal, { mode: 0o700 });
    writeFileSync(join(ws, "payload.txt"), "planted\n");
    symlinkSync(outside, join(ws, "out"));
    // A temp named the way an apply names it, but beside a target outside the workspace.
    writeFileSync(join(outside, ".victim.enclave-0123456789ab.tmp"), "must survive\n");
    writeFileSync(join(journal, "apply-9-0000abcd.0.staged"), "pwned\n");
    const journals: Record<string, unknown> = {
      // The old format: an absolute temp anywhere.
      "apply-1-00000001.json": { state: "prepare", entries: [{ temp: join(outside, "victim"), target: "/x" }] },
      "apply-2-00000002.json": { state: "commit", entries: [{ temp: join(ws, "payload.txt"), target: join(outside, "created") }] },
      // The new format, each with one thing wrong.
      "apply-3-00000003.json": {
        state: "prepare",
        entries: [{ staged: "apply-9-0000abcd.0.staged", target: join(outside, "victim"), temp: ".victim.enclave-0123456789ab.tmp" }],
      },
      "apply-4-00000004.json": {
        state: "commit",
        entries: [{ staged: "apply-9-0000abcd.0.staged", target: join(outside, "created"), temp: ".created.enclave-0123456789ab.tmp" }],
      },
      "apply-5-00000005.json": {
        state: "commit",
        entries: [{ staged: "apply-9-0000abcd.0.staged", target: "out/created", temp: ".created.enclave-0123456789ab.tmp" }],
      },
      "apply-6-00000006.json": {
        state: "commit",
        entries: [{ staged: "../../../etc/hostname", target: "stolen.txt", temp: ".stolen.txt.enclave-0123456789ab.tmp" }],
      },
      "apply-7-00000007.json": { state: "prepare", entries: [{ staged: "apply-9-0000abcd.0.staged", target: "payload.txt", temp: "../../../victim" }] },
    };
    for (const [name, body] of Object.entries(journals)) writeFileSync(join(journal, name), JSON.stringify(body));
    // Not a file at all: reading it must not hang the agent's start.
    execFileSync("mkfifo", [join(journal, "apply-8-00000008.json")]);
    journals["apply-8-00000008.json"] = "a FIFO";

    const agent = await runAgent(ws, state);
    await agent.stop();
    expectUntouched(outside);
    expect(readFileSync(join(outside, ".victim.enclave-0123456789ab.tmp"), "utf8")).toBe("must survive\n");
    expect(readFileSync(join(ws, "payload.txt"), "utf8")).toBe("planted\n");
    expect(existsSync(join(ws, "stolen.txt"))).toBe(false);
    // One line per journal, each refused with its reason (apply-5: a symbolic link out of the workspace).
    const report = journalReport(agent.log);
    for (const name of Object.keys(journals)) expect(report.filter((l) => l.includes(name))).toHaveLength(1);
    await expectTranscript(report.join("\n"), "transcripts/journal-replay/refused-journals.txt");
    expect(readdirSync(journal)).toEqual([]);
  });

  it("is finished when every entry is one the agent could have written", async () => {
    const ws = mkdtempSync(join(tmpdir(), "journal-ws-"));
    const state = mkdtempSync(join(tmpdir(), "journal-state-"));
    cleanup.push(ws, state);
    const journal = join(state, "journal");
    mkdirSync(journal, { mode: 0o700 });
    writeFileSync(join(ws, "a.txt"), "old\n");
    writeFileSync(join(ws, ".a.txt.enclave-0123456789ab.tmp"), "new\n");
    writeFileSync(join(journal, "apply-1-0000abcd.0.staged"), "new\n");
    writeFileSync(
      join(journal, "apply-1-0000abcd.json"),
      JSON.stringify({ state: "commit", entries: [{ staged: "apply-1-0000abcd.0.staged", target: "a.txt", temp: ".a.txt.enclave-0123456789ab.tmp" }] }),
    );
    const agent = await runAgent(ws, state);
    await agent.stop();
    expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("new\n");
    expect(readdirSync(ws)).toEqual(["a.txt"]);
    await expectTranscript(journalReport(agent.log).join("\n"), "transcripts/journal-replay/completed-apply.txt");
  });
});

describe("an enclosure", () => {
  let conversationId: string;
  let run: string;
  let ws: string;
  let containerId: string;

  beforeAll(async () => {
    const conv = await fx.client.createConversation("journal-enc");
    conversationId = conv.id;
    ws = conv.workspacePath;
    containerId = (await fx.client.startEnclosure(conversationId)).enclosure?.containerId ?? "";
    run = (await fx.client.openRun(conversationId, { approvalPolicy: "never" })).id;
  });

  async function agentPid(): Promise<number | undefined> {
    const top = await docker.getContainer(containerId).top({ ps_args: "-eo pid,args" });
    const agents = ((top.Processes ?? []) as string[][]).filter((p) => /node .*enclave-agent\.mjs/.test(p.join(" ")));
    return agents.length === 1 ? Number(agents[0]?.[0]) : undefined;
  }

  /** Kills the enclosure's agent from the host and waits for its supervisor to start the next one. */
  async function restartAgent(): Promise<void> {
    const before = await agentPid();
    expect(before).toBeGreaterThan(0);
    process.kill(before as number, "SIGKILL");
    const deadline = Date.now() + 30_000;
    for (;;) {
      const now = await agentPid();
      if (now !== undefined && now !== before) break;
      if (Date.now() > deadline) throw new Error("the supervisor did not restart the agent");
      await new Promise((r) => setTimeout(r, 100));
    }
    // The first call may still race the new agent's start; a few tries, bounded.
    let answer = await fx.client.callTool(run, "list", {});
    for (let i = 0; i < 20 && answer.isError; i++) {
      await new Promise((r) => setTimeout(r, 250));
      answer = await fx.client.callTool(run, "list", {});
    }
    expect(answer.isError, resultText(answer)).toBe(false);
  }

  /** A command's output, without the exec tool's closing `[exit code …]` line. */
  const sh = async (command: string): Promise<string> => (await ok(run, "exec", { command })).replace(/\[exit code [^\]]*\]\n?$/, "");

  it("refuses a journal its own code planted in the state folder", async () => {
    const stateDirs = (await sh("ls -d /tmp/enclave-agent-*")).trim().split("\n");
    expect(stateDirs).toHaveLength(1);
    const state = stateDirs[0] as string;
    const uid = (await sh("id -u")).trim();
    expect(await sh(`stat -c '%a %u' ${state} ${state}/journal`)).toBe(`700 ${uid}\n700 ${uid}\n`);
    await sh("echo must survive > /tmp/victim && echo pwned > /tmp/payload");
    const journals = {
      "apply-1-00000001.json": { state: "prepare", entries: [{ temp: "/tmp/victim", target: "/x" }] },
      "apply-2-00000002.json": {
        state: "commit",
        entries: [{ staged: "apply-9-0000abcd.0.staged", target: "/tmp/created", temp: ".created.enclave-0123456789ab.tmp" }],
      },
    };
    await sh(`cp /tmp/payload ${state}/journal/apply-9-0000abcd.0.staged`);
    for (const [name, body] of Object.entries(journals)) await sh(`printf '%s' '${JSON.stringify(body)}' > ${state}/journal/${name}`);
    // And one the agent could have written itself: the restarted agent finds it (the supervisor
    // gives it the same state folder) and finishes it.
    await sh(`echo staged > ${state}/journal/apply-3-0000abcd.0.staged && echo old > /workspace/fine.txt`);
    const fine = { state: "commit", entries: [{ staged: "apply-3-0000abcd.0.staged", target: "fine.txt", temp: ".fine.txt.enclave-0123456789ab.tmp" }] };
    await sh(`printf '%s' '${JSON.stringify(fine)}' > ${state}/journal/apply-3-0000abcd.json`);
    await restartAgent();
    expect(await sh("cat /tmp/victim; ls /tmp/created 2>&1 || true")).toMatch(/^must survive\n.*No such file/s);
    expect(readFileSync(join(ws, "fine.txt"), "utf8")).toBe("staged\n");
    expect(await sh(`ls -A ${state}/journal; ls -d /tmp/enclave-agent-*`)).toBe(`${state}\n`);
    const logs = (await docker.getContainer(containerId).logs({ stdout: true, stderr: true })).toString("utf8");
    // apply-1 and apply-2 refused (a temp anywhere; a target outside the workspace), apply-3 finished.
    await expectTranscript(journalReport(logs).join("\n"), "transcripts/journal-replay/enclosure-restart.txt");
  });

  it("never replays a journal written into the workspace: not in the enclosure, nor on the host afterwards", async () => {
    // Inside: paths of the enclosure's own filesystem.
    await sh("echo must survive > /tmp/victim2 && echo planted > /workspace/payload.txt");
    const inside = {
      "apply-1-x.json": { state: "prepare", entries: [{ temp: "/tmp/victim2", target: "/x" }] },
      "apply-2-y.json": { state: "commit", entries: [{ temp: "/workspace/payload.txt", target: "/tmp/created2" }] },
    };
    await sh("mkdir -p /workspace/.enclave/journal");
    for (const [name, body] of Object.entries(inside)) await sh(`printf '%s' '${JSON.stringify(body)}' > /workspace/.enclave/journal/${name}`);
    await restartAgent();
    expect(await sh("cat /tmp/victim2; ls /tmp/created2 2>&1 || true; cat /workspace/payload.txt")).toMatch(/^must survive\n.*No such file.*\nplanted\n$/s);

    // Then paths of the host, for the host agent that takes over the workspace once the enclosure stops.
    const outside = outsideDir();
    for (const [name, body] of Object.entries(plantedJournals(outside, join(ws, "payload.txt")))) {
      await sh(`printf '%s' '${body}' > /workspace/.enclave/journal/h-${name}`);
    }
    const stopped = await fx.client.stopEnclosure(conversationId);
    expect(stopped.placement).toBe("host");
    await ok(run, "list", {});
    expect(fx.cp.hostAgents.pid(conversationId)).toBeGreaterThan(0);
    expectUntouched(outside);
    expect(readFileSync(join(ws, "payload.txt"), "utf8")).toBe("planted\n");
    expect(readdirSync(join(ws, ".enclave", "journal")).sort()).toEqual(["apply-1-x.json", "apply-2-y.json", "h-apply-1-x.json", "h-apply-2-y.json"]);
  });
});
