// lsp, lsp_rename and diagnostics on write against real language servers (pyright,
// typescript-language-server, clangd) in host placement, through the real gRPC API.
import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { ensureHostServers, writeBrokenServer, writeProject } from "../helpers/lsp-fixture.js";
import { lspFidelityScenarios } from "../helpers/lsp-scenarios.js";
import { type Mask, expectTranscript } from "@enclave/test-kit/transcript.js";
import { until } from "../helpers/wait.js";
import { hostPidOf, sandboxNamespace, sandboxProcesses } from "../helpers/sandbox-processes.js";

let fx: Fixture;
let runId: string;
let workspace: string;

// Machines here are shared and slow: give diagnostics on write room, so "late" is not what we test.
process.env.ENCLAVE_LSP_DIAGNOSTICS_WAIT_MS = "30000";

beforeAll(async () => {
  ensureHostServers();
  fx = await startFixture();
  workspace = (await fx.client.createConversation("lsph")).workspacePath;
  writeProject(workspace);
  runId = (await fx.client.openRun("lsph", { approvalPolicy: "never", resources: ["workspace", "lsp"] })).id;
});
afterAll(async () => fx?.close());

// Faults found against direct clients of the same servers, each from its minimal case.
lspFidelityScenarios("host", () => fx);

async function lsp(args: Record<string, unknown>): Promise<string> {
  const r = await fx.client.callTool(runId, "lsp", args);
  expect(r.isError, resultText(r)).toBe(false);
  return resultText(r);
}

async function lspError(args: Record<string, unknown>): Promise<{ code: string; text: string }> {
  const r = await fx.client.callTool(runId, "lsp", args);
  expect(r.isError, resultText(r)).toBe(true);
  return { code: r.errorCode, text: resultText(r) };
}

// Server pids, where a binary is installed and the way rust-analyzer is missing (absent, or a rustup
// proxy that cannot run it) differ between machines and runs.
const MASKS: Mask[] = [
  [/\/\S+ is installed, but/g, "<binary> is installed, but"],
  [/\bpid \d+(?:, \d+)*/g, "pid <pid>"],
  [/`rust-analyzer` (?:is not on PATH here|resolves to [^;\n]*?but `rust-analyzer --version` fails[^;\n]*)/g, "`rust-analyzer` <missing>"],
];

/** Compares a tool's answer with the recorded one in transcripts/lsp-host/<name>.txt. */
async function transcript(text: string, name: string): Promise<void> {
  await expectTranscript(text, `transcripts/lsp-host/${name}.txt`, MASKS);
}

/** The status line of one server (the others' state is not what the test is about). */
function statusLine(status: string, server: string): string {
  return status.split("\n").find((l) => l.trimStart().startsWith(`${server} (`)) ?? `${server}: no status line in\n${status}`;
}

function pidOf(status: string, server: string): number {
  const m = new RegExp(`${server} \\([^)]*\\): running\\..*?pid (\\d+)`).exec(status);
  if (!m?.[1]) throw new Error(`${server} is not running:\n${status}`);
  return Number(m[1]);
}

