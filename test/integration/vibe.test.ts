// The vibe roster through the real gRPC API: the built-in command host running a real worker program
// (test/fixtures/vibe-worker.mjs), and a harness-side worker host connected over ConnectWorkerHost.
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WorkerAssignment, WorkerHostCommand } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { ControlPlaneCallError, resultText } from "@enclave/client/control-plane-client.js";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { sandboxNamespace, sandboxProcesses } from "../helpers/sandbox-processes.js";
import { type Mask, expectTranscript } from "@enclave/test-kit/transcript.js";
import { until } from "../helpers/wait.js";

// Workers run in the conversation's placement (the host sandbox sees only the workspace), so the
// worker program is copied into each workspace.
const WORKER = "node .vibe-worker.mjs";
function withWorker(workspacePath: string): string {
  copyFileSync(join(repoRoot, "test", "fixtures", "vibe-worker.mjs"), join(workspacePath, ".vibe-worker.mjs"));
  return workspacePath;
}

/** Whether the sandboxed host agent of `conversationId` still runs a process with that (inner) pid. */
function makeAliveIn(conversationId: string): (pid: number) => boolean {
  const ns = sandboxNamespace(fx.cp.hostAgents.pid(conversationId) ?? 0);
  return (pid) => sandboxProcesses(ns).some((p) => p.innerPid === pid);
}
const VIBE_TOOLS = ["vibe_kill", "vibe_list", "vibe_send", "vibe_spawn", "vibe_wait"];

let fx: Fixture;
let workspace: string;

// Worker and host ids count per control plane; durations are masked by every transcript.
const MASKS: Mask[] = [
  [/\bw\d+\b/g, "w<n>"],
  [/\bh\d+\b/g, "h<n>"],
];

/** Compares a vibe tool's answer with the recorded one in transcripts/vibe/<name>.txt. */
async function transcript(text: string, name: string, extra: readonly Mask[] = []): Promise<void> {
  await expectTranscript(text, `transcripts/vibe/${name}.txt`, [...MASKS, ...extra]);
}

async function vibeRun(conversationId: string): Promise<string> {
  return (await fx.client.openRun(conversationId, { approvalPolicy: "never", resources: ["workspace", "vibe"], vibeMode: true })).id;
}

async function call(runId: string, tool: string, args: unknown): Promise<{ text: string; isError: boolean; errorCode: string; output: string }> {
  let output = "";
  const r = await fx.client.callTool(runId, tool, args, (e) => {
    if (e.event?.$case === "output") output += e.event.value.data.toString("utf8");
  });
  return { text: resultText(r), isError: r.isError, errorCode: r.errorCode, output };
}

function workerId(spawnText: string): string {
  const m = /Started worker (w\d+)/.exec(spawnText);
  if (!m?.[1]) throw new Error(`no worker id in: ${spawnText}`);
  return m[1];
}

beforeAll(async () => {
  fx = await startFixture((c) => {
    c.vibe.commands = { fast: WORKER, good: WORKER };
  });
  workspace = withWorker((await fx.client.createConversation("v1")).workspacePath);
  withWorker((await fx.client.createConversation("v2")).workspacePath);
  withWorker((await fx.client.createConversation("harness")).workspacePath);
});
afterAll(async () => fx?.close());

describe("vibe registration", () => {
  it("lists the vibe tools only while the run's vibe mode is on", async () => {
    const names = async (id: string) => (await fx.client.listTools(id)).tools.map((t) => t.name);
    const off = await fx.client.openRun("v1", { approvalPolicy: "never", resources: ["workspace", "vibe"] });
    expect((await names(off.id)).filter((n) => n.startsWith("vibe_"))).toEqual([]);
    expect((await fx.client.callTool(off.id, "vibe_list", {})).errorCode).toBe("unknown_tool");
    const on = await fx.client.setVibeMode(off.id, true);
    expect(on.vibeMode).toBe(true);
    expect((await names(off.id)).filter((n) => n.startsWith("vibe_")).sort()).toEqual(VIBE_TOOLS);
    await fx.client.setVibeMode(off.id, false);
    expect((await names(off.id)).filter((n) => n.startsWith("vibe_"))).toEqual([]);
    // Vibe mode without the vibe resource wired is not enough.
    const unwired = await fx.client.openRun("v1", { approvalPolicy: "never", resources: ["workspace"], vibeMode: true });
    expect((await names(unwired.id)).filter((n) => n.startsWith("vibe_"))).toEqual([]);
    // All five are read tools, so a plan surface sees them.
    const plan = await fx.client.openRun("v1", { approvalPolicy: "never", surface: "plan", resources: ["vibe"], vibeMode: true });
    const tools = (await fx.client.listTools(plan.id)).tools.filter((t) => t.name.startsWith("vibe_"));
    expect(tools.map((t) => t.name).sort()).toEqual(VIBE_TOOLS);
    expect(tools.every((t) => t.tier === "read")).toBe(true);
  });

  it("fails spawn clearly with no worker host", async () => {
    const bare = await startFixture((c) => {
      c.vibe.commands = { fast: "", good: "" };
    });
    try {
      await bare.client.createConversation("nohost");
      const run = await bare.client.openRun("nohost", { approvalPolicy: "never", resources: ["vibe"], vibeMode: true });
      const r = await bare.client.callTool(run.id, "vibe_spawn", { brief: "say hi", label: "greeter" });
      expect(r.isError).toBe(true);
      expect(r.errorCode).toBe("failed_precondition");
      const listed = resultText(await bare.client.callTool(run.id, "vibe_list", {}));
      await transcript(`${resultText(r)}\n---\n${listed}\n`, "no-worker-host");
    } finally {
      await bare.close();
    }
  });
});

