// The supervisor's protocol mechanics against a real process speaking JSON-RPC over stdio (a small
// scripted server, since no real server can be made to stall, crash or fork on cue): a request past
// its deadline is cancelled with $/cancelRequest; a server that dies fails its pending requests with
// the cause; stopping kills the whole process tree; concurrent first calls share one process.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { WorkspacePaths } from "@enclave/agent/fs/workspace-paths.js";
import { freshDiagnostics } from "@enclave/agent/lsp/document-sync.js";
import { ServerConnection } from "@enclave/agent/lsp/server-connection.js";
import type { LanguageServerSpec } from "@enclave/proto/server-registry.js";
import { LspSupervisor } from "@enclave/agent/lsp/supervisor.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";
import { alive, until as waitUntil } from "../helpers/wait.js";

const until = (what: () => boolean, label: string): Promise<true> => waitUntil(() => what() || undefined, label, 5_000);

/** How a request failed, as "code: message" (a request that answered fails the test). */
async function failure(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => new Error("the request was answered"),
    (e: unknown) => e,
  );
  const { code, message } = err as { code?: string; message: string };
  return `${code ?? "no code"}: ${message}`;
}

const dir = mkdtempSync(join(tmpdir(), "enclave-lsp-sup-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Answers initialize; never answers hover or workspace/executeCommand (logs $/cancelRequest); exits
// on "crash"; forks a sleeper (its own child) on "fork" and answers with the child's pid; answers
// "fail" with a JSON-RPC error and "modified" with LSP's ContentModified; pushes one diagnostic for
// a document opened.
const SERVER = `
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const log = process.argv[2];
let buf = Buffer.alloc(0);
const send = (msg) => { const b = Buffer.from(JSON.stringify({ jsonrpc: "2.0", ...msg })); process.stdout.write("Content-Length: " + b.length + "\\r\\n\\r\\n"); process.stdout.write(b); };
process.stdin.on("data", (chunk) => {
  buf = Buffer.concat([buf, chunk]);
  for (;;) {
    const head = buf.indexOf("\\r\\n\\r\\n");
    if (head < 0) return;
    const len = Number(/Content-Length: (\\d+)/i.exec(buf.subarray(0, head).toString())[1]);
    if (buf.length < head + 4 + len) return;
    const msg = JSON.parse(buf.subarray(head + 4, head + 4 + len).toString());
    buf = buf.subarray(head + 4 + len);
    fs.appendFileSync(log, msg.method + "\\n");
    if (msg.method === "initialize") send({ id: msg.id, result: { capabilities: { hoverProvider: true } } });
    else if (msg.method === "shutdown") send({ id: msg.id, result: null });
    else if (msg.method === "exit") process.exit(0);
    else if (msg.method === "crash") { process.stderr.write("segfault in the scripted server\\n"); process.exit(7); }
    else if (msg.method === "index") { send({ method: "$/progress", params: { token: "t1", value: { kind: "begin", title: "indexing" } } }); send({ id: msg.id, result: null }); }
    else if (msg.method === "indexed") { send({ method: "$/progress", params: { token: "t1", value: { kind: "end" } } }); send({ id: msg.id, result: null }); }
    else if (msg.method === "fork") { const c = spawn("sleep", ["300"], { stdio: "ignore" }); send({ id: msg.id, result: c.pid }); }
    else if (msg.method === "fail") send({ id: msg.id, error: { code: -32603, message: "scripted failure" } });
    else if (msg.method === "modified") send({ id: msg.id, error: { code: -32801, message: "content modified" } });
    else if (msg.method === "textDocument/didOpen") send({ method: "textDocument/publishDiagnostics", params: { uri: msg.params.textDocument.uri, version: 1, diagnostics: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, severity: 1, message: "stale" }] } });
  }
});
`;
const script = join(dir, "fake-server.cjs");
writeFileSync(script, SERVER);

function spec(id: string): LanguageServerSpec {
  return {
    id,
    languages: ["fake"],
    extensions: [".fake"],
    rootMarkers: ["fake.toml"],
    command: [process.execPath, script],
    install: "",
    readiness: { strategy: "initialize" },
    pushVersions: "arrival",
  };
}

describe("server connection mechanics", () => {
  it("a request past its deadline fails clearly and is cancelled with $/cancelRequest", async () => {
    const log = join(dir, "cancel.log");
    const s = { ...spec("fake"), command: [process.execPath, script, log] };
    const conn = await ServerConnection.start(s, dir, process.execPath);
    const late = conn.request("textDocument/hover", {}, 300);
    await expectTranscript(await failure(late), "transcripts/lsp-supervisor/request-past-deadline.txt");
    await expect(late).rejects.toMatchObject({ code: "lsp_timeout" });
    await until(() => readFileSync(log, "utf8").includes("$/cancelRequest"), "$/cancelRequest");
    await conn.stop();
  });

  it("work announced with $/progress marks answers as possibly incomplete until it ends", async () => {
    const conn = await ServerConnection.start({ ...spec("fake"), command: [process.execPath, script, join(dir, "progress.log")] }, dir, process.execPath);
    expect(conn.indexing).toBe(false);
    await conn.request("index", {}, 5_000);
    expect(conn.indexing).toBe(true);
    await conn.request("indexed", {}, 5_000);
    expect(conn.indexing).toBe(false);
    await conn.stop();
  });

  it("a server that dies fails its pending requests with the cause and its last words", async () => {
    const log = join(dir, "crash.log");
    const conn = await ServerConnection.start({ ...spec("fake"), command: [process.execPath, script, log] }, dir, process.execPath);
    const pending = conn.request("textDocument/hover", {}, 30_000);
    const crash = conn.request("crash", {}, 30_000);
    // Both carry the exit code and the server's last words ("segfault in the scripted server").
    await expectTranscript(`${await failure(pending)}\n${await failure(crash)}\n`, "transcripts/lsp-supervisor/server-died.txt");
    await expect(pending).rejects.toMatchObject({ code: "lsp_server_dead" });
    await expect(crash).rejects.toMatchObject({ code: "lsp_server_dead" });
    expect(conn.alive).toBe(false);
    await expect(conn.request("textDocument/hover", {}, 1_000)).rejects.toMatchObject({ code: "lsp_server_dead" });
  });

  it("a server that answers with an error is told apart from one that is slow or dead", async () => {
    const conn = await ServerConnection.start({ ...spec("fake"), command: [process.execPath, script, join(dir, "fail.log")] }, dir, process.execPath);
    const failed = conn.request("fail", {}, 5_000);
    await expectTranscript(await failure(failed), "transcripts/lsp-supervisor/server-answered-error.txt");
    await expect(failed).rejects.toMatchObject({ code: "lsp_server_error" });
    await expect(conn.request("modified", {}, 5_000)).rejects.toMatchObject({ code: "lsp_state_changed" });
    expect(conn.alive).toBe(true);
    await conn.stop();
  });

  describe("with every error message reworded", () => {
    beforeAll(() => {
      vi.stubEnv("ENCLAVE_REWORD_ERRORS", "1");
    });
    afterAll(() => {
      vi.unstubAllEnvs();
    });

    it("a diagnostics request that times out gives no diagnostics, not the last (stale) push", async () => {
      const log = join(dir, "reworded.log");
      const conn = await ServerConnection.start({ ...spec("fake"), diagnostics: "tsserver", command: [process.execPath, script, log] }, dir, process.execPath);
      const file = join(dir, "a.fake");
      writeFileSync(file, "x\n");
      const uri = pathToFileURL(file).href;
      conn.notify("textDocument/didOpen", { textDocument: { uri, languageId: "fake", version: 1, text: "x\n" } });
      await until(() => conn.lastPushed(uri) !== undefined, "the server's push");
      const timedOut = conn.request("workspace/executeCommand", {}, 200);
      await expect(timedOut).rejects.toMatchObject({ code: "lsp_timeout", message: expect.stringMatching(/^\[reworded\] /) });
      const synced = { uri, text: "x\n", version: 1, changed: false, syncedAt: Date.now(), fileMtimeMs: Number.POSITIVE_INFINITY };
      expect(await freshDiagnostics(conn, synced, Date.now() + 300)).toBeUndefined();
      await conn.stop();
    });
  });

  it("stop kills the whole process tree, children included", async () => {
    const log = join(dir, "fork.log");
    const conn = await ServerConnection.start({ ...spec("fake"), command: [process.execPath, script, log] }, dir, process.execPath);
    const child = await conn.request<number>("fork", {}, 5_000);
    expect(alive(child)).toBe(true);
    const pid = conn.pid as number;
    await conn.stop();
    await until(() => !alive(pid) && !alive(child), "the server and its child to die");
  });
});

describe("supervisor", () => {
  it("concurrent first calls for one (server, root) share one process", async () => {
    const root = mkdtempSync(join(dir, "ws-"));
    writeFileSync(join(root, "fake.toml"), "");
    const sup = new LspSupervisor(new WorkspacePaths(root));
    const choice = {
      spec: { ...spec("fake"), command: [process.execPath, script, join(dir, "dedupe.log")] },
      root: new WorkspacePaths(root).root,
      binary: process.execPath,
    };
    const conns = await Promise.all([sup.connect(choice), sup.connect(choice), sup.connect(choice)]);
    expect(new Set(conns).size).toBe(1);
    expect(readFileSync(join(dir, "dedupe.log"), "utf8").match(/^initialize$/gm)).toHaveLength(1);
    await sup.stopAll();
    expect(conns[0]?.alive).toBe(false);
  });
});
