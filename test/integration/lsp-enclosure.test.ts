// lsp, lsp_rename and diagnostics on write inside a real enclosure (Docker), against the servers
// baked into the runtime image: pyright, typescript-language-server and clangd run next to the code.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { writeProject } from "../helpers/lsp-fixture.js";
import { lspFidelityScenarios } from "../helpers/lsp-scenarios.js";

let fx: Fixture;
let runId: string;
let workspace: string;

process.env.ENCLAVE_LSP_DIAGNOSTICS_WAIT_MS = "30000";

beforeAll(async () => {
  fx = await startFixture();
  workspace = (await fx.client.createConversation("lspe")).workspacePath;
  writeProject(workspace);
  const conv = await fx.client.startEnclosure("lspe");
  expect(conv.placement).toBe("enclosure");
  runId = (await fx.client.openRun("lspe", { approvalPolicy: "never", resources: ["workspace", "shell", "lsp"] })).id;
});
afterAll(async () => fx?.close());

// Faults found against direct clients of the same servers, each from its minimal case.
lspFidelityScenarios("enclosure", () => fx);

async function call(tool: string, args: Record<string, unknown>): Promise<string> {
  const r = await fx.client.callTool(runId, tool, args);
  expect(r.isError, resultText(r)).toBe(false);
  return resultText(r);
}

describe("lsp in an enclosure", () => {
  it("definition and hover through pyright, with non-ASCII text before the symbol", async () => {
    const def = await call("lsp", { action: "definition", file: "py/app.py", line: 3, symbol: "greet" });
    expect(def).toContain("`greet` at py/app.py:3:28");
    expect(def).toContain("py/util.py:1:5  def greet(name: str) -> str:");
    expect(def).not.toContain("/workspace");
    const hover = await call("lsp", { action: "hover", file: "py/app.py", line: 3, symbol: "greet" });
    expect(hover).toContain("Says hello to someone.");
  });

  it("references, symbols and implementation through typescript-language-server", async () => {
    await call("lsp", { action: "diagnostics", file: "ts/main.ts" });
    const refs = await call("lsp", { action: "references", file: "ts/shapes.ts", line: 1, symbol: "Shape" });
    expect(refs).toContain("ts/main.ts:3:41");
    const impl = await call("lsp", { action: "implementation", file: "ts/shapes.ts", line: 1, symbol: "Shape" });
    expect(impl).toContain("ts/shapes.ts:5:14");
    const outline = await call("lsp", { action: "symbols", file: "ts/shapes.ts" });
    expect(outline).toMatch(/class Circle/);
  });

  it("type_definition, code_actions, a workspace search, diagnostics for a file and for the project, and reload", async () => {
    expect(await call("lsp", { action: "type_definition", file: "ts/main.ts", line: 7, symbol: "shape" })).toContain("ts/shapes.ts:1:18");
    expect(await call("lsp", { action: "symbols", query: "Circle", file: "ts/main.ts" })).toMatch(/class Circle.*ts\/shapes\.ts:5:/);
    writeFileSync(join(workspace, "ts/typo.ts"), "export function f(): void {\n  consol.log(1);\n}\n");
    expect(await call("lsp", { action: "diagnostics", file: "ts/typo.ts" })).toMatch(/ts\/typo\.ts:2:3 error \[2552\] Cannot find name 'consol'/);
    expect(await call("lsp", { action: "code_actions", file: "ts/typo.ts", line: 2, symbol: "consol" })).toMatch(/Change spelling to 'console'/);
    expect(await call("lsp", { action: "diagnostics", file: "*" })).toMatch(/\(the project's checker\)/);
    expect(await call("lsp", { action: "reload", file: "ts/main.ts" })).toMatch(/stopped typescript@ts/);
    expect(await call("lsp", { action: "hover", file: "ts/main.ts", line: 4, symbol: "describe" })).toMatch(/function describe\(s: Shape\): string/);
  });

  it("C through clangd: definition with non-ASCII before the symbol, and diagnostics on write", async () => {
    const def = await call("lsp", { action: "definition", file: "c/main.c", line: 5, symbol: "add" });
    expect(def).toMatch(/`add` at c\/main\.c:5:38/);
    expect(def).toMatch(/c\/util\.(h:3:5|c:3:5)/);
    const written = await call("write", { path: "c/oops.c", content: '#include "util.h"\nint g(void) { return add(1); }\n' });
    expect(written).toMatch(/1 new diagnostic in `c\/oops\.c` \(clangd\):\n {2}c\/oops\.c:2:\d+ error .*[Tt]oo few arguments/);
  });

  it("status explains what the image lacks (rust-analyzer, the Dart SDK) and which servers run", async () => {
    const out = await call("lsp", { action: "status" });
    expect(out).toMatch(/pyright \(python\): running\. roots: `py`/);
    expect(out).toMatch(/rust-analyzer \(rust\): missing binary\. `rust-analyzer` is not on PATH here/);
    expect(out).toMatch(/dart \(dart\): missing binary\. `dart` is not on PATH here/);
    expect(out).toMatch(/gopls \(go\): missing root marker\./);
  });

  it("diagnostics on write and the ledger, inside the enclosure", async () => {
    const ok = "export const n: number = 1;\n";
    expect(await call("write", { path: "ts/w.ts", content: ok })).toMatch(/No new diagnostics \(typescript\)/);
    const bad = await call("write", { path: "ts/w.ts", content: 'export const n: number = "one";\n' });
    expect(bad).toMatch(/1 new diagnostic in `ts\/w\.ts` \(typescript\):\n {2}ts\/w\.ts:1:14 error \[2322\]/);
    const moved = await call("write", { path: "ts/w.ts", content: '// moved\n\n\n\nexport const n: number = "one";\n' });
    expect(moved).toMatch(/No new diagnostics/);
  });

  it("lsp_rename applies across files inside, and the host sees every file changed", async () => {
    const out = await call("lsp_rename", { file: "py/util.py", line: 1, symbol: "greet", new_name: "salute" });
    expect(out).toMatch(/Renamed `greet` .* to `salute`: \d+ edits in 2 files \(pyright\)/);
    expect(readFileSync(join(workspace, "py/app.py"), "utf8")).toContain('s = "héllo 🎉 wörld"; print(salute(s))');
    expect(readFileSync(join(workspace, "py/util.py"), "utf8")).toContain("def salute(");
  });

  it("a server killed inside the enclosure is restarted by a later call", async () => {
    const status = await call("lsp", { action: "status" });
    const pid = Number(/clangd \([^)]*\): running\..*?pid (\d+)/.exec(status)?.[1]);
    expect(pid).toBeGreaterThan(0);
    await call("exec", { command: `kill -9 ${pid}` });
    const racing = await fx.client.callTool(runId, "lsp", { action: "definition", file: "c/main.c", line: 5, symbol: "add" });
    // The agent itself never goes down with a server.
    expect(racing.errorCode).not.toBe("agent_lost");
    if (racing.isError) expect(resultText(racing)).toMatch(/clangd language server .*killed by SIGKILL.*; it is restarted on the next call/);
    expect(await call("lsp", { action: "definition", file: "c/main.c", line: 5, symbol: "add" })).toMatch(/c\/util\./);
    expect(await call("lsp", { action: "status" })).not.toMatch(new RegExp(`pid ${pid}\\b`));
  });
});
