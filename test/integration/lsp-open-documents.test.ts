// A query keeps the server's open documents equal to the disk at the cost of what changed, not of how
// many are open: with many documents open, a query looks at (stats, reads, re-sends) only the queried
// file and the files changed behind the server's back. Against a real process speaking JSON-RPC over
// stdio that logs every message it gets (a scripted server: the count of didChange is the point).
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { WorkspacePaths } from "@enclave/agent/fs/workspace-paths.js";
import { openDocumentWatch, refreshOpenDocuments, syncFromDisk } from "@enclave/agent/lsp/document-sync.js";
import { queuedEventsRead } from "@enclave/agent/lsp/open-document-watch.js";
import { ServerConnection } from "@enclave/agent/lsp/server-connection.js";
import type { LanguageServerSpec } from "@enclave/proto/server-registry.js";

const dir = mkdtempSync(join(tmpdir(), "enclave-lsp-open-"));
const ws = join(dir, "ws");
const log = join(dir, "messages.log");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Logs each message's method and document uri, one a line.
const SERVER = `
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
    fs.appendFileSync(log, msg.method + " " + ((msg.params && msg.params.textDocument && msg.params.textDocument.uri) || "") + "\\n");
    if (msg.method === "initialize") send({ id: msg.id, result: { capabilities: { hoverProvider: true, textDocumentSync: 1 } } });
    else if (msg.method === "shutdown") send({ id: msg.id, result: null });
    else if (msg.method === "exit") process.exit(0);
    else if (msg.id !== undefined) send({ id: msg.id, result: null });
  }
});
`;

const FOLDERS = 10;
const PER_FOLDER = 20;
const fileOf = (f: number, i: number): string => `pkg${f}/mod${i}.fake`;

let conn: ServerConnection;
let paths: WorkspacePaths;

/** What the server got since the last call: [method, uri] pairs (requests and notifications). */
let seen = 0;
function received(): string[][] {
  const lines = readFileSync(log, "utf8").split("\n").filter(Boolean);
  const out = lines.slice(seen).map((l) => l.split(" "));
  seen = lines.length;
  return out;
}

/** One query the way the Lsp service does it: the queried file, then the others that changed. */
async function query(rel: string): Promise<void> {
  const abs = join(ws, rel);
  await queuedEventsRead();
  const doc = await syncFromDisk(paths, conn, abs, rel, "fake", false);
  await refreshOpenDocuments(paths, conn, () => "fake", doc.uri);
  // The server answers the query after every notification before it, so the log is complete then.
  await conn.request("textDocument/hover", { textDocument: { uri: doc.uri }, position: { line: 0, character: 0 } }, 5_000);
}

const uri = (rel: string): string => pathToFileURL(join(ws, rel)).href;

beforeAll(async () => {
  for (let f = 0; f < FOLDERS; f++) {
    mkdirSync(join(ws, `pkg${f}`), { recursive: true });
    for (let i = 0; i < PER_FOLDER; i++) writeFileSync(join(ws, fileOf(f, i)), `v1 ${f} ${i}\n`);
  }
  writeFileSync(join(dir, "server.cjs"), SERVER);
  const spec: LanguageServerSpec = {
    id: "fake",
    languages: ["fake"],
    extensions: [".fake"],
    rootMarkers: [],
    command: [process.execPath, join(dir, "server.cjs"), log],
    install: "",
    readiness: { strategy: "initialize" },
    pushVersions: "arrival",
  };
  paths = new WorkspacePaths(ws);
  conn = await ServerConnection.start(spec, ws, process.execPath);
  // The every-few-seconds backstop sweep would look at every document by design; this proves the
  // per-query path, on a machine of any speed.
  openDocumentWatch(conn).sweepMs = Number.POSITIVE_INFINITY;
  for (let f = 0; f < FOLDERS; f++) for (let i = 0; i < PER_FOLDER; i++) await query(fileOf(f, i));
  expect(conn.openUris()).toHaveLength(FOLDERS * PER_FOLDER);
  received();
});

afterAll(async () => {
  await conn.stop();
});

describe("a query with many documents open", () => {
  it("looks at no other open document when nothing changed: no stat, no read, no didChange", async () => {
    const stat = vi.spyOn(paths, "stat");
    const read = vi.spyOn(paths, "readFile");
    try {
      for (let k = 0; k < 5; k++) await query(fileOf(3, 7));
      // Not one per open document: at most the queried file's own.
      expect(stat.mock.calls.length).toBeLessThanOrEqual(5);
      expect(read).not.toHaveBeenCalled();
    } finally {
      stat.mockRestore();
      read.mockRestore();
    }
    expect(received().filter(([m]) => m !== "textDocument/hover")).toEqual([]);
    // One watch per folder, not per document.
    expect(openDocumentWatch(conn).watchesMade).toBe(FOLDERS);
  });

  it("re-sends exactly the documents changed on disk behind its back, and closes a deleted one", async () => {
    writeFileSync(join(ws, fileOf(5, 2)), "v2 changed by exec\n");
    writeFileSync(join(ws, fileOf(9, 19)), "v2 changed by a kernel\n");
    unlinkSync(join(ws, fileOf(1, 0)));
    const stat = vi.spyOn(paths, "stat");
    try {
      await query(fileOf(0, 0));
      expect(stat.mock.calls.length).toBeLessThanOrEqual(6);
    } finally {
      stat.mockRestore();
    }
    const got = received().filter(([m]) => m !== "textDocument/hover");
    expect(got).toEqual(
      expect.arrayContaining([
        ["textDocument/didChange", uri(fileOf(5, 2))],
        ["textDocument/didChange", uri(fileOf(9, 19))],
        ["textDocument/didClose", uri(fileOf(1, 0))],
      ]),
    );
    expect(got).toHaveLength(3);
    expect(conn.openText(uri(fileOf(5, 2)))).toBe("v2 changed by exec\n");
  });

  it("the queried file itself is read again when it changed", async () => {
    writeFileSync(join(ws, fileOf(3, 7)), "v2 the queried file\n");
    await query(fileOf(3, 7));
    expect(received().filter(([m]) => m !== "textDocument/hover")).toEqual([["textDocument/didChange", uri(fileOf(3, 7))]]);
    expect(conn.openText(uri(fileOf(3, 7)))).toBe("v2 the queried file\n");
  });

  it("a folder replaced under the documents (moved away, made again) still brings them up to date", async () => {
    renameSync(join(ws, "pkg6"), join(ws, "pkg6-old"));
    mkdirSync(join(ws, "pkg6"));
    for (let i = 0; i < PER_FOLDER; i++) writeFileSync(join(ws, fileOf(6, i)), i === 4 ? "v2 in the new folder\n" : `v1 6 ${i}\n`);
    await query(fileOf(0, 1));
    expect(conn.openText(uri(fileOf(6, 4)))).toBe("v2 in the new folder\n");
    // And the new folder is watched from then on: a later change there is seen.
    received();
    writeFileSync(join(ws, fileOf(6, 5)), "v3 after the move\n");
    await query(fileOf(0, 1));
    expect(conn.openText(uri(fileOf(6, 5)))).toBe("v3 after the move\n");
  });
});
