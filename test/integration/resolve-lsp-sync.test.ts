// A structural rewrite applied by resolve goes through the language servers like any write: the
// files it changed are synced (so later lsp answers see the new text, not the copy the server had
// open) and the diagnostics it newly introduced are appended to resolve's result.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { ensureHostServers, writeProject } from "../helpers/lsp-fixture.js";

let fx: Fixture;
let runId: string;

beforeAll(async () => {
  ensureHostServers();
  fx = await startFixture();
  writeProject((await fx.client.createConversation("rsync")).workspacePath);
  runId = (await fx.client.openRun("rsync", { approvalPolicy: "never", resources: ["workspace", "lsp", "ast"] })).id;
});
afterAll(async () => fx?.close());

describe("resolve and the language servers", () => {
  it("syncs the applied files and reports the diagnostics the rewrite introduced", async () => {
    const call = async (tool: string, args: Record<string, unknown>): Promise<string> => {
      const r = await fx.client.callTool(runId, tool, args);
      expect(r.isError, resultText(r)).toBe(false);
      return resultText(r);
    };
    // pyright opens util.py and finds nothing wrong.
    expect(await call("lsp", { action: "diagnostics", file: "py/util.py" })).toMatch(/no (errors or warnings|diagnostics)/i);
    const staged = await call("ast_edit", { pattern: '"hello " + $X', rewrite: "len($X)", path: "py/util.py" });
    expect(staged).toMatch(/\(proposed\) 1 replacement in 1 file/);
    const applied = await call("resolve", { action: "apply", reason: "test" });
    // greet is declared to return str; it now returns an int.
    expect(applied).toMatch(/new diagnostic in `py\/util\.py` \(pyright\):[\s\S]*py\/util\.py:3:\d+ error .*"int" is not assignable to (return type )?"str"/);
    // The server's open copy follows the file: asked again, it reports the error.
    expect(await call("lsp", { action: "diagnostics", file: "py/util.py" })).toMatch(/"int" is not assignable/);
  });
});
