// Promises about bridge calls (tool() in a cell), on host placement and in an enclosure:
// - a bridge call belongs to the cell that started the work making it: a Python thread or a
//   JavaScript timer left running by a cell limited to bridge_surface `plan` cannot write once a
//   later, unrestricted cell runs (it gets ToolError failed_precondition and nothing is written),
//   while threads, pools and timers of the running cell itself call tools as before;
// - a kernel that ran a cell limited to `plan` stays limited to it until reset: code that cell left
//   behind (here a tool() it replaced, riding along a later cell's own calls) cannot write either;
// - one cell may make a bounded number of bridge calls; past it tool() fails with bridge_limit,
//   the kernel lives on and the next cell may call again.
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "@enclave/control-plane/limits.js";
import { LIMITS as AGENT_LIMITS } from "@enclave/agent/limits.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { type EvalPlace, evalOk, hostPython } from "../helpers/eval-cases.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";

const REFUSED = /^refused failed_precondition: tool\(\) was called by work that cell \d+ left running \(a thread, a timer, a task\) while cell \d+ runs/;

/** Bridge calls to write that succeeded in this conversation. */
function bridgeWrites(p: EvalPlace): number {
  return p.fx.cp.audit.history(p.conversationId).filter((e) => e.origin === "bridge" && e.tool === "write" && e.outcome === "ok").length;
}

function bindingCases(place: () => EvalPlace): void {
  it("refuses tool() from a Python thread a plan-only cell left running, once a wider cell runs", async () => {
    const p = place();
    writeFileSync(join(p.workspace, "notes.txt"), "hello from notes\n");
    await evalOk(p, {
      bridge_surface: "plan",
      code: [
        "import threading",
        "from concurrent.futures import ThreadPoolExecutor",
        "go = threading.Event()",
        "outcome = []",
        "def left_behind():",
        "    go.wait(60)",
        "    try:",
        "        tool('write', {'path': 'escaped.txt', 'content': 'written by a thread of a plan-only cell'})",
        "        outcome.append('written')",
        "    except ToolError as e:",
        "        outcome.append('refused %s: %s' % (e.code, e.message))",
        "threading.Thread(target=left_behind, daemon=True).start()",
        "pool = ThreadPoolExecutor(2)",
        "pool.submit(lambda: None).result()  # its worker thread is started by this cell",
      ].join("\n"),
    });
    const out = await evalOk(p, {
      code: "import time\ngo.set()\nfor _ in range(600):\n    if outcome:\n        break\n    time.sleep(0.05)\nprint(outcome[0] if outcome else 'no outcome')",
    });
    expect(out).toMatch(REFUSED);
    expect(existsSync(join(p.workspace, "escaped.txt"))).toBe(false);
    expect(bridgeWrites(p)).toBe(0);

    // The running cell's own threads, its work on a pool made earlier, and asyncio's executor call tools.
    const own = await evalOk(p, {
      code: [
        "import asyncio, threading",
        "got = []",
        "t = threading.Thread(target=lambda: got.append(tool('read', {'path': 'notes.txt'})))",
        "t.start(); t.join(30)",
        "got.append(pool.submit(tool, 'read', {'path': 'notes.txt'}).result(30))",
        "got.append(await asyncio.get_running_loop().run_in_executor(None, tool, 'read', {'path': 'notes.txt'}))",
        "got.append(await asyncio.to_thread(tool, 'read', {'path': 'notes.txt'}))",
        "[g.strip() for g in got]",
      ].join("\n"),
    });
    // Echoed as Jupyter shows it: over 79 columns, one item a line.
    expect(own).toBe("['hello from notes',\n 'hello from notes',\n 'hello from notes',\n 'hello from notes']");
  });

  it("refuses tool() from a JavaScript timer a plan-only cell left running, once a wider cell runs", async () => {
    const p = place();
    writeFileSync(join(p.workspace, "notes.txt"), "hello from notes\n");
    await evalOk(p, {
      language: "javascript",
      bridge_surface: "plan",
      code: [
        "globalThis.outcome = [];",
        "globalThis.go = false;",
        "const timer = setInterval(() => {",
        "  if (!globalThis.go) return;",
        "  clearInterval(timer);",
        "  tool('write', { path: 'escaped-js.txt', content: 'written by a timer of a plan-only cell' }).then(",
        "    () => outcome.push('written'),",
        "    (e) => outcome.push(`refused ${e.code}: ${e.detail}`),",
        "  );",
        "}, 20);",
      ].join("\n"),
    });
    const out = await evalOk(p, {
      language: "javascript",
      code: "globalThis.go = true;\nfor (let i = 0; i < 600 && outcome.length === 0; i++) await new Promise((r) => setTimeout(r, 50));\nconsole.log(outcome[0] ?? 'no outcome');",
    });
    expect(out).toMatch(REFUSED);
    expect(existsSync(join(p.workspace, "escaped-js.txt"))).toBe(false);
    expect(bridgeWrites(p)).toBe(0);

    const own = await evalOk(p, {
      language: "javascript",
      code: "const viaTimer = await new Promise((resolve, reject) => setTimeout(() => tool('read', { path: 'notes.txt' }).then(resolve, reject), 20));\nviaTimer.trim()",
    });
    expect(own).toBe("'hello from notes'");
  });

  it("fails bridge calls past the per-cell limit with bridge_limit, and the kernel lives on", async () => {
    const p = place();
    const limit = LIMITS.bridgeCallsPerCell;
    expect(AGENT_LIMITS.bridgeCallsPerCell).toBe(limit);
    writeFileSync(join(p.workspace, "small.txt"), "s");
    const py = await evalOk(p, {
      code: [
        "counted = {'ok': 0}",
        `for _ in range(${limit + 5}):`,
        "    try:",
        "        tool('read', {'path': 'small.txt'})",
        "        counted['ok'] += 1",
        "    except ToolError as e:",
        "        counted[e.code] = counted.get(e.code, 0) + 1",
        "        last_error = e.message",
        "counted",
      ].join("\n"),
      timeout_seconds: 120,
    });
    expect(py).toBe(`{'ok': ${limit}, 'bridge_limit': 5}`);
    // bridge_limit is counted above; what the refusal says (the limit) is recorded.
    await expectTranscript(await evalOk(p, { code: "last_error" }), `transcripts/bridge-cell-binding/bridge-limit-${p.conversationId}.txt`);
    expect(await evalOk(p, { code: "tool('read', {'path': 'small.txt'})" })).toBe("'s'");

    const js = await evalOk(p, {
      language: "javascript",
      code: [
        "const jsCounted = { ok: 0 };",
        `for (let i = 0; i < ${limit + 3}; i++) {`,
        "  try { await tool('read', { path: 'small.txt' }); jsCounted.ok++; }",
        "  catch (e) { jsCounted[e.code] = (jsCounted[e.code] ?? 0) + 1; }",
        "}",
        "jsCounted",
      ].join("\n"),
      timeout_seconds: 120,
    });
    expect(js).toBe(`{ ok: ${limit}, bridge_limit: 3 }`);
    expect(await evalOk(p, { language: "javascript", code: "jsCounted.ok" })).toBe(String(limit));
  });
}

