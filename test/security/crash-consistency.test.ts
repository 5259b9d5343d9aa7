// Promise: a multi-file change is all or nothing even when the agent dies in the middle of it. A host
// agent that kills itself after its first rename (a test hook) leaves one file new and the others old;
// once the next agent starts on the same state folder, every file of the change is new — for
// apply_patch (a file deleted and one created included), lsp_rename and resolve alike.
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { ensureHostServers } from "../helpers/lsp-fixture.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";
import { until } from "../helpers/wait.js";

const HOOK = "ENCLAVE_TEST_CRASH_AFTER_RENAMES";
let fx: Fixture;

beforeAll(async () => {
  ensureHostServers();
  fx = await startFixture();
});
afterAll(async () => fx?.close());
afterEach(() => {
  delete process.env[HOOK];
});

function seed(ws: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(dirname(join(ws, rel)), { recursive: true });
    writeFileSync(join(ws, rel), content);
  }
}

/** Each file's content, or null when it does not exist. */
function contents(ws: string, rels: string[]): Array<string | null> {
  return rels.map((r) => (existsSync(join(ws, r)) ? readFileSync(join(ws, r), "utf8") : null));
}

/**
 * A conversation whose host agent will kill itself after the first rename of its next commit: the
 * hook is in the control plane's environment only while that agent starts.
 */
async function crashingConversation(name: string, files: Record<string, string>, resources: string[]): Promise<{ id: string; ws: string; run: string }> {
  const conv = await fx.client.createConversation(name);
  seed(conv.workspacePath, files);
  process.env[HOOK] = "1";
  const run = (await fx.client.openRun(conv.id, { resources, approvalPolicy: "never" })).id;
  const listed = await fx.client.callTool(run, "list", {});
  expect(listed.isError, resultText(listed)).toBe(false);
  delete process.env[HOOK];
  return { id: conv.id, ws: conv.workspacePath, run };
}

/** Waits for the crashed agent to be gone, then starts the next one (which recovers) with a call. */
async function restart(conv: { id: string; run: string }): Promise<string> {
  await until(() => fx.cp.hostAgents.pid(conv.id) === undefined, "the crashed host agent to exit");
  const listed = await fx.client.callTool(conv.run, "list", {});
  expect(listed.isError, resultText(listed)).toBe(false);
  const log = readFileSync(join(fx.dataDir, "logs", `agent-${conv.id}.log`), "utf8");
  expect(readdirSync(join(fx.dataDir, "host-state", conv.id, "journal")), "the journal folder is not empty after recovery").toEqual([]);
  return log;
}

const tempsIn = (ws: string, sub = ""): string[] => readdirSync(join(ws, sub)).filter((n) => n.endsWith(".tmp"));

describe("a host agent killed in the middle of a multi-file change", () => {
  it("apply_patch: all new once the next agent starts (a deletion and a creation included)", async () => {
    const OLD = { "a.txt": "old a\n", "b.txt": "old b\n", "c.txt": "old c\n" };
    const conv = await crashingConversation("crash-patch", OLD, ["workspace"]);
    const patch = [
      "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-old a\n+new a\n",
      "--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-old b\n+new b\n",
      "--- a/c.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-old c\n",
      "--- /dev/null\n+++ b/d.txt\n@@ -0,0 +1 @@\n+new d\n",
    ].join("");
    const r = await fx.client.callTool(conv.run, "apply_patch", { patch });
    expect(r.isError, "the agent did not die mid-commit").toBe(true);
    const rels = ["a.txt", "b.txt", "c.txt", "d.txt"];
    // Mid-commit: the first file renamed, the rest not.
    expect(contents(conv.ws, rels)).toEqual(["new a\n", "old b\n", "old c\n", null]);

    const log = await restart(conv);
    expect(contents(conv.ws, rels)).toEqual(["new a\n", "new b\n", null, "new d\n"]);
    expect(tempsIn(conv.ws)).toEqual([]);
    expect(log).toMatch(/completed an interrupted apply of 4 files/);
  });

  it("lsp_rename: all new once the next agent starts", async () => {
    const files = {
      "py/pyproject.toml": '[project]\nname = "crash"\nversion = "0.1.0"\n',
      "py/util.py": "def greet(name: str) -> str:\n    return 'hello ' + name\n",
      "py/first.py": "from util import greet\n\nprint(greet('a'))\n",
      "py/second.py": "from util import greet\n\nprint(greet('b'))\n",
    };
    const conv = await crashingConversation("crash-rename", files, ["workspace", "lsp"]);
    const rels = ["py/util.py", "py/first.py", "py/second.py"];
    const r = await fx.client.callTool(conv.run, "lsp_rename", { file: "py/util.py", line: 1, symbol: "greet", new_name: "welcome" });
    expect(r.isError, "the agent did not die mid-commit").toBe(true);
    const mid = contents(conv.ws, rels);
    expect(
      mid.filter((c) => c?.includes("welcome")),
      `mid-commit, exactly one file is renamed:\n${mid.join("---\n")}`,
    ).toHaveLength(1);

    const log = await restart(conv);
    const after = contents(conv.ws, rels);
    for (const [i, c] of after.entries()) {
      expect(c, rels[i]).toContain("welcome");
      expect(c, rels[i]).not.toContain("greet");
    }
    expect(tempsIn(conv.ws, "py")).toEqual([]);
    expect(log).toMatch(/completed an interrupted apply of 3 files/);
  });

  it("resolve (a structural apply): all new once the next agent starts", async () => {
    const OLD = "def f(x):\n    return print(x)\n";
    const files = { "a.py": OLD, "b.py": OLD, "c.py": OLD };
    const conv = await crashingConversation("crash-resolve", files, ["workspace", "ast"]);
    const staged = await fx.client.callTool(conv.run, "ast_edit", { pattern: "print($X)", rewrite: "log($X)", path: "", language: "python" });
    await expectTranscript(resultText(staged), "transcripts/crash-consistency/staged.txt");
    const r = await fx.client.callTool(conv.run, "resolve", { action: "apply", reason: "crash" });
    expect(r.isError, "the agent did not die mid-commit").toBe(true);
    const rels = Object.keys(files);
    expect(contents(conv.ws, rels).filter((c) => c === OLD)).toHaveLength(2);

    const log = await restart(conv);
    expect(contents(conv.ws, rels)).toEqual(rels.map(() => "def f(x):\n    return log(x)\n"));
    expect(tempsIn(conv.ws)).toEqual([]);
    expect(log).toMatch(/completed an interrupted apply of 3 files/);
  });
});
