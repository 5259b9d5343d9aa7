// Built-in vibe workers run where the conversation's code runs, never as the control plane's user on
// the host: through the host agent on host placement, inside the container as the enclosure's user
// when there is one. The worker is a plain shell line (so it runs unchanged in the image) that writes
// who and where it is, and echoes its brief; the brief carries shell syntax that must stay inert.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuditEvent } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { resultText } from "@enclave/client/control-plane-client.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { sandboxNamespace, sandboxProcesses } from "../helpers/sandbox-processes.js";
import { type Mask, expectTranscript } from "@enclave/test-kit/transcript.js";
import { until } from "../helpers/wait.js";

// The brief comes on stdin. "linger" keeps the worker (and a child in its process group) running.
const WORKER = [
  "brief=$(cat)",
  'echo "$(id -u) $(hostname) $$ $ENCLAVE_WORKSPACE $(pwd)" > vibe-who.txt',
  "printf '%s' \"$brief\" > vibe-brief.txt",
  'case "$brief" in linger*) sleep 300 & echo $! > vibe-child.txt; echo ready > vibe-ready.txt; wait;; esac',
  'echo "done by $(id -u) on $(hostname)"',
].join("; ");

// Shell syntax in the brief: any of it interpreted would create a pwned-* file.
const HOSTILE = "$(touch pwned-subst) `touch pwned-tick`; touch pwned-semi && touch pwned-and | touch pwned-pipe";

const docker = new Docker();
let fx: Fixture;

async function vibeRun(conversationId: string): Promise<string> {
  return (await fx.client.openRun(conversationId, { approvalPolicy: "never", resources: ["workspace", "vibe", "shell"], vibeMode: true })).id;
}

async function call(runId: string, tool: string, args: unknown): Promise<string> {
  const r = await fx.client.callTool(runId, tool, args);
  expect(r.isError, resultText(r)).toBe(false);
  return resultText(r);
}

async function spawn(runId: string, brief: string): Promise<string> {
  const m = /Started worker (w\d+)/.exec(await call(runId, "vibe_spawn", { brief, label: "whoami" }));
  if (!m?.[1]) throw new Error("no worker id");
  return m[1];
}

/** uid, hostname, pid, $ENCLAVE_WORKSPACE, working folder, as the worker wrote them. */
function who(text: string): { uid: string; host: string; pid: number; env: string; cwd: string } {
  const [uid = "", host = "", pid = "", env = "", cwd = ""] = text.trim().split(" ");
  return { uid, host, pid: Number(pid), env, cwd };
}

/** Whether the conversation's host sandbox still runs a process with that (sandbox) pid. */
function inSandbox(f: Fixture, conversationId: string): (pid: number) => boolean {
  const ns = sandboxNamespace(f.cp.hostAgents.pid(conversationId) ?? 0);
  return (pid) => sandboxProcesses(ns).some((p) => p.innerPid === pid);
}

function uidOf(pid: number): string {
  return /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? "?";
}

/** The worker's own words name its uid and host, which differ per run and machine. */
function whoMasks(uid: string, host: string): Mask[] {
  return [[new RegExp(`done by ${uid} on ${host.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`, "g"), "done by <uid> on <host>"]];
}

async function settledPlacement(conversationId: string, workerId: string): Promise<string> {
  const events: AuditEvent[] = [];
  await fx.client.subscribeAudit({ conversationId, historyOnly: true }, (e) => {
    if (e.kind === "worker_settled" && e.detail.startsWith(`${workerId} `)) events.push(e);
  }).done;
  return events.at(-1)?.placement ?? "";
}

beforeAll(async () => {
  fx = await startFixture((c) => {
    c.vibe.commands = { fast: WORKER, good: WORKER };
  });
});
afterAll(async () => fx?.close());

