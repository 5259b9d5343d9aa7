// vibe_wait without timeout_seconds waits until the worker settles, however long that takes, and
// ends when the call is cancelled; with one, it returns at the timeout and the worker keeps running.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { WorkerHostCommand } from "@enclave/proto/gen/enclave/control/v1/control.js";
import type { Run } from "../../model/run.js";
import type { ToolContext, ToolOutput } from "../tool.js";
import { RemoteWorkerHost } from "../../vibe/remote-worker-host.js";
import { vibeWaitTool } from "./vibe-wait.js";
import { VibeRoster } from "../../vibe/vibe-roster.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";

const run = { id: "r-1", conversationId: "c1" } as Run;

function context(signal: AbortSignal): ToolContext {
  return {
    run,
    origin: "model",
    signal,
    emit: () => undefined,
    dispatch: () => Promise.reject(new Error("no nested calls here")),
    agent: () => Promise.reject(new Error("no agent here")),
    callable: () => [],
  };
}

let roster: VibeRoster;
let host: RemoteWorkerHost;

beforeEach(() => {
  vi.useFakeTimers();
  roster = new VibeRoster(undefined);
  host = new RemoteWorkerHost("test host", [], [], (_c: WorkerHostCommand) => undefined);
  roster.addHost(host);
});
afterEach(() => vi.useRealTimers());

function waitFor(args: Record<string, unknown>, signal = new AbortController().signal): { result: Promise<ToolOutput>; settled: () => boolean } {
  let settled = false;
  const tool = vibeWaitTool(roster);
  const checked = tool.validate(args);
  if (!checked.ok) throw new Error(checked.error);
  const result = tool.invoke(checked.args, context(signal));
  result.then(
    () => (settled = true),
    () => (settled = true),
  );
  return { result, settled: () => settled };
}

const text = (o: ToolOutput): string => o.parts.map((p) => (p.type === "text" ? p.text : "")).join("");

describe("vibe_wait", () => {
  it("without timeout_seconds waits until the worker settles, past any default", async () => {
    const w = roster.spawn("c1", "/ws", { brief: "a long job", label: "long", tier: "good" });
    const waiting = waitFor({ worker_id: w.id });
    await vi.advanceTimersByTimeAsync(3 * 60 * 60 * 1000);
    expect(waiting.settled()).toBe(false);
    host.result({ conversationId: "c1", workerId: w.id, attempt: 1, state: "done", result: "finished" });
    await expectTranscript(text(await waiting.result), "transcripts/vibe-wait/settled.txt");
  });

  it("without timeout_seconds ends when the call is cancelled, and the worker keeps running", async () => {
    const w = roster.spawn("c1", "/ws", { brief: "a long job", label: "long", tier: "good" });
    const abort = new AbortController();
    const waiting = waitFor({ worker_id: w.id }, abort.signal);
    await vi.advanceTimersByTimeAsync(60 * 60 * 1000);
    abort.abort();
    await expect(waiting.result).rejects.toMatchObject({ code: "cancelled" });
    expect(w.state).toBe("running");
  });

  it("with timeout_seconds returns at the timeout, the worker still running", async () => {
    const w = roster.spawn("c1", "/ws", { brief: "a long job", label: "long", tier: "good" });
    const waiting = waitFor({ worker_id: w.id, timeout_seconds: 5 });
    await vi.advanceTimersByTimeAsync(5_000);
    await expectTranscript(text(await waiting.result), "transcripts/vibe-wait/timed-out.txt");
    expect(w.state).toBe("running");
  });
});
