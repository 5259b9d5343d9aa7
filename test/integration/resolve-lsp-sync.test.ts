// A structural rewrite applied by resolve goes through the language servers like any write: the
// files it changed are synced (so later lsp answers see the new text, not the copy the server had
// open) and the diagnostics it newly introduced are appended to resolve's result.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { ensureHostServers, writeProject } from "../helpers/lsp-fixture.js";
import { type Mask, expectTranscript } from "@enclave/test-kit/transcript.js";

let fx: Fixture;

// Pending-action ids count per control plane.
const MASKS: Mask[] = [[/\bedit_\d+\b/g, "edit_<n>"]];
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
    const before = await call("lsp", { action: "diagnostics", file: "py/util.py" });
    const staged = await call("ast_edit", { pattern: '"hello " + $X', rewrite: "len($X)", path: "py/util.py" });
    const applied = await call("resolve", { action: "apply", reason: "test" });
    // greet is declared to return str; it now returns an int: the apply's answer ends with that error.
    await expectTranscript([before, staged, applied].join("\n---\n"), "transcripts/resolve-lsp-sync/clean-staged-applied.txt", MASKS);
    // The server's open copy follows the file: asked again, it reports the error (pyright's words).
    expect(await call("lsp", { action: "diagnostics", file: "py/util.py" })).toContain('"int" is not assignable');
  });
});
