// Host placement through the real gRPC API and a real host agent process.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import type { ToolResult } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { endingText } from "../helpers/result-parts.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";
import { LIMITS } from "@enclave/control-plane/limits.js";
import { until } from "../helpers/wait.js";

/** A failed call as a transcript: its code, then what it says. */
const answer = (r: ToolResult): string => `${r.errorCode}\n${resultText(r)}`;

let fx: Fixture;
let runId: string;
let workspace: string;

beforeAll(async () => {
  fx = await startFixture();
  const conv = await fx.client.createConversation("host1");
  workspace = conv.workspacePath;
  runId = (await fx.client.openRun("host1", { approvalPolicy: "never", resources: ["workspace", "shell"] })).id;
});
afterAll(async () => fx?.close());

describe("host placement", () => {
  it("lists the run's tools with tiers and schemas", async () => {
    const { tools } = await fx.client.listTools(runId);
    expect(tools.map((t) => t.name).sort()).toEqual(["apply_patch", "edit", "exec", "list", "read", "write"]);
    const write = tools.find((t) => t.name === "write");
    expect(write?.tier).toBe("write");
    expect(JSON.parse(write?.inputSchemaJson ?? "{}").required).toEqual(["path", "content"]);
  });

  it("writes a file through the agent and reads it back, on the host too", async () => {
    const w = await fx.client.callTool(runId, "write", { path: "dir/hello.txt", content: "héllo\n" });
    expect(w.isError).toBe(false);
    expect(readFileSync(join(workspace, "dir/hello.txt"), "utf8")).toBe("héllo\n");
    const r = await fx.client.callTool(runId, "read", { path: "dir/hello.txt" });
    expect(resultText(r)).toBe("héllo\n");
    const conv = await fx.client.getConversation("host1");
    expect(conv.placement).toBe("host");
  });

  it("edits and patches all-or-nothing", async () => {
    await fx.client.callTool(runId, "write", { path: "a.txt", content: "one\ntwo\nthree\n" });
    const e = await fx.client.callTool(runId, "edit", { path: "a.txt", old_text: "two", new_text: "TWO" });
    expect(e.isError).toBe(false);
    const bad = await fx.client.callTool(runId, "apply_patch", {
      patch: "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-TWO\n+2\n three\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-missing\n+x\n",
    });
    expect(bad.isError).toBe(true);
    expect(bad.errorCode).toBe("not_found");
    expect(resultText(bad)).toContain("b.txt");
    await expectTranscript(answer(bad), "transcripts/host-placement/patch-missing-file.txt");
    expect(readFileSync(join(workspace, "a.txt"), "utf8")).toBe("one\nTWO\nthree\n");
    const good = await fx.client.callTool(runId, "apply_patch", { patch: "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n one\n-TWO\n+2\n three\n" });
    expect(good.isError).toBe(false);
    expect(readFileSync(join(workspace, "a.txt"), "utf8")).toBe("one\n2\nthree\n");
  });

  it("applies git's renames: the old file goes, the new one has the changed content, all at once", async () => {
    await fx.client.callTool(runId, "write", { path: "ren/old.txt", content: "one\ntwo\nthree\n" });
    await fx.client.callTool(runId, "write", { path: "ren/taken.txt", content: "here\n" });
    const patch = (to: string): string =>
      `diff --git a/ren/old.txt b/${to}\nsimilarity index 80%\nrename from ren/old.txt\nrename to ${to}\n--- a/ren/old.txt\n+++ b/${to}\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n`;
    const refused = await fx.client.callTool(runId, "apply_patch", { patch: patch("ren/taken.txt") });
    expect(refused.errorCode).toBe("already_exists");
    await expectTranscript(answer(refused), "transcripts/host-placement/rename-onto-existing.txt");
    const r = await fx.client.callTool(runId, "apply_patch", { patch: patch("ren/new.txt") });
    expect(r.isError, resultText(r)).toBe(false);
    expect(existsSync(join(workspace, "ren/old.txt"))).toBe(false);
    expect(readFileSync(join(workspace, "ren/new.txt"), "utf8")).toBe("one\n2\nthree\n");
    expect(readFileSync(join(workspace, "ren/taken.txt"), "utf8")).toBe("here\n");
  });

  it("runs exec with streamed output and exit status", async () => {
    const chunks: string[] = [];
    const r = await fx.client.callTool(runId, "exec", { command: "echo out; echo err >&2; exit 3" }, (e) => {
      if (e.event?.$case === "output") chunks.push(e.event.value.data.toString());
    });
    expect(chunks.join("")).toContain("out");
    await expectTranscript(endingText(r), "transcripts/host-placement/exec-exit-3.txt");
  });

  it("bounds the sandbox's private /tmp and home by the limits table: writing past them fails with ENOSPC", async () => {
    // dd stops at the first failed write: its exit status and message say whether the bound held.
    const fill = (dir: string, bytes: number): string =>
      `dd if=/dev/zero of=${dir}/enclave-fill bs=1M count=${bytes / 1024 ** 2 + 8} 2>&1; rm -f ${dir}/enclave-fill; df -B1 --output=size ${dir} | tail -1`;
    for (const [dir, bytes] of [
      ["/tmp", LIMITS.sandboxTmpBytes],
      ["$HOME", LIMITS.sandboxHomeBytes],
    ] as const) {
      const r = await fx.client.callTool(runId, "exec", { command: fill(dir, bytes), timeout_seconds: 60 });
      expect(r.isError, resultText(r)).toBe(false);
      expect(resultText(r)).toContain("No space left on device");
      expect(resultText(r)).toContain(String(bytes));
    }
  });

  it("refuses paths outside the workspace: .., absolute, symlink escape", async () => {
    symlinkSync("/etc", join(workspace, "etc-link"));
    for (const path of ["../outside.txt", "/etc/passwd", "etc-link/passwd"]) {
      const r = await fx.client.callTool(runId, "read", { path });
      expect(r.isError, path).toBe(true);
      expect(r.errorCode).toBe("outside_workspace");
    }
    const w = await fx.client.callTool(runId, "write", { path: "etc-link/evil", content: "x" });
    expect(w.errorCode).toBe("outside_workspace");
  });

  it("names the field in schema errors", async () => {
    const r = await fx.client.callTool(runId, "write", { path: 42 });
    expect(r.errorCode).toBe("invalid_arguments");
    // Both fields named, recorded whole.
    await expectTranscript(answer(r), "transcripts/host-placement/schema-errors.txt");
    const bad = await fx.client.callTool(runId, "read", "{not json");
    expect(bad.errorCode).toBe("invalid_arguments");
    // (What follows the colon is JSON.parse's own words, which vary with Node's version.)
    await expectTranscript(answer(bad), "transcripts/host-placement/not-json.txt", [[/(not valid JSON): .*/g, "$1: <the parser's words>"]]);
  });

  it("plan surface lists only read tools and refuses others as unknown", async () => {
    const plan = await fx.client.openRun("host1", { approvalPolicy: "never", surface: "plan", resources: ["workspace", "shell"] });
    const { tools } = await fx.client.listTools(plan.id);
    expect(tools.every((t) => t.tier === "read")).toBe(true);
    expect(tools.map((t) => t.name).sort()).toEqual(["list", "read"]);
    const r = await fx.client.callTool(plan.id, "write", { path: "x", content: "y" });
    expect(r.errorCode).toBe("unknown_tool");
  });

  it("fails closed when the approval policy needs an approver and none is connected", async () => {
    const gated = await fx.client.openRun("host1", { approvalPolicy: "write" });
    const r = await fx.client.callTool(gated.id, "write", { path: "gated.txt", content: "y" });
    expect(r.errorCode).toBe("approval_refused");
    expect((await fx.client.callTool(gated.id, "read", { path: "a.txt" })).isError).toBe(false);
  });

  it("killing the agent mid-call gives a clear error and the next call works", async () => {
    const pending = fx.client.callTool(runId, "exec", { command: "sleep 30" });
    await new Promise((r) => setTimeout(r, 500));
    const pid = fx.cp.hostAgents.pid("host1");
    expect(pid).toBeGreaterThan(0);
    process.kill(pid as number, "SIGKILL");
    const r = await pending;
    expect(r.isError).toBe(true);
    expect(r.errorCode).toBe("agent_lost");
    await expectTranscript(resultText(r), "transcripts/host-placement/agent-killed.txt", [
      [/\bpid \d+/g, "pid <n>"],
      // How gRPC words a connection the killed agent dropped varies with the moment it dies.
      [/ \((?:Connection dropped|[^)]*ECONNRESET[^)]*|[^)]*Stream removed[^)]*|Received RST_STREAM[^()]*\([^)]*\))\)/g, " (<transport>)"],
    ]);
    const again = await fx.client.callTool(runId, "read", { path: "a.txt" });
    expect(again.isError).toBe(false);
    expect(fx.cp.hostAgents.pid("host1")).not.toBe(pid);
  });

  describe("what a command leaves running", () => {
    // A unique argument finds the process among the host's (the sandbox's are visible here).
    const running = (marker: string): boolean => {
      try {
        execFileSync("pgrep", ["-f", `sleep ${marker}`]);
        return true;
      } catch {
        return false;
      }
    };
    /** What is still there, for a failure message. */
    const left = (marker: string): string =>
      execFileSync("ps", ["-eo", "pid,ppid,pgid,sid,stat,cmd"], { encoding: "utf8" })
        .split("\n")
        .filter((l) => l.includes(marker))
        .join("\n");

    it("a command that exits answers at once, and what it left in the background goes with it", async () => {
      const marker = `771.${process.pid}`;
      const r = await fx.client.callTool(runId, "exec", { command: `sleep ${marker} & echo started`, timeout_seconds: 60 });
      expect(r.isError, resultText(r)).toBe(false);
      expect(resultText(r)).toContain("started");
      await expectTranscript(endingText(r), "transcripts/host-placement/exec-exit-0.txt");
      await until(() => !running(marker), "the background sleep to be killed", 20_000);
    });

    it("a process in a session of its own that still holds the output is found by it and killed", async () => {
      const marker = `772.${process.pid}`;
      const r = await fx.client.callTool(runId, "exec", { command: `setsid sleep ${marker} & sleep 0.3; echo started`, timeout_seconds: 60 });
      expect(r.isError, resultText(r)).toBe(false);
      await expectTranscript(endingText(r), "transcripts/host-placement/exec-exit-0.txt");
      await until(() => !running(marker), "the escaped sleep to be killed", 20_000).catch((err: Error) => {
        throw new Error(`${err.message}; still there:\n${left(marker)}`);
      });
    });

    it("a process that detaches on purpose a moment after the command ends keeps running", async () => {
      // Still in the command's group when the call ends: ending the call normally must not count as
      // the caller going away (which kills the whole tree at once).
      const marker = `774.${process.pid}`;
      try {
        const r = await fx.client.callTool(runId, "exec", {
          command: `(sleep 0.5; setsid -f sleep ${marker}) >/dev/null 2>&1 & echo started`,
          timeout_seconds: 60,
        });
        expect(resultText(r)).toContain("started");
        await until(() => running(marker), "the detached sleep to start", 20_000);
      } finally {
        try {
          execFileSync("pkill", ["-f", `sleep ${marker}`]);
        } catch {
          // nothing left to stop
        }
      }
    });

    it("a timed-out command's whole tree dies, even a process in a session of its own that ignores SIGTERM", async () => {
      const marker = `773.${process.pid}`;
      const r = await fx.client.callTool(runId, "exec", { command: `setsid sh -c 'trap "" TERM; exec sleep ${marker}' & sleep 60`, timeout_seconds: 2 });
      await expectTranscript(endingText(r), "transcripts/host-placement/exec-timed-out.txt");
      await until(() => !running(marker), "the escaped sleep to be killed", 20_000);
    });
  });

  it("records calls in the audit log", async () => {
    const events: string[] = [];
    const sub = fx.client.subscribeAudit({ conversationId: "host1", historyOnly: true }, (e) => events.push(`${e.kind}:${e.tool}:${e.outcome}`));
    await sub.done;
    expect(events).toContain("tool_call:write:ok");
    expect(events.some((e) => e.startsWith("tool_call:write:refused:approval_refused"))).toBe(true);
  });

  it("never starts an enclosure on its own", async () => {
    writeFileSync(join(workspace, "z.txt"), "z");
    await fx.client.callTool(runId, "read", { path: "z.txt" });
    const conv = await fx.client.getConversation("host1");
    expect(conv.enclosure).toBeUndefined();
    expect(fx.cp.audit.history("host1").some((e) => e.kind === "enclosure_started")).toBe(false);
  });
});
