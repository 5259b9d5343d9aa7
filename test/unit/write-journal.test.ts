// Crash consistency of multi-file changes: a real agent process killed mid-commit (after its first
// rename) leaves a journal in its state folder; the next agent start on the same state folder completes
// the change, so the files end all new. A crash before the commit point ends all old. The workspace
// never holds a journal. Deletions are journalled too, and checked like every other entry.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { credentials, Metadata } from "@grpc/grpc-js";
import { afterEach, describe, expect, it } from "vitest";
import { AstClient, type ApplyEditsResponse } from "@enclave/proto/gen/enclave/agent/v1/ast.js";
import { agentBundleEntry } from "@enclave/control-plane/repo-paths.js";
import { sha256 } from "@enclave/agent/ast/ast-engine.js";
import { recoverJournals } from "@enclave/agent/fs/write-journal.js";
import { WorkspaceWriter } from "@enclave/agent/fs/workspace-writer.js";
import { WorkspacePaths } from "@enclave/agent/fs/workspace-paths.js";
import { TranscriptLog } from "@enclave/test-kit/transcript-log.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function workspace(): string {
  const d = mkdtempSync(join(tmpdir(), "ast-journal-"));
  dirs.push(d);
  for (const n of ["a", "b", "c"]) writeFileSync(join(d, `${n}.txt`), `old ${n}\n`);
  return d;
}

function stateDir(): string {
  const d = mkdtempSync(join(tmpdir(), "ast-journal-state-"));
  dirs.push(d);
  return d;
}

const journalFiles = (state: string) => readdirSync(join(state, "journal")).filter((n) => n.endsWith(".json"));

