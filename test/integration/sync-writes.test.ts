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
import { ensureHostServers, writeProject } from "../helpers/lsp-fixture.js";

let fx: Fixture;
beforeAll(async () => {
  ensureHostServers();
  fx = await startFixture();
});
afterAll(async () => fx?.close());

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
      expect(first.files[0]?.newDiagnostics[0]?.message).toMatch(/"Literal\['one'\]" is not assignable to "int"/);
      expect(first.text).toMatch(/^1 new diagnostic in `py\/harness\.py` \(pyright\):\n {2}py\/harness\.py:1:\d+ error/);

      const again = await fx.client.syncWrites(runId, ["py/harness.py"]);
      expect(again.files[0]?.newDiagnostics).toEqual([]);
      expect(again.text).toBe("No new diagnostics (pyright).");

      // Enclave's write keeps the first error and adds one: only the added one is new.
      const out = await enclaveWrite("py/harness.py", 'x: int = "one"\ny: str = 2\n');
      expect(out).toMatch(/1 new diagnostic in `py\/harness\.py` \(pyright\):\n {2}py\/harness\.py:2:\d+ error/);
      expect(out).not.toContain("harness.py:1:");
    });

    it("reports after a harness write only what an earlier Enclave write did not", async () => {
      const out = await enclaveWrite("py/tool.py", 'a: int = "a"\n');
      expect(out).toMatch(/1 new diagnostic in `py\/tool\.py` \(pyright\):\n {2}py\/tool\.py:1:/);
      harnessWrite("py/tool.py", 'a: int = "a"\nb: bytes = 3\n');
      const r = await fx.client.syncWrites(runId, ["py/tool.py"]);
      expect(r.files[0]?.newDiagnostics.map((d) => d.line)).toEqual([2]);
      expect(r.text).toMatch(/^1 new diagnostic in `py\/tool\.py` \(pyright\):\n {2}py\/tool\.py:2:\d+ error/);
      expect(r.text).not.toContain("tool.py:1:");
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
      expect(r.text).toMatch(/^1 new diagnostic in `ts\/harness\.ts` \(typescript\):/);
    });

    it("refuses clearly: a run without lsp, no paths, a path outside the workspace", async () => {
      const bare = (await fx.client.openRun(conv, { resources: ["workspace"] })).id;
      await expect(fx.client.syncWrites(bare, ["py/tool.py"])).rejects.toThrow(/not wired with the lsp resource/);
      await expect(fx.client.syncWrites(runId, [])).rejects.toThrow(/paths is empty/);
      // Each file is answered on its own: one outside the workspace fails, and says why.
      const outside = await fx.client.syncWrites(runId, ["../../etc/passwd"]);
      expect(outside.files).toEqual([
        { path: "../../etc/passwd", state: SyncedFileState.SYNCED_FILE_STATE_FAILED, servers: [], newDiagnostics: [], detail: "`../../etc/passwd` is outside the workspace; give a path relative to the workspace root (/workspace)" },
      ]);
      expect(outside.text).toMatch(/^`\.\.\/\.\.\/etc\/passwd`: diagnostics unavailable \(.* is outside the workspace/);
      await expect(fx.client.syncWrites("no-such-run", ["a.py"])).rejects.toThrow(/run/);
    });
}

describe("SyncWrites on host placement", () => scenario("host"));
describe("SyncWrites inside an enclosure", () => scenario("enclosure"));