describe("vibe with the built-in command host", () => {
  it("spawns at once, streams output while waiting, and reports the result", async () => {
    const runId = await vibeRun("v1");
    const spawned = await call(runId, "vibe_spawn", {
      brief: "sleep 1\nsay hello from the worker\nwrite made-by-worker.txt it works",
      label: "writer",
      tier: "good",
    });
    expect(spawned.isError).toBe(false);
    const id = workerId(spawned.text);
    await transcript(spawned.text, "spawned-built-in");
    // spawn returned before the worker's first step finished
    expect(existsSync(join(workspace, "made-by-worker.txt"))).toBe(false);
    const listed = await call(runId, "vibe_list", {});
    await transcript(listed.text, "list-running");
    const waited = await call(runId, "vibe_wait", { worker_id: id, timeout_seconds: 60 });
    expect(waited.isError).toBe(false);
    expect(waited.output).toContain("hello from the worker");
    await transcript(waited.text, "wait-done");
    expect(readFileSync(join(workspace, "made-by-worker.txt"), "utf8")).toBe("it works\n");
    const after = await call(runId, "vibe_list", {});
    await transcript(after.text, "list-done");
    // waiting on a settled worker answers at once
    await transcript((await call(runId, "vibe_wait", { worker_id: id })).text, "wait-settled");
  });

  it("reports a failing exit status as failed", async () => {
    const runId = await vibeRun("v1");
    const id = workerId((await call(runId, "vibe_spawn", { brief: "say trying\nfail 3", label: "doomed" })).text);
    const waited = await call(runId, "vibe_wait", { worker_id: id, timeout_seconds: 60 });
    expect(waited.isError).toBe(false);
    // The worker program's own words ("failing with 3") and its exit status.
    await transcript(waited.text, "wait-failed");
  });

  it("re-runs with the appended message on send", async () => {
    const runId = await vibeRun("v1");
    const id = workerId((await call(runId, "vibe_spawn", { brief: "say first pass", label: "iterating" })).text);
    await call(runId, "vibe_wait", { worker_id: id, timeout_seconds: 60 });
    const sent = await call(runId, "vibe_send", { worker_id: id, message: "say second pass" });
    await transcript(sent.text, "send-rerun");
    const waited = await call(runId, "vibe_wait", { worker_id: id, timeout_seconds: 60 });
    await transcript(waited.text, "wait-after-send");
    // a send while running stops the running attempt and starts again
    const slow = workerId((await call(runId, "vibe_spawn", { brief: "sleep 30\nsay never", label: "slow" })).text);
    await call(runId, "vibe_send", { worker_id: slow, message: "say changed my mind" });
    const w2 = await call(runId, "vibe_wait", { worker_id: slow, timeout_seconds: 1 });
    expect(w2.text).toContain("attempt 2");
    await call(runId, "vibe_kill", { worker_id: slow });
  });

  it("times out a wait while the worker still runs, then kills its whole process group", async () => {
    const runId = await vibeRun("v1");
    const id = workerId((await call(runId, "vibe_spawn", { brief: "pids pids.txt\nsay started\nsleep 120\nsay never", label: "sleeper" })).text);
    const pidsFile = join(workspace, "pids.txt");
    await until(() => existsSync(pidsFile) && readFileSync(pidsFile, "utf8").includes(" "), "the worker's pids");
    const [workerPid, childPid] = readFileSync(pidsFile, "utf8").split(" ").map(Number) as [number, number];
    const alive = makeAliveIn("v1");
    expect(alive(workerPid) && alive(childPid)).toBe(true);
    const waited = await call(runId, "vibe_wait", { worker_id: id, timeout_seconds: 1 });
    expect(waited.isError).toBe(false);
    // The worker program prints its child's pid.
    await transcript(waited.text, "wait-timed-out", [[/started child \d+/g, "started child <pid>"]]);
    expect(alive(workerPid)).toBe(true);
    const killed = await call(runId, "vibe_kill", { worker_id: id });
    await transcript(killed.text, "kill");
    await until(() => !alive(workerPid) && !alive(childPid), "the worker and its child to be gone");
    await transcript((await call(runId, "vibe_wait", { worker_id: id })).text, "wait-killed");
    const listed = (await call(runId, "vibe_list", {})).text;
    expect(listed.split("\n").find((l) => l.trimStart().startsWith(`${id} `))).toMatch(new RegExp(`${id}  fast  killed`));
    const again = await call(runId, "vibe_kill", { worker_id: id });
    expect(again.isError).toBe(false);
    await transcript(again.text, "kill-settled");
  });

  it("keeps workers running after the spawning run closes", async () => {
    const first = await vibeRun("v2");
    const id = workerId((await call(first, "vibe_spawn", { brief: "sleep 2\nsay outlived my run", label: "survivor" })).text);
    await fx.client.closeRun(first);
    const second = await vibeRun("v2");
    expect((await call(second, "vibe_list", {})).text).toMatch(new RegExp(`${id}  fast  running`));
    const waited = await call(second, "vibe_wait", { worker_id: id, timeout_seconds: 60 });
    await transcript(waited.text, "wait-after-run-closed");
    // a cancelled wait leaves the worker running
    const slow = workerId((await call(second, "vibe_spawn", { brief: "sleep 2\nsay still here", label: "patient" })).text);
    const abort = new AbortController();
    const cancelled = fx.cp.callTool(second, "vibe_wait", JSON.stringify({ worker_id: slow, timeout_seconds: 60 }), { signal: abort.signal });
    await new Promise((r) => setTimeout(r, 200));
    abort.abort();
    expect((await cancelled).errorCode).toBe("cancelled");
    expect((await call(second, "vibe_wait", { worker_id: slow, timeout_seconds: 60 })).text).toContain("still here");
    // the audit log has each worker's start and end
    const audit: string[] = [];
    await fx.client.subscribeAudit({ conversationId: "v2", historyOnly: true }, (e) => {
      if (e.kind.startsWith("worker_")) audit.push(`${e.kind}:${e.outcome}:${e.detail}`);
    }).done;
    expect(audit).toEqual([
      `worker_started:running:${id} "survivor" (fast, attempt 1, host built-in command)`,
      `worker_settled:done:${id} "survivor" (fast, attempt 1, host built-in command)`,
      `worker_started:running:${slow} "patient" (fast, attempt 1, host built-in command)`,
      `worker_settled:done:${slow} "patient" (fast, attempt 1, host built-in command)`,
    ]);
    // workers are per conversation
    const other = await vibeRun("v1");
    const missing = await call(other, "vibe_wait", { worker_id: "w99" });
    expect(missing.errorCode).toBe("not_found");
    await transcript(`${missing.isError ? "error" : "ok"} ${missing.errorCode}: ${missing.text}\n`, "wait-unknown-worker");
  });

  it("kills a conversation's workers when the conversation is deleted", async () => {
    const conv = await fx.client.createConversation("doomed");
    withWorker(conv.workspacePath);
    const runId = await vibeRun("doomed");
    await call(runId, "vibe_spawn", { brief: "pids pids.txt\nsleep 120", label: "doomed" });
    const pidsFile = join(conv.workspacePath, "pids.txt");
    await until(() => existsSync(pidsFile) && readFileSync(pidsFile, "utf8").includes(" "), "the worker's pids");
    const pids = readFileSync(pidsFile, "utf8").split(" ").map(Number);
    const alive = makeAliveIn("doomed");
    expect(pids.every((p) => alive(p))).toBe(true);
    await fx.client.deleteConversation("doomed");
    await until(() => pids.every((p) => !alive(p)), "the worker to be gone");
  });

  it("validates arguments", async () => {
    const runId = await vibeRun("v1");
    const bad = await call(runId, "vibe_spawn", { brief: "x", label: "y", tier: "best" });
    expect(bad.errorCode).toBe("invalid_arguments");
    await transcript(bad.text, "spawn-bad-tier");
    expect((await call(runId, "vibe_spawn", { label: "no brief" })).errorCode).toBe("invalid_arguments");
  });
});

