// SyncWrites: diagnostics for files a harness wrote with its own tools, through the gRPC API, with
// the real pyright and typescript-language-server, on host placement and inside a real enclosure
// (bind mode: the harness writes the host folder the enclosure sees). The run's ledger is the one
// Enclave's write tools use, so nothing is reported twice across the two kinds of write.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { SyncedFileState } from "@enclave/client";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { outcome } from "../helpers/call-outcome.js";
import { ensureHostServers, writeProject } from "../helpers/lsp-fixture.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";

let fx: Fixture;
beforeAll(async () => {
  ensureHostServers();
  fx = await startFixture();
});
afterAll(async () => fx?.close());

/** Compares an answer with transcripts/sync-writes/<name>.txt, one file for both placements: the answer must not depend on where the servers run. */
async function transcript(text: string, name: string): Promise<void> {
  await expectTranscript(text, `transcripts/sync-writes/${name}.txt`);
}

function scenario(placement: "host" | "enclosure"): void {
  let runId = "";
  let workspace = "";
  const conv = `syncwrites-${placement}`;

  beforeAll(async () => {
    workspace = (await fx.client.createConversation(conv)).workspacePath;
    writeProject(workspace);
    if (placement === "enclosure") expect((await fx.client.startEnclosure(conv)).placement).toBe("enclosure");
    runId = (await fx.client.openRun(conv, { resources: ["workspace", "lsp"], approvalPolicy: "never" })).id;
    // Start both servers first: a cold start can outlast the diagnostics wait (the answer is then
    // "late", as for Enclave's own writes).
    for (const file of ["py/util.py", "ts/main.ts"]) {
      const r = await fx.client.callTool(runId, "lsp", { action: "diagnostics", file });
      expect(r.isError, resultText(r)).toBe(false);
    }
  }, 300_000);

  /** What the harness's own file tool does: write the file straight into the workspace. */
  function harnessWrite(rel: string, content: string): void {
    writeFileSync(join(workspace, rel), content);
  }

  async function enclaveWrite(path: string, content: string): Promise<string> {
    const r = await fx.client.callTool(runId, "write", { path, content });
    expect(r.isError, resultText(r)).toBe(false);
    return resultText(r);
  }

  it("runs where it should", async () => {
    expect((await fx.client.getConversation(conv)).placement).toBe(placement);
  });

  it("reports a harness write's new pyright diagnostics once, then not again after an Enclave write", async () => {
    harnessWrite("py/harness.py", 'x: int = "one"\n');
    const first = await fx.client.syncWrites(runId, ["py/harness.py"]);
    expect(first.files).toHaveLength(1);
    expect(first.files[0]).toMatchObject({ path: "py/harness.py", state: SyncedFileState.SYNCED_FILE_STATE_FRESH, servers: ["pyright"] });
    expect(first.files[0]?.newDiagnostics).toHaveLength(1);
    expect(first.files[0]?.newDiagnostics[0]).toMatchObject({ path: "py/harness.py", line: 1, severity: "error" });
    // pyright's own message.
    expect(first.files[0]?.newDiagnostics[0]?.message).toContain(`"Literal['one']" is not assignable to "int"`);
    await transcript(first.text, "harness-write-pyright");

    const again = await fx.client.syncWrites(runId, ["py/harness.py"]);
    expect(again.files[0]?.newDiagnostics).toEqual([]);
    await transcript(again.text, "harness-write-again");

    // Enclave's write keeps the first error and adds one: only the added one is new.
    const out = await enclaveWrite("py/harness.py", 'x: int = "one"\ny: str = 2\n');
    await transcript(out, "enclave-write-after-harness");
  });

  it("reports only what a write introduced when the harness announced it first (withSyncedWrite)", async () => {
    const pre = 'a: int = "pre-existing"\n';
    // Unannounced, a file the run never saw reports its old error as new: the contrast.
    harnessWrite("py/unannounced.py", pre);
    harnessWrite("py/unannounced.py", `${pre}# a comment\n`);
    const unannounced = await fx.client.syncWrites(runId, ["py/unannounced.py"]);
    expect(unannounced.files[0]?.newDiagnostics.map((d) => d.line)).toEqual([1]);

    harnessWrite("py/announced.py", pre);
    const comment = await fx.client.withSyncedWrite(runId, ["py/announced.py"], () => {
      harnessWrite("py/announced.py", `${pre}# a comment\n`);
      return "written";
    });
    expect(comment.value).toBe("written");
    expect(comment.sync.files[0]).toMatchObject({ path: "py/announced.py", state: SyncedFileState.SYNCED_FILE_STATE_FRESH, newDiagnostics: [] });

    // A real new error is still reported, alone.
    const added = await fx.client.withSyncedWrite(runId, ["py/announced.py"], () => harnessWrite("py/announced.py", `${pre}# a comment\nb: str = 2\n`));
    expect(added.sync.files[0]?.newDiagnostics.map((d) => ({ line: d.line, severity: d.severity }))).toEqual([{ line: 3, severity: "error" }]);

    // Announcing a file that does not exist yet: everything in it is the write's.
    const created = await fx.client.withSyncedWrite(runId, ["py/created.py"], () => harnessWrite("py/created.py", 'c: int = "new"\n'));
    expect(created.sync.files[0]?.newDiagnostics.map((d) => d.line)).toEqual([1]);
  });

  it("reports after a harness write only what an earlier Enclave write did not", async () => {
    const out = await enclaveWrite("py/tool.py", 'a: int = "a"\n');
    await transcript(out, "enclave-write-first");
    harnessWrite("py/tool.py", 'a: int = "a"\nb: bytes = 3\n');
    const r = await fx.client.syncWrites(runId, ["py/tool.py"]);
    expect(r.files[0]?.newDiagnostics.map((d) => d.line)).toEqual([2]);
    await transcript(r.text, "harness-write-after-enclave");
  });

  it("reports typescript-language-server diagnostics for several files in one call", async () => {
    harnessWrite("ts/harness.ts", 'export const n: number = "s";\n');
    harnessWrite("ts/clean.ts", "export const m: number = 1;\n");
    const r = await fx.client.syncWrites(runId, ["ts/harness.ts", "ts/clean.ts"]);
    const byPath = Object.fromEntries(r.files.map((f) => [f.path, f]));
    expect(byPath["ts/harness.ts"]?.state).toBe(SyncedFileState.SYNCED_FILE_STATE_FRESH);
    expect(byPath["ts/harness.ts"]?.servers).toEqual(["typescript"]);
    expect(byPath["ts/harness.ts"]?.newDiagnostics.map((d) => [d.line, d.severity, d.code])).toEqual([[1, "error", "2322"]]);
    expect(byPath["ts/clean.ts"]).toMatchObject({ state: SyncedFileState.SYNCED_FILE_STATE_FRESH, newDiagnostics: [] });
    await transcript(r.text, "harness-write-typescript-two-files");
  });

  it("refuses clearly: a run without lsp, no paths, a path outside the workspace", async () => {
    const bare = (await fx.client.openRun(conv, { resources: ["workspace"] })).id;
    const unwired = await outcome(fx.client.syncWrites(bare, ["py/tool.py"]));
    expect(unwired.code).toBe("failed_precondition");
    const empty = await outcome(fx.client.syncWrites(runId, []));
    expect(empty.code).toBe("invalid_arguments");
    // Each file is answered on its own: one outside the workspace fails, and says why.
    const outside = await fx.client.syncWrites(runId, ["../../etc/passwd"]);
    expect(outside.files).toHaveLength(1);
    expect(outside.files[0]).toMatchObject({ path: "../../etc/passwd", state: SyncedFileState.SYNCED_FILE_STATE_FAILED, servers: [], newDiagnostics: [] });
    const noRun = await outcome(fx.client.syncWrites("no-such-run", ["a.py"]));
    expect(noRun.code).toBe("not_found");
    await transcript([unwired.message, empty.message, outside.files[0]?.detail ?? "", outside.text, noRun.message].join("\n---\n"), "refusals");
  });
}

describe("SyncWrites on host placement", () => scenario("host"));
describe("SyncWrites inside an enclosure", () => scenario("enclosure"));