function startAgent(ws: string, state: string, env: Record<string, string> = {}) {
  const socket = join(ws, "..", `${ws.split("/").pop()}.sock`);
  dirs.push(socket);
  const child = spawn(process.execPath, [agentBundleEntry, "--socket", socket, "--workspace", ws, "--state-dir", state], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  child.stderr.on("data", (d: Buffer) => (log += d.toString()));
  const client = new AstClient(`unix://${socket}`, credentials.createInsecure());
  const ready = new Promise<void>((resolve, reject) => client.waitForReady(Date.now() + 20_000, (err) => (err ? reject(err) : resolve())));
  return { child, client, ready, log: () => log, socket };
}

function apply(client: AstClient, ws: string): Promise<ApplyEditsResponse> {
  const files = ["a", "b", "c"].map((n) => ({
    path: `${n}.txt`,
    expectedSha256: sha256(readFileSync(join(ws, `${n}.txt`))),
    content: Buffer.from(`new ${n}\n`),
  }));
  return new Promise((resolve, reject) =>
    client.applyEdits({ files }, new Metadata(), { deadline: Date.now() + 20_000 }, (err, res) => (err ? reject(err) : resolve(res as ApplyEditsResponse))),
  );
}

const contents = (ws: string) => ["a", "b", "c"].map((n) => readFileSync(join(ws, `${n}.txt`), "utf8"));

describe("apply journal", () => {
  it("an agent killed after its first rename leaves all new once the next agent starts", async () => {
    const ws = workspace();
    const state = stateDir();
    const a = startAgent(ws, state, { ENCLAVE_TEST_CRASH_AFTER_RENAMES: "1" });
    await a.ready;
    const exited = new Promise<NodeJS.Signals | null>((r) => a.child.on("exit", (_c, sig) => r(sig)));
    await expect(apply(a.client, ws)).rejects.toThrow();
    expect(await exited).toBe("SIGKILL");
    a.client.close();
    // Mid-apply: one file new, two old, a journal saying the change committed.
    expect(contents(ws)).toEqual(["new a\n", "old b\n", "old c\n"]);
    expect(journalFiles(state)).toHaveLength(1);
    expect(existsSync(join(ws, ".enclave"))).toBe(false);

    const b = startAgent(ws, state);
    await b.ready;
    expect(contents(ws)).toEqual(["new a\n", "new b\n", "new c\n"]);
    expect(readdirSync(join(state, "journal"))).toEqual([]);
    expect(readdirSync(ws).filter((n) => n.includes(".tmp"))).toEqual([]);
    // What the agent reported of the recovery (its lines of plain text, not its JSON log records).
    const report = new TranscriptLog();
    report.add(
      "the restarted agent's recovery report",
      b
        .log()
        .split("\n")
        .filter((l) => l.startsWith("enclave-agent: "))
        .join("\n"),
    );
    await report.expect("transcripts/write-journal/recovered.txt");
    b.client.close();
    b.child.kill("SIGTERM");
  });

  it("a crash before the commit point leaves all old and no temporary files", async () => {
    const ws = workspace();
    const dir = join(stateDir(), "journal");
    mkdirSync(dir, { recursive: true });
    const entries = ["a", "b"].map((n, i) => ({ staged: `apply-1-0000abcd.${i}.staged`, target: `${n}.txt`, temp: `.${n}.txt.enclave-0123456789ab.tmp` }));
    for (const e of entries) {
      writeFileSync(join(ws, e.temp), "new\n");
      writeFileSync(join(dir, e.staged), "new\n");
    }
    writeFileSync(join(dir, "apply-1-0000abcd.json"), JSON.stringify({ state: "prepare", entries }));
    expect(await recoverJournals(new WorkspacePaths(ws), dir)).toEqual(["rolled back an apply of 2 files interrupted before its commit"]);
    expect(contents(ws)).toEqual(["old a\n", "old b\n", "old c\n"]);
    expect(readdirSync(ws).sort()).toEqual(["a.txt", "b.txt", "c.txt"]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("applies all files when nothing moved, and none when one did", async () => {
    const ws = workspace();
    const a = startAgent(ws, stateDir());
    await a.ready;
    const files = ["a", "b"].map((n) => ({ path: `${n}.txt`, expectedSha256: sha256(readFileSync(join(ws, `${n}.txt`))), content: Buffer.from(`new ${n}\n`) }));
    writeFileSync(join(ws, "b.txt"), "moved b\n");
    const res = await new Promise<ApplyEditsResponse>((resolve, reject) =>
      a.client.applyEdits({ files }, new Metadata(), { deadline: Date.now() + 20_000 }, (err, r) => (err ? reject(err) : resolve(r as ApplyEditsResponse))),
    );
    expect(res).toMatchObject({ applied: false, diverged: ["b.txt"], filesWritten: 0 });
    expect(contents(ws)).toEqual(["old a\n", "moved b\n", "old c\n"]);
    expect((await apply(a.client, ws)).applied).toBe(true);
    expect(contents(ws)).toEqual(["new a\n", "new b\n", "new c\n"]);
    a.client.close();
    a.child.kill("SIGTERM");
  });

  it("a committed deletion is finished by recovery; a prepared one leaves the file", async () => {
    const ws = workspace();
    const dir = join(stateDir(), "journal");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "apply-1-0000abcd.0.staged"), "new a\n");
    const commit = {
      state: "commit",
      entries: [
        { staged: "apply-1-0000abcd.0.staged", target: "a.txt", temp: ".a.txt.enclave-0123456789ab.tmp" },
        { target: "b.txt", delete: true },
      ],
    };
    writeFileSync(join(dir, "apply-1-0000abcd.json"), JSON.stringify(commit));
    writeFileSync(join(dir, "apply-2-0000abcd.json"), JSON.stringify({ state: "prepare", entries: [{ target: "c.txt", delete: true }] }));
    expect(await recoverJournals(new WorkspacePaths(ws), dir)).toEqual([
      "completed an interrupted apply of 2 files",
      "rolled back an apply of 1 files interrupted before its commit",
    ]);
    expect(readdirSync(ws).sort()).toEqual(["a.txt", "c.txt"]);
    expect(readFileSync(join(ws, "a.txt"), "utf8")).toBe("new a\n");
    expect(readdirSync(dir)).toEqual([]);
  });

  it("refuses a deletion that leaves the workspace, targets the root, or also names a staged copy", async () => {
    const ws = workspace();
    const outside = mkdtempSync(join(tmpdir(), "ast-journal-outside-"));
    dirs.push(outside);
    writeFileSync(join(outside, "victim"), "must survive\n");
    symlinkSync(outside, join(ws, "out"));
    const dir = join(stateDir(), "journal");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "apply-9-0000abcd.0.staged"), "x\n");
    const planted = [
      { target: join(outside, "victim"), delete: true },
      { target: "out/victim", delete: true },
      { target: ".", delete: true },
      { target: "a.txt", delete: true, staged: "apply-9-0000abcd.0.staged", temp: ".a.txt.enclave-0123456789ab.tmp" },
      { target: "a.txt", delete: "yes" },
    ];
    for (const [i, e] of planted.entries()) writeFileSync(join(dir, `apply-${i}-0000000${i}.json`), JSON.stringify({ state: "commit", entries: [e] }));
    const log = await recoverJournals(new WorkspacePaths(ws), dir);
    expect(log).toHaveLength(planted.length);
    // One refusal per planted journal, each saying why; recorded whole.
    const t = new TranscriptLog();
    for (const [i, line] of log.entries()) t.add(JSON.stringify(planted[i]).split(outside).join("<outside>"), line.split(outside).join("<outside>"));
    await t.expect("transcripts/write-journal/refused-journals.txt");
    expect(readFileSync(join(outside, "victim"), "utf8")).toBe("must survive\n");
    expect(contents(ws)).toEqual(["old a\n", "old b\n", "old c\n"]);
  });

  it("refuses a set that changes one file twice, and commits only inside the change's turn", async () => {
    const ws = workspace();
    const dir = join(stateDir(), "journal");
    mkdirSync(dir, { recursive: true });
    const writer = new WorkspaceWriter(new WorkspacePaths(ws), dir);
    const twice = writer.change((commit) =>
      commit([
        { path: "a.txt", rel: "a.txt", content: Buffer.from("1\n") },
        { path: "a.txt", rel: "a.txt", content: null },
      ]),
    );
    await expect(twice).rejects.toMatchObject({ code: "invalid_argument" });
    let late: ((c: []) => Promise<void>) | undefined;
    await writer.change(async (commit) => {
      late = commit;
    });
    await expect(late?.([])).rejects.toMatchObject({ code: "internal" });
    expect(contents(ws)).toEqual(["old a\n", "old b\n", "old c\n"]);
    expect(readdirSync(dir)).toEqual([]);
  });
});