/** A kernel that ran a plan-only cell stays within plan until reset, whatever that cell left in it. */
function ceilingCases(place: () => EvalPlace): void {
  it("keeps a kernel that ran a plan-only cell within plan until reset, even for calls planted in a later cell's own tool()", async () => {
    const p = place();
    writeFileSync(join(p.workspace, "notes.txt"), "hello from notes\n");
    await evalOk(p, {
      bridge_surface: "plan",
      reset: true,
      code: [
        "planted = []",
        "_real_tool = tool",
        "def tool(name, args=None, **kwargs):",
        "    try:",
        "        _real_tool('write', {'path': 'planted.txt', 'content': 'written by code a plan-only cell planted'})",
        "        planted.append('written')",
        "    except ToolError as e:",
        "        planted.append('refused %s: %s' % (e.code, e.message))",
        "    return _real_tool(name, args, **kwargs)",
      ].join("\n"),
    });
    const out = await evalOk(p, { code: "print(tool('read', {'path': 'notes.txt'}).strip())\nprint(planted[0])" });
    expect(out).toMatch(
      /^hello from notes\nrefused unknown_tool: unknown tool `write`: [^\n]*This kernel's tool\(\) calls are limited to surface `plan` because an earlier cell in it ran with bridge_surface `plan`.*reset: true/,
    );
    expect(existsSync(join(p.workspace, "planted.txt"))).toBe(false);
    // A reset gives the run's own surface back.
    expect(await evalOk(p, { reset: true, code: "tool('write', {'path': 'after-reset.txt', 'content': 'ok'})\n'written'" })).toBe("'written'");
    expect(existsSync(join(p.workspace, "after-reset.txt"))).toBe(true);
  });
}

describe("bridge calls on host placement", () => {
  let fx: Fixture;
  let place: EvalPlace;
  beforeAll(async () => {
    process.env.ENCLAVE_PYTHON = hostPython();
    fx = await startFixture();
    const conv = await fx.client.createConversation("bridge-host", mkdtempSync(join(tmpdir(), "enclave-bridge-ws-")));
    expect(conv.placement).toBe("host");
    place = { fx, conversationId: conv.id, runId: (await fx.client.openRun(conv.id, { approvalPolicy: "never" })).id, workspace: conv.workspacePath };
  });
  afterAll(async () => fx?.close());
  bindingCases(() => place);
  ceilingCases(() => place);
});

describe("bridge calls in an enclosure", () => {
  let fx: Fixture;
  let place: EvalPlace;
  beforeAll(async () => {
    fx = await startFixture();
    const conv = await fx.client.createConversation("bridge-enc");
    const started = await fx.client.startEnclosure("bridge-enc", {});
    expect(started.placement).toBe("enclosure");
    place = { fx, conversationId: conv.id, runId: (await fx.client.openRun(conv.id, { approvalPolicy: "never" })).id, workspace: conv.workspacePath };
  });
  afterAll(async () => fx?.close());
  bindingCases(() => place);
  ceilingCases(() => place);
});
