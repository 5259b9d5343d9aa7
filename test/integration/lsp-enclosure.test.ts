// lsp, lsp_rename and diagnostics on write inside a real enclosure (Docker), against the servers
// baked into the runtime image: pyright, typescript-language-server and clangd run next to the code.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { writeProject } from "../helpers/lsp-fixture.js";
import { lspFidelityScenarios } from "../helpers/lsp-scenarios.js";
import { type Mask, expectTranscript } from "@enclave/test-kit/transcript.js";

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

// Server pids and where a binary is installed vary between runs and images.
const MASKS: Mask[] = [
  [/\bpid \d+(?:, \d+)*/g, "pid <pid>"],
  [/\/\S+ is installed, but/g, "<binary> is installed, but"],
];

/** Compares a tool's answer with the recorded one in transcripts/lsp-enclosure/<name>.txt. */
async function transcript(text: string, name: string): Promise<void> {
  await expectTranscript(text, `transcripts/lsp-enclosure/${name}.txt`, MASKS);
}

/** The status line of one server. */
function statusLine(status: string, server: string): string {
  return status.split("\n").find((l) => l.trimStart().startsWith(`${server} (`)) ?? `${server}: no status line in\n${status}`;
}

describe("lsp in an enclosure", () => {
  it("definition and hover through pyright, with non-ASCII text before the symbol", async () => {
    const def = await call("lsp", { action: "definition", file: "py/app.py", line: 3, symbol: "greet" });
    await transcript(def, "definition-non-ascii");
    expect(def).not.toContain("/workspace");
    const hover = await call("lsp", { action: "hover", file: "py/app.py", line: 3, symbol: "greet" });
    expect(hover).toContain("Says hello to someone.");
  });

  it("references, symbols and implementation through typescript-language-server", async () => {
    await call("lsp", { action: "diagnostics", file: "ts/main.ts" });
    const refs = await call("lsp", { action: "references", file: "ts/shapes.ts", line: 1, symbol: "Shape" });
    await transcript(refs, "references");
    const impl = await call("lsp", { action: "implementation", file: "ts/shapes.ts", line: 1, symbol: "Shape" });
    await transcript(impl, "implementation");
    const outline = await call("lsp", { action: "symbols", file: "ts/shapes.ts" });
    await transcript(outline, "symbols-outline");
  });

  it("type_definition, code_actions, a workspace search, diagnostics for a file and for the project, and reload", async () => {
    await transcript(await call("lsp", { action: "type_definition", file: "ts/main.ts", line: 7, symbol: "shape" }), "type-definition");
    await transcript(await call("lsp", { action: "symbols", query: "Circle", file: "ts/main.ts" }), "symbols-search");
    writeFileSync(join(workspace, "ts/typo.ts"), "export function f(): void {\n  consol.log(1);\n}\n");
    await transcript(await call("lsp", { action: "diagnostics", file: "ts/typo.ts" }), "diagnostics-one-file");
    await transcript(await call("lsp", { action: "code_actions", file: "ts/typo.ts", line: 2, symbol: "consol" }), "code-actions");
    // The whole-project checker's findings are its own text; our part is its first line.
    await transcript((await call("lsp", { action: "diagnostics", file: "*" })).split("\n")[0] ?? "", "diagnostics-project-checker");
    await transcript(await call("lsp", { action: "reload", file: "ts/main.ts" }), "reload-typescript");
    // typescript-language-server's own hover text.
    expect(await call("lsp", { action: "hover", file: "ts/main.ts", line: 4, symbol: "describe" })).toContain("function describe(s: Shape): string");
  });

  it("C through clangd: definition with non-ASCII before the symbol, and diagnostics on write", async () => {
    const def = await call("lsp", { action: "definition", file: "c/main.c", line: 5, symbol: "add" });
    // clangd may land on the declaration in the header or the definition: the first line is ours.
    await transcript(def.split("\n")[0] ?? "", "definition-clangd-heading");
    expect(def).toMatch(/c\/util\.(h:3:5|c:3:5)/);
    const written = await call("write", { path: "c/oops.c", content: '#include "util.h"\nint g(void) { return add(1); }\n' });
    await transcript(written, "write-clangd-diagnostic");
  });

  it("status explains what the image lacks (rust-analyzer, the Dart SDK) and which servers run", async () => {
    const out = await call("lsp", { action: "status" });
    await transcript(["pyright", "rust-analyzer", "dart", "gopls"].map((s) => statusLine(out, s)).join("\n"), "status-servers");
  });

  it("diagnostics on write and the ledger, inside the enclosure", async () => {
    const ok = "export const n: number = 1;\n";
    const clean = await call("write", { path: "ts/w.ts", content: ok });
    const bad = await call("write", { path: "ts/w.ts", content: 'export const n: number = "one";\n' });
    const moved = await call("write", { path: "ts/w.ts", content: '// moved\n\n\n\nexport const n: number = "one";\n' });
    await transcript(`${clean}\n---\n${bad}\n---\n${moved}\n`, "write-ledger");
  });

  it("lsp_rename applies across files inside, and the host sees every file changed", async () => {
    const out = await call("lsp_rename", { file: "py/util.py", line: 1, symbol: "greet", new_name: "salute" });
    await transcript(out, "rename");
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
    // Whether the call races the death is timing: when it does, it fails with the dead server's code.
    if (racing.isError) expect(racing.errorCode).toBe("lsp_server_dead");
    expect(await call("lsp", { action: "definition", file: "c/main.c", line: 5, symbol: "add" })).toContain("c/util.");
    expect(await call("lsp", { action: "status" })).not.toMatch(new RegExp(`pid ${pid}\\b`));
  });
});
