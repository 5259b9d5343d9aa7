// The command line keeps a run across calls: the real `enclave` CLI against a real control plane
// (host placement, real tree-sitter). A change `tool call ast_edit` stages is applied by the next
// invocation's `tool call resolve`; `runs list` shows the kept run and its staged change; --new-run,
// --run, surfaces, `runs close` and the idle timeout each do what they say. Runs that set no approval
// policy get `write`, and `tool call` asks on the terminal about its own permission cards.
import { execFile, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Card, CardEvent } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";
import { resultText } from "@enclave/client/control-plane-client.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { type Mask, expectTranscript } from "@enclave/test-kit/transcript.js";
import { eventually, until } from "../helpers/wait.js";

const exec = promisify(execFile);
const cli = join(repoRoot, "bin", "enclave");

interface Out {
  stdout: string;
  stderr: string;
  code: number;
}

let fx: Fixture;

async function enclave(f: Fixture, args: string[]): Promise<Out> {
  try {
    const r = await exec(cli, [...args, "--address", f.client.address], { timeout: 120_000 });
    return { ...r, code: 0 };
  } catch (err) {
    const e = err as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}

/**
 * Runs the CLI with a terminal-like stdin: waits for each prompt on stderr, then types `answer`
 * (closes stdin when null; calls it, typing nothing, when a function).
 */
function enclaveAnswering(f: Fixture, args: string[], answer: string | null | (() => void)): Promise<Out & { prompts: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cli, [...args, "--address", f.client.address], { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let prompts = 0;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the CLI did not finish; stderr so far:\n${stderr}`));
    }, 120_000);
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
      const seen = stderr.split("allow? [y/N]").length - 1;
      while (prompts < seen) {
        prompts++;
        if (answer === null) child.stdin.end();
        else if (typeof answer === "function") answer();
        else child.stdin.write(`${answer}\n`);
      }
    });
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ stdout, stderr, code: code ?? -1, prompts });
    });
  });
}

/** The tool names of `enclave tools list` (its first column). */
function toolNames(stdout: string): string[] {
  return stdout.split("\n").map((l) => l.split(" ")[0] ?? "");
}

// Card numbers count per conversation.
const CARD_MASKS: Mask[] = [[/#\d+/g, "#<n>"]];

function workspaceOf(f: Fixture, id: string): string {
  return f.cp.getConversation(id).workspacePath;
}

beforeAll(async () => {
  fx = await startFixture();
});

afterAll(async () => fx?.close());

describe("the CLI keeps a run across calls", () => {
  it("applies in one invocation what ast_edit staged in the one before", async () => {
    const id = "cli-keep";
    await fx.client.createConversation(id);
    writeFileSync(join(workspaceOf(fx, id), "calc.py"), "def f(x):\n    return old_name(x)\n");

    const staged = await enclave(fx, [
      "tool",
      "call",
      "ast_edit",
      JSON.stringify({ pattern: "old_name($A)", rewrite: "new_name($A)", path: "calc.py" }),
      "-c",
      id,
      "--yes",
    ]);
    expect(staged.code, staged.stderr).toBe(0);
    expect(staged.stdout).toContain("edit_1");
    expect(readFileSync(join(workspaceOf(fx, id), "calc.py"), "utf8")).toContain("old_name(x)");

    const listed = await enclave(fx, ["runs", "list", "-c", id]);
    expect(listed.code).toBe(0);
    await expectTranscript(listed.stdout, "transcripts/cli-runs/runs-list-staged.txt");
    const runs = await fx.client.listRuns(id);
    expect(runs).toHaveLength(1);
    expect(runs[0]?.cli).toBe(true);
    expect(runs[0]?.pendingActions).toBe(1);

    const tools = await enclave(fx, ["tools", "list", "-c", id]);
    expect(toolNames(tools.stdout)).toContain("resolve");

    const applied = await enclave(fx, ["tool", "call", "resolve", JSON.stringify({ action: "apply", reason: "rename" }), "-c", id, "--yes"]);
    expect(applied.code, applied.stderr).toBe(0);
    await expectTranscript(applied.stdout, "transcripts/cli-runs/resolve-applied.txt");
    expect(readFileSync(join(workspaceOf(fx, id), "calc.py"), "utf8")).toBe("def f(x):\n    return new_name(x)\n");

    // Still the same run, now with nothing staged.
    const after = await fx.client.listRuns(id);
    expect(after.map((r) => r.id)).toEqual([runs[0]?.id]);
    expect(after[0]?.pendingActions).toBe(0);
  });

  it("keeps one run per surface, opens a fresh one with --new-run, and reaches an older one with --run", async () => {
    const id = "cli-new-run";
    await fx.client.createConversation(id);
    writeFileSync(join(workspaceOf(fx, id), "m.py"), "a = one()\n");
    const stage = await enclave(fx, ["tool", "call", "ast_edit", JSON.stringify({ pattern: "one()", rewrite: "two()", path: "m.py" }), "-c", id, "--yes"]);
    expect(stage.code, stage.stderr).toBe(0);
    const [first] = await fx.client.listRuns(id);

    // The plan surface has its own kept run (read tools only).
    const plan = await enclave(fx, ["tools", "list", "-c", id, "--surface", "plan"]);
    expect(plan.code).toBe(0);
    expect(toolNames(plan.stdout)).not.toContain("ast_edit");
    const bySurface = await fx.client.listRuns(id);
    expect(bySurface.map((r) => r.surface).sort()).toEqual(["default", "plan"]);

    // A fresh run has nothing staged; the replaced one stays open with its change.
    const fresh = await enclave(fx, ["tool", "call", "resolve", JSON.stringify({ action: "apply", reason: "" }), "-c", id, "--new-run", "--yes"]);
    await expectTranscript(`${fresh.stdout}--- stderr\n${fresh.stderr}`, "transcripts/cli-runs/new-run-nothing-pending.txt", CARD_MASKS);
    const runs = await fx.client.listRuns(id);
    const replaced = runs.find((r) => r.id === first?.id);
    expect(replaced?.cliCurrent).toBe(false);
    expect(replaced?.pendingActions).toBe(1);
    expect(runs.filter((r) => r.surface === "default" && r.cliCurrent)).toHaveLength(1);
    const listed = await enclave(fx, ["runs", "list", "-c", id]);
    expect(listed.stdout).toContain(`${first?.id}  ${id}  default  `);
    await expectTranscript(listed.stdout, "transcripts/cli-runs/runs-list-replaced.txt");

    const discarded = await enclave(fx, [
      "tool",
      "call",
      "resolve",
      JSON.stringify({ action: "discard", reason: "not now" }),
      "--run",
      first?.id ?? "",
      "--yes",
    ]);
    expect(discarded.code, discarded.stderr).toBe(0);
    await expectTranscript(discarded.stdout, "transcripts/cli-runs/resolve-discarded.txt");
    expect(readFileSync(join(workspaceOf(fx, id), "m.py"), "utf8")).toBe("a = one()\n");

    const unknown = await enclave(fx, ["tool", "call", "read", '{"path":"m.py"}', "--run", "r-000000000000"]);
    expect(unknown.code).toBe(1);
    await expectTranscript(unknown.stderr, "transcripts/cli-runs/unknown-run.txt");
  });

  it("closes the kept run with `runs close`, dropping its staged change", async () => {
    const id = "cli-close";
    await fx.client.createConversation(id);
    writeFileSync(join(workspaceOf(fx, id), "c.py"), "v = first\n");
    const stage = await enclave(fx, [
      "tool",
      "call",
      "ast_edit",
      JSON.stringify({ pattern: "first", rewrite: "second", path: "c.py", language: "python" }),
      "-c",
      id,
      "--yes",
    ]);
    expect(stage.code, stage.stderr).toBe(0);
    const [kept] = await fx.client.listRuns(id);

    const closed = await enclave(fx, ["runs", "close", "-c", id]);
    expect(closed.code).toBe(0);
    expect(closed.stdout).toContain(kept?.id ?? "no kept run");
    await expectTranscript(closed.stdout, "transcripts/cli-runs/runs-close.txt");
    expect(await fx.client.listRuns(id)).toEqual([]);
    const again = await enclave(fx, ["runs", "close", "-c", id]);
    await expectTranscript(again.stdout, "transcripts/cli-runs/runs-close-again.txt");

    // The next call gets a fresh run with nothing to resolve.
    const resolve = await enclave(fx, ["tool", "call", "resolve", JSON.stringify({ action: "apply", reason: "" }), "-c", id, "--yes"]);
    await expectTranscript(`${resolve.stdout}--- stderr\n${resolve.stderr}`, "transcripts/cli-runs/closed-run-nothing-pending.txt", CARD_MASKS);
    expect(readFileSync(join(workspaceOf(fx, id), "c.py"), "utf8")).toBe("v = first\n");
    const [next] = await fx.client.listRuns(id);
    expect(next?.id).not.toBe(kept?.id);

    // A run id closes that run, whoever opened it.
    const api = await fx.client.openRun(id, { approvalPolicy: "never" });
    const byId = await enclave(fx, ["runs", "close", api.id]);
    expect(byId.code).toBe(0);
    expect((await fx.client.listRuns(id)).map((r) => r.id)).not.toContain(api.id);
  });
});

describe("what a streaming tool printed is shown once", () => {
  it("prints a command's output as it streams and then only how it ended, also when the result clips the output", async () => {
    const id = "cli-stream-once";
    await fx.client.createConversation(id);
    // More than the result keeps (its head and tail), so the result's copy differs from the stream.
    const lines = 20_000;
    const r = await enclave(fx, ["tool", "call", "exec", JSON.stringify({ command: `seq 1 ${lines}; echo done-marker` }), "-c", id, "--yes"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split("\n").filter((l) => l === "12345")).toHaveLength(1);
    expect(r.stdout.split("done-marker")).toHaveLength(2);
    expect(r.stdout).not.toContain("bytes of output cut");
    await expectTranscript(r.stdout.trimEnd().split("\n").at(-1) ?? "", "transcripts/cli-runs/exec-status-line.txt");
  });

  it("prints a cell's output once and its traceback after it", async () => {
    const id = "cli-stream-cell";
    await fx.client.createConversation(id);
    const r = await enclave(fx, [
      "tool",
      "call",
      "eval",
      JSON.stringify({
        description: "a cell that prints a line then fails",
        code: "print('-'.join(['before', 'the', 'error']))\nraise ValueError('boom-here')",
      }),
      "-c",
      id,
      "--yes",
    ]);
    expect(r.code).not.toBe(0);
    // The traceback quotes the cell's source, so the printed text is built at run time.
    const all = `${r.stdout}${r.stderr}`;
    expect(all.split("before-the-error"), all).toHaveLength(2);
    expect(all).toContain("ValueError: boom-here");
  });
});

describe("a kept run closes once idle", () => {
  let idle: Fixture;
  beforeAll(async () => {
    idle = await startFixture((c) => {
      c.cliRunIdleMs = 1_000;
    });
  });
  afterAll(async () => idle?.close());

  it("is closed by the control plane after the idle time with no call, and a call in flight keeps it open", async () => {
    const id = "cli-idle";
    await idle.client.createConversation(id);
    const run = await idle.client.attachCliRun(id);
    expect(run.idleExpiresAtMs).toBeGreaterThan(0);
    // A call waiting on its permission card is in flight: the run outlives the idle time meanwhile.
    const cards: Card[] = [];
    const human = idle.client.subscribeCards(id, (e: CardEvent) => {
      if (e.event?.$case === "opened") cards.push(e.event.value);
    });
    await human.ready;
    try {
      const writing = idle.client.callTool(run.id, "write", { path: "w.txt", content: "w\n" });
      const card = await until(() => cards.find((c) => c.runId === run.id), "the permission card");
      const during = await idle.client.listRuns(id);
      expect(during[0]?.callsInFlight).toBe(1);
      expect(during[0]?.idleExpiresAtMs).toBe(0);
      // A sweep long past the idle time spares it.
      expect(idle.cp.cliRuns.expire(Date.now() + 60_000)).toEqual([]);
      expect((await idle.client.listRuns(id)).map((r) => r.id)).toEqual([run.id]);
      await idle.client.answerCard(id, card.number, { selected: ["allow"] });
      const result = await writing;
      expect(result.isError, resultText(result)).toBe(false);
    } finally {
      human.cancel();
    }
    await eventually(async () => (await idle.client.listRuns(id)).length === 0, "the idle run to close", 30_000);
    const listed = await enclave(idle, ["runs", "list", "-c", id]);
    await expectTranscript(listed.stdout, "transcripts/cli-runs/runs-list-none.txt");
    // The next attach opens a fresh run.
    const next = await idle.client.attachCliRun(id);
    expect(next.id).not.toBe(run.id);
  });
});

describe("approval follows the tier by default", () => {
  it("gives a run that sets no policy `write`: a write tool with nobody attached is refused and writes nothing", async () => {
    const id = "approval-default";
    await fx.client.createConversation(id);
    const run = await fx.client.openRun(id);
    expect(run.approvalPolicy).toBe("write");
    const written = await fx.client.callTool(run.id, "write", { path: "x.txt", content: "x\n" });
    expect(written.isError).toBe(true);
    expect(written.errorCode).toBe("approval_refused");
    const read = await fx.client.callTool(run.id, "list", {});
    expect(read.isError, resultText(read)).toBe(false);
    const headless = await fx.client.openRun(id, { approvalPolicy: "never" });
    const ok = await fx.client.callTool(headless.id, "write", { path: "x.txt", content: "x\n" });
    expect(ok.isError, resultText(ok)).toBe(false);
  });

  it("asks on the terminal about the CLI's own permission card: y allows, n and end of input deny", async () => {
    const id = "cli-prompt";
    await fx.client.createConversation(id);
    const ws = workspaceOf(fx, id);
    const yes = await enclaveAnswering(fx, ["tool", "call", "write", '{"path":"yes.txt","content":"yes\\n"}', "-c", id], "y");
    expect(yes.code, yes.stderr).toBe(0);
    expect(yes.prompts).toBe(1);
    await expectTranscript(yes.stderr, "transcripts/cli-runs/prompt-yes.txt", CARD_MASKS);
    expect(readFileSync(join(ws, "yes.txt"), "utf8")).toBe("yes\n");

    const no = await enclaveAnswering(fx, ["tool", "call", "write", '{"path":"no.txt","content":"no\\n"}', "-c", id], "n");
    expect(no.code).toBe(1);
    expect(no.prompts).toBe(1);
    expect(no.stderr).toContain("approval_refused");
    await expectTranscript(no.stderr, "transcripts/cli-runs/prompt-no.txt", CARD_MASKS);
    const eof = await enclaveAnswering(fx, ["tool", "call", "exec", '{"command":"echo ran > eof.txt"}', "-c", id], null);
    expect(eof.code).toBe(1);
    expect(eof.stderr).toContain("approval_refused");
    expect(() => readFileSync(join(ws, "no.txt"))).toThrow();
    expect(() => readFileSync(join(ws, "eof.txt"))).toThrow();

    // --yes answers allow; --approval never raises no card; a read tool raises none under write.
    const forced = await enclaveAnswering(fx, ["tool", "call", "write", '{"path":"forced.txt","content":"f\\n"}', "-c", id, "--yes"], "n");
    expect(forced.code, forced.stderr).toBe(0);
    await expectTranscript(forced.stderr, "transcripts/cli-runs/prompt-forced.txt", CARD_MASKS);
    const never = await enclaveAnswering(fx, ["tool", "call", "write", '{"path":"never.txt","content":"n\\n"}', "-c", id, "--approval", "never"], "n");
    expect(never.code, never.stderr).toBe(0);
    expect(never.prompts).toBe(0);
    const read = await enclaveAnswering(fx, ["tool", "call", "read", '{"path":"never.txt"}', "-c", id], "n");
    expect(read.code, read.stderr).toBe(0);
    expect(read.prompts).toBe(0);
    expect(read.stdout).toContain("n\n");
  });

  it("asks about the cards of its own cell's bridge calls too", async () => {
    const id = "cli-bridge";
    await fx.client.createConversation(id);
    const cell = JSON.stringify({
      description: "write a file through the tool bridge",
      language: "javascript",
      code: "await tool('write', { path: 'bridged.txt', content: 'b\\n' })",
    });
    const out = await enclaveAnswering(fx, ["tool", "call", "eval", cell, "-c", id], "y");
    expect(out.code, out.stderr).toBe(0);
    expect(out.prompts).toBe(2);
    // The eval card, then the card of the write its cell made.
    await expectTranscript(out.stderr, "transcripts/cli-runs/prompt-bridge.txt", CARD_MASKS);
    expect(readFileSync(join(workspaceOf(fx, id), "bridged.txt"), "utf8")).toBe("b\n");
  });

  it("stops asking about a card answered elsewhere", async () => {
    const id = "cli-elsewhere";
    await fx.client.createConversation(id);
    const out = await enclaveAnswering(fx, ["tool", "call", "write", '{"path":"elsewhere.txt","content":"e\\n"}', "-c", id], () => {
      void fx.client.listCards(id).then(([card]) => card && fx.client.answerCard(id, card.number, { selected: ["deny"] }));
    });
    expect(out.code).toBe(1);
    expect(out.prompts).toBe(1);
    expect(out.stderr).toContain("approval_refused");
    await expectTranscript(out.stderr, "transcripts/cli-runs/card-answered-elsewhere.txt", CARD_MASKS);
  });

  it("leaves other runs' cards alone: only its own run's cards are asked about", async () => {
    const id = "cli-own-card";
    await fx.client.createConversation(id);
    const cards: Card[] = [];
    const human = fx.client.subscribeCards(id, (e: CardEvent) => {
      if (e.event?.$case === "opened") cards.push(e.event.value);
    });
    await human.ready;
    try {
      // Another run's card is open the whole time the CLI call runs.
      const other = await fx.client.openRun(id, { approvalPolicy: "write" });
      const otherWrite = fx.client.callTool(other.id, "write", { path: "other.txt", content: "o\n" });
      const otherCard = await until(() => cards.find((c) => c.runId === other.id), "the other run's card");
      const mine = await enclaveAnswering(fx, ["tool", "call", "write", '{"path":"mine.txt","content":"m\\n"}', "-c", id], "y");
      expect(mine.code, mine.stderr).toBe(0);
      expect(mine.prompts).toBe(1);
      expect(mine.stderr).not.toContain("other.txt");
      expect((await fx.client.listCards(id)).map((c) => c.number)).toEqual([otherCard.number]);
      await fx.client.answerCard(id, otherCard.number, { selected: ["deny"] });
      expect((await otherWrite).errorCode).toBe("approval_refused");
    } finally {
      human.cancel();
    }
  });
});