describe("built-in vibe workers on host placement", () => {
  it("run through the conversation's host agent, get the brief only on stdin, and are killed there", async () => {
    const ws = (await fx.client.createConversation("vibe-host")).workspacePath;
    const runId = await vibeRun("vibe-host");
    // The host agent is up before the worker starts, so what is checked is only where the worker runs.
    await call(runId, "exec", { command: "true" });
    const id = await spawn(runId, `linger\n${HOSTILE}`);
    await until(() => existsSync(join(ws, "vibe-ready.txt")), "the worker to start", 60_000);
    const me = who(readFileSync(join(ws, "vibe-who.txt"), "utf8"));
    const agentPid = fx.cp.hostAgents.pid("vibe-host");
    expect(agentPid).toBeDefined();
    // Inside the conversation's sandbox (its pid namespace), as the sandbox's unprivileged account.
    const sandbox = sandboxProcesses(sandboxNamespace(agentPid as number));
    const worker = sandbox.find((p) => p.innerPid === me.pid);
    expect(worker, "the worker runs in the host agent's sandbox").toBeDefined();
    expect(me.uid).not.toBe("0");
    expect(me.uid).toBe(uidOf(worker?.hostPid ?? 0));
    expect(me.cwd).toBe("/workspace");
    const alive = inSandbox(fx, "vibe-host");
    expect(me.env).toBe(me.cwd);
    expect(readFileSync(join(ws, "vibe-brief.txt"), "utf8")).toBe(`linger\n${HOSTILE}`);
    for (const f of ["pwned-subst", "pwned-tick", "pwned-semi", "pwned-and", "pwned-pipe"]) expect(existsSync(join(ws, f))).toBe(false);

    // vibe_kill reaches the worker's whole process group (its lingering child too).
    const child = Number(readFileSync(join(ws, "vibe-child.txt"), "utf8"));
    expect(alive(me.pid) && alive(child)).toBe(true);
    expect(await call(runId, "vibe_kill", { worker_id: id })).toBe(`Killed ${id} "whoami".`);
    await until(() => !alive(me.pid) && !alive(child), "the worker and its child to be gone");

    // A worker that finishes reports stdout, and the audit log says where it ran.
    const done = await spawn(runId, "finish");
    const waited = await call(runId, "vibe_wait", { worker_id: done, timeout_seconds: 60 });
    expect(waited).toContain(`done by ${me.uid}`);
    await expectTranscript(waited, "transcripts/vibe-placement/host-worker-done.txt", whoMasks(me.uid, me.host));
    expect(await settledPlacement("vibe-host", done)).toMatch(new RegExp(`^host placement, pid ${agentPid}\\b`));
  });
});

describe("built-in vibe workers that run over their time", () => {
  it("are killed in their placement, process group and all, and reported failed", async () => {
    const short = await startFixture((c) => {
      c.vibe.commands = { fast: WORKER, good: WORKER };
      c.vibe.workerTimeoutMs = 2_000;
    });
    try {
      const ws = (await short.client.createConversation("vibe-overrun")).workspacePath;
      const runId = (await short.client.openRun("vibe-overrun", { approvalPolicy: "never", resources: ["vibe"], vibeMode: true })).id;
      const spawned = resultText(await short.client.callTool(runId, "vibe_spawn", { brief: "linger", label: "overrun" }));
      const id = /Started worker (w\d+)/.exec(spawned)?.[1] ?? "";
      await until(() => existsSync(join(ws, "vibe-ready.txt")), "the worker to start", 60_000);
      const me = who(readFileSync(join(ws, "vibe-who.txt"), "utf8"));
      const child = Number(readFileSync(join(ws, "vibe-child.txt"), "utf8"));
      const alive = inSandbox(short, "vibe-overrun");
      expect(alive(me.pid) && alive(child)).toBe(true);
      const waited = resultText(await short.client.callTool(runId, "vibe_wait", { worker_id: id, timeout_seconds: 60 }));
      // Failed, and why: it ran over its time (recorded whole).
      await expectTranscript(waited, "transcripts/vibe-placement/overrun-killed.txt", whoMasks(me.uid, me.host));
      await until(() => !alive(me.pid) && !alive(child), "the worker and its child to be gone");
    } finally {
      await short.close();
    }
  });
});

describe("built-in vibe workers across a placement change", () => {
  it("end when an enclosure takes over: no host worker keeps writing to the workspace", async () => {
    const ws = (await fx.client.createConversation("vibe-switch")).workspacePath;
    const runId = await vibeRun("vibe-switch");
    const id = await spawn(runId, "linger");
    await until(() => existsSync(join(ws, "vibe-ready.txt")), "the worker to start", 60_000);
    const me = who(readFileSync(join(ws, "vibe-who.txt"), "utf8"));
    const child = Number(readFileSync(join(ws, "vibe-child.txt"), "utf8"));
    const alive = inSandbox(fx, "vibe-switch");
    expect(alive(me.pid) && alive(child)).toBe(true);
    const switched = await fx.client.startEnclosure("vibe-switch");
    const uid = (await docker.getContainer(switched.enclosure?.containerId ?? "").inspect()).Config.User?.split(":")[0] ?? "";
    const waited = await call(runId, "vibe_wait", { worker_id: id, timeout_seconds: 60 });
    // Failed, and why: its placement (the host agent) lost it when the enclosure took over.
    await expectTranscript(waited, "transcripts/vibe-placement/placement-changed.txt", [
      ...whoMasks(me.uid, me.host),
      [/\bpid \d+/g, "pid <n>"],
      // The transport's own words (gRPC's detail) vary with how the connection broke.
      [/ \((?:Connection dropped|[^)]*ECONNRESET[^)]*|[^)]*Stream removed[^)]*)\)/g, " (<transport>)"],
    ]);
    await until(() => !alive(me.pid) && !alive(child), "the host worker and its child to be gone");
    // The next worker runs inside.
    const next = await spawn(runId, "finish");
    expect(await call(runId, "vibe_wait", { worker_id: next, timeout_seconds: 60 })).toContain(`done by ${uid} `);
  });
});

