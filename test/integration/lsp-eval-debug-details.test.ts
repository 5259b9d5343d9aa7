// Tool results as data: lsp, lsp_rename, eval, debug, ask_user and the vibe tools on host placement,
// against real language servers, kernels, debug adapters and worker programs, read through the Node
// client's ToolCallResult.details and checked with each tool's own details schema. No result text is
// parsed here: ids a later call needs (a frame, a reference, a worker) come from the details too.
import { copyFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Card, CardEvent } from "@enclave/proto/gen/enclave/control/v1/control.js";
import type { ToolCallResult } from "@enclave/client/control-plane-client.js";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";
import { LSP_DETAILS } from "@enclave/control-plane/tools/lsp/lsp-tool.js";
import { LSP_RENAME_DETAILS } from "@enclave/control-plane/tools/lsp/lsp-rename-tool.js";
import { EVAL_DETAILS } from "@enclave/control-plane/tools/eval/eval-details.js";
import { DEBUG_DETAILS } from "@enclave/control-plane/tools/debug/debug-tool.js";
import { ASK_USER_DETAILS } from "@enclave/control-plane/tools/ask-user/ask-user.js";
import { VIBE_SPAWN_DETAILS } from "@enclave/control-plane/tools/vibe/vibe-spawn.js";
import { VIBE_WAIT_DETAILS } from "@enclave/control-plane/tools/vibe/vibe-wait.js";
import { VIBE_LIST_DETAILS } from "@enclave/control-plane/tools/vibe/vibe-list.js";
import { VIBE_SEND_DETAILS } from "@enclave/control-plane/tools/vibe/vibe-send.js";
import { VIBE_KILL_DETAILS } from "@enclave/control-plane/tools/vibe/vibe-kill.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { hostPython } from "../helpers/eval-cases.js";
import { ensureHostServers, writeProject } from "../helpers/lsp-fixture.js";
import { BOOM_PY, PY_PROG } from "../helpers/debug-scenarios.js";
import { detailsFor, detailsOf } from "../helpers/tool-details.js";
import { until } from "../helpers/wait.js";

let fx: Fixture;
const workspaces: string[] = [];

// Diagnostics on write get room on a slow shared machine (lsp_rename reports them).
process.env.ENCLAVE_LSP_DIAGNOSTICS_WAIT_MS = "30000";

beforeAll(async () => {
  ensureHostServers();
  // The host agents inherit this: the kernel's base interpreter is the Python with the data stack.
  process.env.ENCLAVE_PYTHON = hostPython();
  fx = await startFixture((c) => {
    c.vibe.commands = { fast: "node .vibe-worker.mjs", good: "node .vibe-worker.mjs" };
  });
});
afterAll(async () => fx?.close());

async function conversation(id: string, resources: string[], opts: { questionTimeoutSeconds?: number; vibeMode?: boolean } = {}) {
  const conv = await fx.client.createConversation(id, mkdtempSync(join(tmpdir(), "enclave-details-ws-")));
  expect(conv.placement).toBe("host");
  workspaces.push(conv.workspacePath);
  const run = await fx.client.openRun(conv.id, { approvalPolicy: "never", resources, ...opts });
  return { id: conv.id, workspace: conv.workspacePath, runId: run.id };
}

/** No host path of this machine in a result's details: its workspaces are where they would show. */
function expectNoHostPaths(r: ToolCallResult): void {
  const json = JSON.stringify(r.details);
  for (const w of workspaces) expect(json).not.toContain(w);
}

describe("every tool with details publishes their JSON Schema in ListTools", () => {
  it("lsp, lsp_rename, eval, debug, ask_user and the vibe tools", async () => {
    const c = await conversation("schemas", ["workspace", "lsp", "kernel", "debug", "questions", "vibe"], { vibeMode: true });
    const { tools } = await fx.client.listTools(c.runId);
    const names = ["lsp", "lsp_rename", "eval", "debug", "ask_user", "vibe_spawn", "vibe_wait", "vibe_list", "vibe_send", "vibe_kill"];
    for (const name of names) {
      const schema = JSON.parse(tools.find((t) => t.name === name)?.detailsSchemaJson || "null") as { $schema?: string } | null;
      expect(schema?.$schema, name).toMatch(/json-schema/);
    }
  });
});