describe("vibe with a harness-side worker host over gRPC", () => {
  it("assigns, streams progress, re-runs, kills and reports results", async () => {
    const commands: WorkerHostCommand[] = [];
    const host = fx.client.connectWorkerHost({ name: "test harness", conversationIds: ["harness"] }, (c) => commands.push(c));
    expect(await host.ready).toMatch(/^h\d+$/);
    try {
      const runId = await vibeRun("harness");
      const spawned = await call(runId, "vibe_spawn", { brief: "refactor the parser", label: "parser", tier: "good" });
      await transcript(spawned.text, "harness-spawned");
      const id = workerId(spawned.text);
      const assign = await until(() => commands.find((c) => c.command?.$case === "assign"), "the assignment");
      const a = (assign.command as { value: WorkerAssignment }).value;
      expect(a).toMatchObject({
        conversationId: "harness",
        workerId: id,
        attempt: 1,
        label: "parser",
        tier: "good",
        brief: "refactor the parser",
        messages: [],
      });
      expect(a.workspacePath).toBe((await fx.client.getConversation("harness")).workspacePath);

      const waiting = call(runId, "vibe_wait", { worker_id: id, timeout_seconds: 60 });
      await new Promise((r) => setTimeout(r, 200));
      host.send({ message: { $case: "progress", value: { conversationId: "harness", workerId: id, attempt: 1, text: "reading parser.ts\n" } } });
      host.send({
        message: { $case: "result", value: { conversationId: "harness", workerId: id, attempt: 1, state: "done", result: "split parse() in three" } },
      });
      const waited = await waiting;
      expect(waited.output).toContain("reading parser.ts");
      await transcript(waited.text, "harness-wait-done");

      await call(runId, "vibe_send", { worker_id: id, message: "keep the public API" });
      const reassign = await until(() => commands.find((c) => c.command?.$case === "assign" && c.command.value.attempt === 2), "the second assignment");
      expect((reassign.command as { value: WorkerAssignment }).value.messages).toEqual(["keep the public API"]);
      // a report for the superseded attempt is ignored
      host.send({ message: { $case: "result", value: { conversationId: "harness", workerId: id, attempt: 1, state: "failed", result: "stale" } } });
      await new Promise((r) => setTimeout(r, 200));
      expect((await call(runId, "vibe_list", {})).text).toMatch(new RegExp(`${id}  good  running`));

      await call(runId, "vibe_kill", { worker_id: id });
      const kill = await until(() => commands.find((c) => c.command?.$case === "kill" && c.command.value.attempt === 2), "the kill");
      expect(kill.command?.$case === "kill" && kill.command.value.workerId).toBe(id);
      await transcript((await call(runId, "vibe_wait", { worker_id: id })).text, "harness-wait-killed");

      // a worker whose host disconnects fails with a clear reason
      const lost = workerId((await call(runId, "vibe_spawn", { brief: "long job", label: "orphan" })).text);
      await until(() => commands.find((c) => c.command?.$case === "assign" && c.command.value.workerId === lost), "the orphan's assignment");
      host.close();
      const waitedLost = await call(runId, "vibe_wait", { worker_id: lost, timeout_seconds: 60 });
      await transcript(waitedLost.text, "harness-host-lost");
    } finally {
      host.close();
    }
  });

  it("waits without timeout_seconds until the worker settles, and stops waiting when the call is cancelled", async () => {
    const commands: WorkerHostCommand[] = [];
    const host = fx.client.connectWorkerHost({ name: "patient harness", conversationIds: ["harness"] }, (c) => commands.push(c));
    await host.ready;
    try {
      const runId = await vibeRun("harness");
      const id = workerId((await call(runId, "vibe_spawn", { brief: "a job of unknown length", label: "open-ended", tier: "good" })).text);
      await until(() => commands.find((c) => c.command?.$case === "assign" && c.command.value.workerId === id), "the assignment");
      const abort = new AbortController();
      const cancelled = fx.client.callTool(runId, "vibe_wait", { worker_id: id }, undefined, { signal: abort.signal }).then(
        () => "answered",
        (e: Error) => e.message,
      );
      await new Promise((r) => setTimeout(r, 200));
      abort.abort();
      expect(await cancelled).toMatch(/cancel/i);
      const waiting = call(runId, "vibe_wait", { worker_id: id });
      await new Promise((r) => setTimeout(r, 200));
      host.send({ message: { $case: "result", value: { conversationId: "harness", workerId: id, attempt: 1, state: "done", result: "all done" } } });
      const waited = await waiting;
      await transcript(waited.text, "harness-wait-without-timeout");
    } finally {
      host.close();
    }
  });

  it("refuses a host with a bad hello", async () => {
    const stream = fx.client.connectWorkerHost({ name: "bad", tiers: ["turbo"] }, () => undefined);
    const err = await stream.ready.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ControlPlaneCallError);
    const refused = err as ControlPlaneCallError;
    expect(refused.code).toBe("invalid_arguments");
    await transcript(`${refused.code ?? "no code"}: ${refused.message}\n`, "bad-hello");
  });
});