describe("built-in vibe workers in an enclosure", () => {
  it("run inside the container as the enclosure's user, in its /workspace", async () => {
    const ws = (await fx.client.createConversation("vibe-enc")).workspacePath;
    const conv = await fx.client.startEnclosure("vibe-enc");
    const info = await docker.getContainer(conv.enclosure?.containerId ?? "").inspect();
    const hostname = info.Config.Hostname;
    // The enclosure's own uid (uid:gid the same number).
    const uid = info.Config.User?.split(":")[0] ?? "";
    const runId = await vibeRun("vibe-enc");
    const id = await spawn(runId, `finish\n${HOSTILE}`);
    const waited = await call(runId, "vibe_wait", { worker_id: id, timeout_seconds: 60 });
    expect(waited).toContain(`done by ${uid} on ${hostname}`);
    await expectTranscript(waited, "transcripts/vibe-placement/enclosure-worker-done.txt", whoMasks(uid, hostname));
    // Bind mode: what it wrote in /workspace is the host folder.
    const me = who(readFileSync(join(ws, "vibe-who.txt"), "utf8"));
    expect(me).toMatchObject({ uid, host: hostname, env: "/workspace", cwd: "/workspace" });
    expect(readFileSync(join(ws, "vibe-brief.txt"), "utf8")).toBe(`finish\n${HOSTILE}`);
    for (const f of ["pwned-subst", "pwned-tick", "pwned-semi", "pwned-and", "pwned-pipe"]) expect(existsSync(join(ws, f))).toBe(false);
    await expectTranscript(await settledPlacement("vibe-enc", id), "transcripts/vibe-placement/enclosure-settled-placement.txt", [
      [/\b[0-9a-f]{12}\b/g, "<container>"],
    ]);

    // vibe_kill reaches the worker's process group inside the container.
    const lingering = await spawn(runId, "linger");
    await until(() => existsSync(join(ws, "vibe-ready.txt")), "the lingering worker to start", 60_000);
    const inside = who(readFileSync(join(ws, "vibe-who.txt"), "utf8"));
    const child = Number(readFileSync(join(ws, "vibe-child.txt"), "utf8"));
    const probe = `for p in ${inside.pid} ${child}; do kill -0 $p 2>/dev/null && echo alive-$p; done; echo checked`;
    expect(await call(runId, "exec", { command: probe })).toContain(`alive-${child}`);
    await call(runId, "vibe_kill", { worker_id: lingering });
    let left = "";
    for (let i = 0; i < 50; i++) {
      left = await call(runId, "exec", { command: probe });
      if (!left.includes("alive-")) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(left).not.toContain("alive-");
  });

  it("in copy mode write inside the enclosure, and that comes back to the host when it stops", async () => {
    const ws = (await fx.client.createConversation("vibe-copy")).workspacePath;
    const started = await fx.client.startEnclosure("vibe-copy", { workspaceMode: "copy" });
    const uid = (await docker.getContainer(started.enclosure?.containerId ?? "").inspect()).Config.User?.split(":")[0] ?? "";
    const runId = await vibeRun("vibe-copy");
    const id = await spawn(runId, "finish");
    const waited = await call(runId, "vibe_wait", { worker_id: id, timeout_seconds: 60 });
    expect(waited).toContain(`done by ${uid} `);
    await expectTranscript(waited, "transcripts/vibe-placement/copy-mode-worker-done.txt", [
      [new RegExp(`done by ${uid} on \\S+`, "g"), "done by <uid> on <host>"],
    ]);
    // Nothing was written to the host folder while the enclosure owns the workspace.
    expect(existsSync(join(ws, "vibe-who.txt"))).toBe(false);
    expect(who(await call(runId, "read", { path: "vibe-who.txt" }))).toMatchObject({ uid, cwd: "/workspace" });
    await fx.client.stopEnclosure("vibe-copy");
    expect(who(readFileSync(join(ws, "vibe-who.txt"), "utf8")).uid).toBe(uid);
  });
});