describe("lsp details", () => {
  let c: { workspace: string; runId: string };
  const lsp = async (args: Record<string, unknown>) => {
    const r = await fx.client.callTool(c.runId, "lsp", args);
    expect(r.isError, r.errorCode).toBe(false);
    expectNoHostPaths(r);
    return r;
  };
  beforeAll(async () => {
    c = await conversation("lspd", ["workspace", "lsp"]);
    writeProject(c.workspace);
  });

  it("definition: the location as fields, 1-based, workspace-relative, with the position asked about", async () => {
    const d = detailsFor(LSP_DETAILS, "action", "definition", await lsp({ action: "definition", file: "py/app.py", line: 3, symbol: "greet" }));
    expect(d.server).toBe("pyright");
    // The symbol after `s = "héllo 🎉 wörld"; print(`: 27 characters (the emoji is one), so column 28.
    expect(d.target).toMatchObject({ path: "py/app.py", line: 3, column: 28, end_line: 3, end_column: 33 });
    expect(d.locations).toHaveLength(1);
    expect(d.locations[0]).toMatchObject({ path: "py/util.py", line: 1, column: 5, end_line: 1, end_column: 10, line_text: "def greet(name: str) -> str:" });
    expect(d).toMatchObject({ total: 1, truncated: false, indexing: false });
  });

  it("a library's declaration outside the workspace has no path (never the machine's)", async () => {
    const d = detailsFor(LSP_DETAILS, "action", "definition", await lsp({ action: "definition", file: "py/app.py", line: 3, symbol: "print" }));
    expect(d.locations.length).toBeGreaterThan(0);
    for (const l of d.locations) {
      expect(l.path).toBeNull();
      expect(l.line).toBeGreaterThan(0);
    }
  });

  it("references: every use, with total", async () => {
    const d = detailsFor(LSP_DETAILS, "action", "references", await lsp({ action: "references", file: "py/util.py", line: 1, symbol: "greet" }));
    expect(d.locations.map((l) => `${l.path}:${l.line}:${l.column}`).sort()).toEqual(["py/app.py:1:27", "py/app.py:3:28", "py/app.py:5:7", "py/util.py:1:5"]);
    expect(d.total).toBe(4);
  });

  it("hover: the server's text and the symbol's range", async () => {
    const d = detailsFor(LSP_DETAILS, "action", "hover", await lsp({ action: "hover", file: "py/app.py", line: 3, symbol: "greet" }));
    expect(d.contents).toContain("def greet(name: str) -> str");
    expect(d.contents).toContain("Says hello to someone.");
    expect(d.truncated).toBe(false);
    expect(d.target).toMatchObject({ path: "py/app.py", line: 3, column: 28 });
  });

  it("diagnostics: each as fields", async () => {
    writeFileSync(join(c.workspace, "py/bad.py"), "from util import greet\n\ngreet(42)\n");
    const d = detailsFor(LSP_DETAILS, "action", "diagnostics", await lsp({ action: "diagnostics", file: "py/bad.py" }));
    expect(d.diagnostics).toEqual([
      expect.objectContaining({ path: "py/bad.py", line: 3, column: 7, severity: "error", code: "reportArgumentType", line_text: "greet(42)" }),
    ]);
    expect(d).toMatchObject({ total: 1, truncated: false, checker: null });
  });

  it("symbols: a file's outline", async () => {
    const d = detailsFor(LSP_DETAILS, "action", "symbols", await lsp({ action: "symbols", file: "ts/shapes.ts" }));
    const circle = d.symbols.find((s) => s.name === "Circle");
    expect(circle).toMatchObject({ kind: "class", depth: 0, location: expect.objectContaining({ path: "ts/shapes.ts", line: 5 }) });
    expect(d.symbols.some((s) => s.name === "area" && s.depth === 1)).toBe(true);
  });

  it("status: each server's state and roots", async () => {
    const d = detailsFor(LSP_DETAILS, "action", "status", await lsp({ action: "status" }));
    expect(d.servers.find((s) => s.id === "pyright")).toMatchObject({ state: "running", roots: ["py"] });
  });

  it("lsp_rename: the files and edits it applied", async () => {
    writeFileSync(join(c.workspace, "py/ren.py"), "def old_name() -> int:\n    return 1\n\n\nprint(old_name())\n");
    const r = await fx.client.callTool(c.runId, "lsp_rename", { file: "py/ren.py", line: 1, symbol: "old_name", new_name: "new_name" });
    expect(r.isError, r.errorCode).toBe(false);
    const d = detailsOf(LSP_RENAME_DETAILS, r);
    expect(d).toMatchObject({
      server: "pyright",
      old_name: "old_name",
      new_name: "new_name",
      files: [{ path: "py/ren.py", edits: 2 }],
      files_changed: 1,
      edits: 2,
    });
    expect(d.target).toMatchObject({ path: "py/ren.py", line: 1, column: 5 });
    // The rename introduced nothing: its diagnostics say the file was checked, with none new.
    expect(d.diagnostics.files).toEqual([expect.objectContaining({ path: "py/ren.py", state: "fresh", new_count: 0 })]);
    expect(d.diagnostics.new).toEqual([]);
  });
});

