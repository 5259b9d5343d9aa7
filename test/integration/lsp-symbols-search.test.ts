// lsp symbols with only `query`, before any server runs: every server whose root marker, binary and
// a file of its language are in the workspace is started and searched, and the answers merged.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { ensureHostServers, writeProject } from "../helpers/lsp-fixture.js";
import { type Mask, expectTranscript } from "@enclave/test-kit/transcript.js";
import { eventually } from "../helpers/wait.js";

let fx: Fixture;

// Where a server binary is installed, and how rust-analyzer is missing, vary between machines.
const MASKS: Mask[] = [
  [/\/\S+ is installed, but/g, "<binary> is installed, but"],
  [/\. \/\S+; starts on the first call/g, ". <binary>; starts on the first call"],
  [/`rust-analyzer` (?:is not on PATH here|resolves to [^;\n]*?but `rust-analyzer --version` fails[^;\n]*)/g, "`rust-analyzer` <missing>"],
];

beforeAll(async () => {
  ensureHostServers();
  fx = await startFixture();
});
afterAll(async () => fx?.close());

async function openWorkspace(id: string, fill: (ws: string) => void): Promise<string> {
  const ws = mkdtempSync(join(tmpdir(), "enclave-lsp-search-"));
  fill(ws);
  await fx.client.createConversation(id, ws);
  return (await fx.client.openRun(id, { resources: ["workspace", "lsp"] })).id;
}

describe("lsp symbols with only a query", () => {
  it("starts the servers the workspace can run and searches across them", async () => {
    const runId = await openWorkspace("search-all", (ws) => {
      writeProject(ws);
      writeFileSync(join(ws, "py", "gadgets.py"), "class GadgetPart:\n    pass\n");
      writeFileSync(join(ws, "ts", "gadget.ts"), "export class GadgetBox {\n  size = 1;\n}\n");
    });
    const status = resultText(await fx.client.callTool(runId, "lsp", { action: "status" }));
    // Nothing runs yet.
    await expectTranscript(status, "transcripts/lsp-symbols-search/status-before.txt", MASKS);
    // A server still indexing when its bounded wait ends is said in the answer, with "ask again
    // shortly": a loaded machine can take longer than that wait, so the test asks again as told.
    let r = await fx.client.callTool(runId, "lsp", { action: "symbols", query: "Gadget" });
    await eventually(
      async () => {
        if (!/still indexing/.test(resultText(r))) return true;
        await new Promise((done) => setTimeout(done, 500));
        r = await fx.client.callTool(runId, "lsp", { action: "symbols", query: "Gadget" });
        return undefined;
      },
      "the servers to finish indexing",
      60_000,
    );
    const text = resultText(r);
    expect(r.isError, text).toBe(false);
    // Both servers' matches, merged.
    await expectTranscript(text, "transcripts/lsp-symbols-search/merged.txt", MASKS);
  });

  it("says what is missing when no server can search the workspace", async () => {
    const runId = await openWorkspace("search-none", (ws) => {
      mkdirSync(join(ws, "notes"));
      writeFileSync(join(ws, "notes", "a.txt"), "nothing to index\n");
    });
    const r = await fx.client.callTool(runId, "lsp", { action: "symbols", query: "Anything" });
    expect(r.errorCode).toBe("lsp_no_server");
    // It says what is missing and what to do next: search with a file (which starts its server) or add a root marker.
    await expectTranscript(resultText(r), "transcripts/lsp-symbols-search/none-can-search.txt", MASKS);
  });
});