describe("lsp on the host", () => {
  it("registers lsp (read) and lsp_rename (write) only where lsp is wired, and plan mode sees only lsp", async () => {
    const { tools } = await fx.client.listTools(runId);
    expect(tools.find((t) => t.name === "lsp")?.tier).toBe("read");
    expect(tools.find((t) => t.name === "lsp_rename")?.tier).toBe("write");
    // ListTools shows the rule that is enforced: one branch per action, each requiring its fields.
    const schema = JSON.parse(tools.find((t) => t.name === "lsp")?.inputSchemaJson ?? "{}") as {
      oneOf?: { properties: { action: { const: string } }; required: string[] }[];
    };
    const hover = schema.oneOf?.find((b) => b.properties.action.const === "hover");
    expect(hover?.required.sort()).toEqual(["action", "file", "line", "symbol"]);
    expect(schema.oneOf?.map((b) => b.properties.action.const)).toContain("status");
    const plan = await fx.client.openRun("lsph", { approvalPolicy: "never", surface: "plan", resources: ["workspace", "lsp"] });
    expect((await fx.client.listTools(plan.id)).tools.map((t) => t.name)).toContain("lsp");
    expect((await fx.client.listTools(plan.id)).tools.map((t) => t.name)).not.toContain("lsp_rename");
    const bare = await fx.client.openRun("lsph", { approvalPolicy: "never", resources: ["workspace"] });
    expect((await fx.client.listTools(bare.id)).tools.map((t) => t.name)).not.toContain("lsp");
  });

  it("definition lands on the right symbol with non-ASCII text (an astral emoji) before it", async () => {
    const out = await lsp({ action: "definition", file: "py/app.py", line: 3, symbol: "greet" });
    // Shown columns count characters: `s = "héllo 🎉 wörld"; print(` is 27 of them (the emoji is one,
    // though two UTF-16 units for the server), so greet starts at column 28 (py/app.py:3:28).
    await transcript(out, "definition-non-ascii");
  });

  it("hover gives the signature and doc comment", async () => {
    const out = await lsp({ action: "hover", file: "py/app.py", line: 3, symbol: "greet" });
    // pyright's own hover text.
    expect(out).toContain("def greet(name: str) -> str");
    expect(out).toContain("Says hello to someone.");
  });

  it("references lists every use with the source line, workspace-relative", async () => {
    const out = await lsp({ action: "references", file: "py/util.py", line: 1, symbol: "greet" });
    await transcript(out, "references");
    expect(out).not.toContain(workspace);
  });

  it("name#N picks the Nth occurrence on the line", async () => {
    // Warm the TypeScript project (diagnostics wait for the server's first full check).
    await lsp({ action: "diagnostics", file: "ts/main.ts" });
    const out = await lsp({ action: "definition", file: "ts/main.ts", line: 3, symbol: "Shape#1" });
    await transcript(out, "definition-occurrence");
    const bad = await lspError({ action: "definition", file: "ts/main.ts", line: 3, symbol: "Shape#3" });
    expect(bad.code).toBe("invalid_arguments");
    await transcript(bad.text, "occurrence-missing");
  });

  it("type_definition and implementation (TypeScript)", async () => {
    const type = await lsp({ action: "type_definition", file: "ts/main.ts", line: 7, symbol: "shape" });
    await transcript(type, "type-definition");
    const impl = await lsp({ action: "implementation", file: "ts/shapes.ts", line: 1, symbol: "Shape" });
    await transcript(impl, "implementation");
  });

  it("symbols: a file's outline and a workspace search", async () => {
    const outline = await lsp({ action: "symbols", file: "ts/shapes.ts" });
    await transcript(outline, "symbols-outline");
    const search = await lsp({ action: "symbols", query: "Circle", file: "ts/main.ts" });
    await transcript(search, "symbols-search");
  });

  it("code_actions offers the server's quick fix", async () => {
    writeFileSync(join(workspace, "ts/typo.ts"), "export function f(): void {\n  consol.log(1);\n}\n");
    await lsp({ action: "diagnostics", file: "ts/typo.ts" });
    const out = await lsp({ action: "code_actions", file: "ts/typo.ts", line: 2, symbol: "consol" });
    await transcript(out, "code-actions");
  });

  it('diagnostics for one file, and "*" runs the project\'s own checker', async () => {
    writeFileSync(join(workspace, "py/bad.py"), "from util import greet\n\ngreet(42)\n");
    const one = await lsp({ action: "diagnostics", file: "py/bad.py" });
    await transcript(one, "diagnostics-one-file");
    const all = await lsp({ action: "diagnostics", file: "*" });
    // The whole-project checker's findings are its own text; our part is its first line.
    await transcript(all.split("\n")[0] ?? "", "diagnostics-project-checker");
  });

  it("C through clangd: definition across a header and diagnostics", async () => {
    const def = await lsp({ action: "definition", file: "c/main.c", line: 5, symbol: "add" });
    expect(def).toMatch(/c\/util\.(h:3:5|c:3:5)/);
    writeFileSync(join(workspace, "c/oops.c"), '#include "util.h"\nint g(void) { return add(1); }\n');
    const diag = await lsp({ action: "diagnostics", file: "c/oops.c" });
    await transcript(diag, "diagnostics-clangd");
  });

  it("a navigation action without symbol, or with one not on the line, says what the line holds", async () => {
    const missing = await fx.client.callTool(runId, "lsp", { action: "hover", file: "py/app.py", line: 3 });
    expect(missing.errorCode).toBe("invalid_arguments");
    const wrong = await lspError({ action: "hover", file: "py/app.py", line: 3, symbol: "nope" });
    expect(wrong.code).toBe("invalid_arguments");
    const range = await lspError({ action: "hover", file: "py/app.py", line: 99, symbol: "x" });
    expect(range.code).toBe("invalid_arguments");
    // One code for all three: the recorded answers keep them apart (and show what the line holds).
    await transcript(`${resultText(missing)}\n${wrong.text}\n${range.text}\n`, "navigation-argument-errors");
  });

  it("status explains running servers, a missing binary and a missing marker; a file with no marker is a clear error", async () => {
    const out = await lsp({ action: "status" });
    // Absent, or (where rustup is installed) a proxy that fails to run it: either way, missing (masked).
    await transcript(["pyright", "rust-analyzer", "dart", "bash"].map((s) => statusLine(out, s)).join("\n"), "status-servers");
    const loose = await lspError({ action: "hover", file: "loose/orphan.py", line: 1, symbol: "x" });
    expect(loose.code).toBe("lsp_no_server");
    const rust = await lspError({ action: "diagnostics", file: "py/x.rs" });
    expect(rust.code).toBe("lsp_no_server");
    await transcript(`${loose.text}\n${rust.text}\n`, "no-server-can-start");
  });

  it("diagnostics on write: new ones only; a moved one is not repeated; fixed then re-broken is new again", async () => {
    const base = "export function total(xs: number[]): number {\n  let sum = 0;\n  for (const x of xs) sum += x;\n  return sum;\n}\n";
    const clean = await fx.client.callTool(runId, "write", { path: "ts/calc.ts", content: base });
    await transcript(resultText(clean), "write-clean");

    const broken = base.replace("return sum;", 'return sum;\n  const bad: number = "oops";');
    const first = resultText(await fx.client.callTool(runId, "write", { path: "ts/calc.ts", content: broken }));
    // Hints (tsserver's "Unreachable code") are left out: the recorded answer has the error only.
    await transcript(first, "write-first-error");

    // Four lines added above it: the same error, moved, is not new.
    const moved = resultText(
      await fx.client.callTool(runId, "edit", {
        path: "ts/calc.ts",
        old_text: "  let sum = 0;\n",
        new_text: "  let sum = 0;\n  // a\n  // b\n  // c\n  // d\n",
      }),
    );
    await transcript(moved, "write-moved-error");

    // A second, different error: only it is reported.
    const patch = "--- a/ts/calc.ts\n+++ b/ts/calc.ts\n@@ -1,2 +1,3 @@\n export function total(xs: number[]): number {\n+  xs.nosuch();\n   let sum = 0;\n";
    const second = resultText(await fx.client.callTool(runId, "apply_patch", { patch }));
    await transcript(second, "write-second-error");

    // Fixed, then broken again: reported again.
    await fx.client.callTool(runId, "edit", { path: "ts/calc.ts", old_text: '  const bad: number = "oops";\n', new_text: "" });
    const again = resultText(
      await fx.client.callTool(runId, "edit", { path: "ts/calc.ts", old_text: "  return sum;\n", new_text: '  return sum;\n  const bad: number = "oops";\n' }),
    );
    await transcript(again, "write-rebroken");
  });

  it("a write whose diagnostics are late returns without them and says so", async () => {
    process.env.ENCLAVE_LSP_DIAGNOSTICS_WAIT_MS = "1";
    try {
      // A new root: its clangd has to start first, which takes longer than 1 ms.
      const ws = (await fx.client.createConversation("lsp-late")).workspacePath;
      mkdirSync(join(ws, "c2"));
      writeFileSync(join(ws, "c2/compile_flags.txt"), "-std=c11\n");
      const late = (await fx.client.openRun("lsp-late", { approvalPolicy: "never", resources: ["workspace", "lsp"] })).id;
      const r = await fx.client.callTool(late, "write", { path: "c2/late.c", content: "int f(void) { return g(); }\n" });
      expect(r.isError).toBe(false);
      await transcript(resultText(r), "write-diagnostics-late");
    } finally {
      process.env.ENCLAVE_LSP_DIAGNOSTICS_WAIT_MS = "30000";
    }
  });

  it("a write in a run without lsp wired carries no diagnostics", async () => {
    const bare = await fx.client.openRun("lsph", { approvalPolicy: "never", resources: ["workspace"] });
    const r = resultText(await fx.client.callTool(bare.id, "write", { path: "ts/other.ts", content: 'const n: number = "x";\n' }));
    await transcript(r, "write-without-lsp");
  });

  it("lsp_rename renames across files, all at once, and the servers see the new text", async () => {
    const r = await fx.client.callTool(runId, "lsp_rename", { file: "py/app.py", line: 3, symbol: "greet", new_name: "welcome" });
    expect(r.isError, resultText(r)).toBe(false);
    await transcript(resultText(r), "rename");
    expect(readFileSync(join(workspace, "py/util.py"), "utf8")).toContain("def welcome(name: str)");
    expect(readFileSync(join(workspace, "py/app.py"), "utf8")).toContain('s = "héllo 🎉 wörld"; print(welcome(s))');
    expect(readFileSync(join(workspace, "py/bad.py"), "utf8")).toContain("welcome(42)");
    const def = await lsp({ action: "definition", file: "py/app.py", line: 5, symbol: "welcome" });
    await transcript(def, "definition-after-rename");
  });

  it("files changed on disk behind the server's back are re-synced before the next query", async () => {
    const util = join(workspace, "py/util.py");
    writeFileSync(util, readFileSync(util, "utf8").replace("Says hello to someone.", "Greets warmly."));
    const out = await lsp({ action: "hover", file: "py/app.py", line: 5, symbol: "welcome" });
    expect(out).toContain("Greets warmly.");
  });

  it("lsp_rename refuses what the server cannot rename, changing nothing", async () => {
    const before = readFileSync(join(workspace, "py/app.py"), "utf8");
    const r = await fx.client.callTool(runId, "lsp_rename", { file: "py/app.py", line: 1, symbol: "from", new_name: "x" });
    expect(r.isError).toBe(true);
    // Which refusal depends on how far pyright has got; every one is this code and changes nothing.
    expect(r.errorCode).toBe("failed_precondition");
    expect(readFileSync(join(workspace, "py/app.py"), "utf8")).toBe(before);
  });

  it("a server killed mid-session is restarted by the next call", async () => {
    const pid = pidOf(await lsp({ action: "status" }), "pyright");
    process.kill(hostPidOf(fx.cp.hostAgents.pid("lsph") ?? 0, pid), "SIGKILL");
    // A call racing the death fails with what happened; the one after it gets a new server.
    const racing = await fx.client.callTool(runId, "lsp", { action: "hover", file: "py/app.py", line: 5, symbol: "welcome" });
    // The agent itself never goes down with a server.
    expect(racing.errorCode).not.toBe("agent_lost");
    // Whether the call races the death is timing: when it does, it fails with the dead server's code
    // (a transcript here would be recorded only on runs that happen to race).
    if (racing.isError) expect(racing.errorCode).toBe("lsp_server_dead");
    const out = await lsp({ action: "hover", file: "py/app.py", line: 5, symbol: "welcome" });
    expect(out).toContain("def welcome");
    expect(pidOf(await lsp({ action: "status" }), "pyright")).not.toBe(pid);
  });

  it("reload restarts the root's server", async () => {
    const pid = pidOf(await lsp({ action: "status" }), "clangd");
    const sandbox = sandboxNamespace(fx.cp.hostAgents.pid("lsph") ?? 0);
    expect(sandboxProcesses(sandbox).some((p) => p.innerPid === pid)).toBe(true);
    await transcript(await lsp({ action: "reload", file: "c/main.c" }), "reload-clangd");
    expect(sandboxProcesses(sandbox).some((p) => p.innerPid === pid)).toBe(false);
    expect(await lsp({ action: "definition", file: "c/main.c", line: 5, symbol: "add" })).toContain("c/util.");
  });

  it("a root marker made after a query is honoured by the next query (the root lookup is remembered, not stale)", async () => {
    mkdirSync(join(workspace, "late/deep"), { recursive: true });
    writeFileSync(join(workspace, "late/deep/mod.py"), "late_value = 1\n");
    const none = await lspError({ action: "hover", file: "late/deep/mod.py", line: 1, symbol: "late_value" });
    expect(none.code).toBe("lsp_no_server");
    await transcript(none.text, "late-marker-none");
    writeFileSync(join(workspace, "late/pyproject.toml"), '[project]\nname = "late"\nversion = "0.1.0"\n');
    expect(await lsp({ action: "hover", file: "late/deep/mod.py", line: 1, symbol: "late_value" })).toContain("late_value");
    await transcript(statusLine(await lsp({ action: "status" }), "pyright"), "late-marker-root");
    // A nearer marker made later wins from the next query on.
    writeFileSync(join(workspace, "late/deep/setup.py"), "");
    expect(await lsp({ action: "hover", file: "late/deep/mod.py", line: 1, symbol: "late_value" })).toContain("late_value");
    await transcript(statusLine(await lsp({ action: "status" }), "pyright"), "late-marker-nearer-root");
    await lsp({ action: "reload", file: "late/deep/mod.py" });
    unlinkSync(join(workspace, "late/deep/setup.py"));
    await lsp({ action: "reload", file: "late/deep/mod.py" });
  });
});