describe("eval details", () => {
  let c: { runId: string };
  const cell = (code: string, more: Record<string, unknown> = {}) =>
    fx.client.callTool(c.runId, "eval", { code, description: "a cell whose result is read as data", ...more });
  beforeAll(async () => {
    c = await conversation("evald", ["workspace", "kernel"]);
  });

  it("a cell that raises: the error's name, value and traceback as fields, on the error result", async () => {
    const r = await cell("x = 1\n1 / 0");
    expect(r.isError).toBe(true);
    expect(r.errorCode).toBe("cell_error");
    const d = detailsOf(EVAL_DETAILS, r);
    expect(d.status).toBe("error");
    expect(d.error?.name).toBe("ZeroDivisionError");
    expect(d.error?.value).toBe("division by zero");
    expect(d.error?.traceback.length).toBeGreaterThan(1);
    expect(d.error?.traceback.at(-1)).toBe("ZeroDivisionError: division by zero");
    // It points at the cell's own line.
    expect(d.error?.traceback.some((l) => l.includes("1 / 0"))).toBe(true);
    expect(d.kernel).toMatchObject({ language: "python" });
    expect(d.kernel?.interpreter).toMatch(/^cpython 3\.\d+/);
  });

  it("stdout and stderr apart; no error, nothing displayed", async () => {
    const d = detailsOf(EVAL_DETAILS, await cell("import sys\nprint('to out')\nprint('to err', file=sys.stderr)"));
    expect(d).toMatchObject({ status: "ok", stdout: "to out\n", stderr: "to err\n", stdout_clipped: false, error: null, outputs: [], outputs_total: 0 });
  });

  it("a DataFrame echoed: one display bundle with text/html and text/plain", async () => {
    const d = detailsOf(EVAL_DETAILS, await cell("import pandas as pd\npd.DataFrame({'city': ['Oslo', 'Lima'], 'temp': [3.5, 19.0]})"));
    expect(d.outputs).toHaveLength(1);
    const out = d.outputs[0];
    expect(out?.echo).toBe(true);
    expect(out?.data["text/html"]).toContain("<table");
    expect(out?.data["text/html"]).toContain("Oslo");
    expect(out?.data["text/plain"]).toMatch(/city\s+temp/);
    expect(d.outputs_truncated).toBe(false);
  });

  it("a figure: its PNG as base64 in a display() bundle, beside the printed text", async () => {
    const d = detailsOf(EVAL_DETAILS, await cell("import matplotlib.pyplot as plt\nprint('plotting')\nplt.plot([1, 4, 9])\nplt.show()"));
    expect(d.stdout).toBe("plotting\n");
    const png = d.outputs.find((o) => o.data["image/png"] !== undefined);
    expect(png?.echo).toBe(false);
    expect(Buffer.from(png?.data["image/png"] ?? "", "base64").subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  });

  it("a JavaScript cell: its output, its echoed value, and its error's name", async () => {
    const ok = detailsOf(EVAL_DETAILS, await cell("console.log('from js'); 40 + 2", { language: "javascript" }));
    expect(ok).toMatchObject({ status: "ok", stdout: "from js\n", error: null });
    expect(ok.outputs.map((o) => o.data["text/plain"])).toEqual(["42"]);
    expect(ok.kernel).toMatchObject({ language: "javascript" });
    expect(ok.kernel?.interpreter).toMatch(/^node v\d+/);
    const bad = await cell("null.x", { language: "javascript" });
    expect(bad.errorCode).toBe("cell_error");
    const d = detailsOf(EVAL_DETAILS, bad);
    expect(d.error?.name).toBe("TypeError");
    expect(d.error?.value).toMatch(/null/);
  });

  it("the kernel: fresh after a reset, then the same id; an idle budget that runs out says so", async () => {
    const reset = detailsOf(EVAL_DETAILS, await cell("y = 2", { reset: true }));
    expect(reset.kernel?.fresh).toBe(true);
    const next = detailsOf(EVAL_DETAILS, await cell("y"));
    expect(next.kernel).toMatchObject({ id: reset.kernel?.id, fresh: false, previous_fate: null });
    const slow = await cell("import time\ntime.sleep(30)", { timeout_seconds: 1 });
    expect(slow.errorCode).toBe("timeout");
    const d = detailsOf(EVAL_DETAILS, slow);
    expect(d).toMatchObject({ status: "interrupted", timed_out: true, state_lost: false });
    expect(d.error?.name).toBe("KeyboardInterrupt");
  });
});

describe("debug details", () => {
  let c: { runId: string };
  const debug = async (args: Record<string, unknown>) => {
    const r = await fx.client.callTool(c.runId, "debug", args);
    expect(r.isError, `${JSON.stringify(args)} → ${r.errorCode}`).toBe(false);
    expectNoHostPaths(r);
    return r;
  };
  beforeAll(async () => {
    c = await conversation("dbgd", ["workspace", "debug"]);
    for (const [path, content] of Object.entries({ "py/pyproject.toml": '[project]\nname = "prog"\n', "py/prog.py": PY_PROG, "py/boom.py": BOOM_PY })) {
      expect((await fx.client.callTool(c.runId, "write", { path, content })).isError).toBe(false);
    }
  });

  it("a stop at a breakpoint: reason, thread, frames, scopes, variables and values as fields; then the exit code", async () => {
    const bp = detailsFor(DEBUG_DETAILS, "op", "breakpoints", await debug({ op: "breakpoints", file: "py/prog.py", lines: [12] }));
    expect(bp).toMatchObject({ file: "py/prog.py", applied: false, breakpoints: [{ requested_line: 12, line: null }] });

    const launched = detailsFor(DEBUG_DETAILS, "op", "launch", await debug({ op: "launch", program: "py/prog.py" }));
    const s = launched.session;
    expect(s).toMatchObject({ adapter: "debugpy", program: "py/prog.py", active: true, state: "stopped", exit_code: null, ended_kind: null });
    expect(s.session_id).toBeTruthy();
    expect(s.stopped).toMatchObject({ reason: "breakpoint", path: "py/prog.py", line: 12, function: "main" });
    expect(s.breakpoints[0]?.breakpoints[0]).toMatchObject({ requested_line: 12, line: 12, verified: true });

    const stack = detailsFor(DEBUG_DETAILS, "op", "stack", await debug({ op: "stack" }));
    expect(stack.frames.slice(0, 2).map((f) => [f.name, f.path, f.line])).toEqual([
      ["main", "py/prog.py", 12],
      ["<module>", "py/prog.py", 16],
    ]);
    expect(stack.exception).toBeNull();
    const top = stack.frames[0]?.id ?? 0;

    const scopes = detailsFor(DEBUG_DETAILS, "op", "scopes", await debug({ op: "scopes", frame_id: top }));
    const locals = scopes.scopes.find((sc) => sc.name === "Locals")?.reference ?? 0;
    expect(locals).toBeGreaterThan(0);
    const vars = detailsFor(DEBUG_DETAILS, "op", "variables", await debug({ op: "variables", reference: locals }));
    const long = vars.variables.find((v) => v.name === "long_value");
    expect(long).toMatchObject({ type: "str", value_cut: true });
    expect(long?.value).toHaveLength(400);
    const items = vars.variables.find((v) => v.name === "items");
    expect(items).toMatchObject({ type: "list" });
    const children = detailsFor(DEBUG_DETAILS, "op", "variables", await debug({ op: "variables", reference: items?.reference ?? 0 }));
    // 100 items (and len) capped at 50: the list says it was cut and how many there were.
    expect(children.variables).toHaveLength(50);
    expect(children.truncated).toBe(true);
    expect(children.total).toBeGreaterThan(100);

    const ev = detailsFor(DEBUG_DETAILS, "op", "evaluate", await debug({ op: "evaluate", expression: "len(long_value) + len(items)", frame_id: top }));
    expect(ev).toMatchObject({ value: "1100", type: "int", reference: 0, value_cut: false });

    const stepped = detailsFor(DEBUG_DETAILS, "op", "step_in", await debug({ op: "step_in" }));
    expect(stepped.session.stopped).toMatchObject({ path: "py/prog.py", function: "helper", line: 4 });

    const ended = detailsFor(DEBUG_DETAILS, "op", "continue", await debug({ op: "continue" }));
    expect(ended.session).toMatchObject({ active: false, exit_code: 0, ended_kind: "program_ended", stopped: null });
    const out = detailsFor(DEBUG_DETAILS, "op", "output", await debug({ op: "output" }));
    expect(out.text).toContain("hello from debuggee");
    expect(out.session_id).toBe(s.session_id);
    await debug({ op: "breakpoints", file: "py/prog.py", lines: [] });
  });

  it("a stop on an uncaught exception: its type, message and the program's own frames", async () => {
    const launched = detailsFor(DEBUG_DETAILS, "op", "launch", await debug({ op: "launch", program: "py/boom.py" }));
    expect(launched.session.exception).toMatchObject({ type: "ValueError", message: "negative: -3" });
    expect(launched.session.exception?.frames[0]).toEqual({ function: "check", path: "py/boom.py", line: 8 });
    const stack = detailsFor(DEBUG_DETAILS, "op", "stack", await debug({ op: "stack" }));
    expect(stack.exception?.type).toBe("ValueError");
    const done = detailsFor(DEBUG_DETAILS, "op", "terminate", await debug({ op: "terminate" }));
    expect(done.session).toMatchObject({ active: false, ended_kind: "terminated" });
  });
});

describe("ask_user details", () => {
  /** A human attached to the conversation's cards, answering each question as `answer` says. */
  async function asked(id: string, args: Record<string, unknown>, answer: (card: Card) => Promise<unknown>, timeoutSeconds?: number) {
    const c = await conversation(id, ["questions"], timeoutSeconds ? { questionTimeoutSeconds: timeoutSeconds } : {});
    const opened: Card[] = [];
    const sub = fx.client.subscribeCards(c.id, (e: CardEvent) => {
      if (e.event?.$case === "opened") opened.push(e.event.value);
    });
    await sub.ready;
    try {
      const pending = fx.client.callTool(c.runId, "ask_user", args);
      const card = await until(() => opened[0], "the card");
      await answer(card);
      return await pending;
    } finally {
      sub.cancel();
    }
  }

  it("the options chosen and the text written", async () => {
    const r = await asked(
      "askd1",
      { question: "Which platforms?", options: [{ label: "linux" }, { label: "mac" }, { label: "windows" }], multi_select: true, allow_free_text: true },
      (card) => fx.client.answerCard("askd1", card.number, { selected: ["mac", "linux"], freeText: "arm64 too" }),
    );
    expect(r.isError).toBe(false);
    const d = detailsOf(ASK_USER_DETAILS, r);
    expect(d).toMatchObject({ outcome: "answered", selected: ["mac", "linux"], free_text: "arm64 too" });
    expect(d.card).toBeGreaterThan(0);
  });

  it("a skip (declined) and a timeout (an error result that still says which card)", async () => {
    const skipped = await asked("askd2", { question: "Tabs or spaces?", options: [{ label: "tabs" }, { label: "spaces" }] }, (card) =>
      fx.client.answerCard("askd2", card.number, { skip: true }),
    );
    expect(detailsOf(ASK_USER_DETAILS, skipped)).toMatchObject({ outcome: "skipped", selected: [], free_text: null });
    const timedOut = await asked("askd3", { question: "Anyone there?" }, () => Promise.resolve(), 1);
    expect(timedOut.errorCode).toBe("timeout");
    expect(detailsOf(ASK_USER_DETAILS, timedOut)).toMatchObject({ outcome: "timed_out", selected: [], free_text: null });
  });
});

describe("vibe details", () => {
  it("spawn, wait, list, send and kill: the worker's id, state and result as fields", async () => {
    const c = await conversation("vibed", ["workspace", "vibe"], { vibeMode: true });
    copyFileSync(join(repoRoot, "test", "fixtures", "vibe-worker.mjs"), join(c.workspace, ".vibe-worker.mjs"));
    const call = async (tool: string, args: Record<string, unknown>) => {
      const r = await fx.client.callTool(c.runId, tool, args);
      expect(r.isError, `${tool} → ${r.errorCode}`).toBe(false);
      expectNoHostPaths(r);
      return r;
    };
    const { worker: spawned } = detailsOf(VIBE_SPAWN_DETAILS, await call("vibe_spawn", { brief: "say hello from the worker", label: "greeter", tier: "good" }));
    expect(spawned).toMatchObject({ label: "greeter", tier: "good", state: "running", attempt: 1, result: null });
    const id = spawned.worker_id;

    const waited = detailsOf(VIBE_WAIT_DETAILS, await call("vibe_wait", { worker_id: id }));
    expect(waited.settled).toBe(true);
    expect(waited.output_tail).toBeNull();
    expect(waited.worker).toMatchObject({ worker_id: id, state: "done", attempt: 1 });
    expect(waited.worker.result).toContain("hello from the worker");

    const listed = detailsOf(VIBE_LIST_DETAILS, await call("vibe_list", {}));
    expect(listed.workers.map((w) => [w.worker_id, w.state])).toEqual([[id, "done"]]);
    expect(listed.hosts.length).toBeGreaterThan(0);

    const sent = detailsOf(VIBE_SEND_DETAILS, await call("vibe_send", { worker_id: id, message: "sleep 30" }));
    expect(sent).toMatchObject({ messages: 1, worker: { worker_id: id, attempt: 2, state: "running" } });
    const killed = detailsOf(VIBE_KILL_DETAILS, await call("vibe_kill", { worker_id: id }));
    expect(killed).toMatchObject({ was_running: true, worker: { worker_id: id, state: "killed" } });
  });
});