describe("lsp broken set", () => {
  it("a server that keeps dying is not respawned in a loop; status says why; reload forgives it", async () => {
    const ws = (await fx.client.createConversation("lsp-broken")).workspacePath;
    writeBrokenServer(ws);
    const run = (await fx.client.openRun("lsp-broken", { approvalPolicy: "never", resources: ["workspace", "lsp"] })).id;
    const texts: string[] = [];
    const codes: string[] = [];
    for (let i = 0; i < 4; i++) {
      const r = await fx.client.callTool(run, "lsp", { action: "hover", file: "broken/x.ts", line: 1, symbol: "x" });
      expect(r.isError).toBe(true);
      texts.push(resultText(r));
      codes.push(r.errorCode);
    }
    // The server's own stderr ("boom: cannot start") is passed on.
    expect(texts[0]).toContain("boom: cannot start");
    expect(codes[3]).toBe("failed_precondition");
    await transcript(`${codes[0]}: ${texts[0]}\n${codes[3]}: ${texts[3]}\n`, "broken-server-calls");
    const status = resultText(await fx.client.callTool(run, "lsp", { action: "status" }));
    await transcript(statusLine(status, "typescript"), "broken-server-status");
    const reload = resultText(await fx.client.callTool(run, "lsp", { action: "reload" }));
    await transcript(reload, "broken-server-reload");
  });

  it("stopping the agent kills every server process", async () => {
    const status = await lsp({ action: "status" });
    const pid = pidOf(status, "typescript");
    const sandbox = sandboxNamespace(fx.cp.hostAgents.pid("lsph") ?? 0);
    expect(sandboxProcesses(sandbox).some((p) => p.innerPid === pid)).toBe(true);
    await fx.cp.hostAgents.stop("lsph");
    await until(() => sandboxProcesses(sandbox).length === 0, "the sandbox of lsph to empty", 10_000);
  });
});
