// lsp overhead: hover and definition through the whole control plane (gRPC API → dispatcher → agent
// → pyright) beside a direct vscode-jsonrpc client to the same pyright binary on the same project, in
// one run; and diagnostics after a write (the write tool's whole call) beside the direct client's
// didChange → fresh diagnostics. The control plane runs as its own process (`enclave serve`), as it is
// deployed, logging to a file, with this process as the harness; both sides are warmed up by the same number of calls
// first, so the figures are a serving control plane's, not a fresh process's JIT compilation.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from "vscode-jsonrpc/node";
import { resolveBinary } from "@enclave/agent/exec/resolve-binary.js";
import { startControlPlaneProcess, stopControlPlaneProcess } from "../helpers/control-plane-process.js";
import { ensureHostServers, writeProject } from "../helpers/lsp-fixture.js";
import { type BenchRow, interleaved, row, sample } from "./measure.js";

/** A minimal direct LSP client: what an agent without Enclave would run. */
export async function directPyright(root: string) {
  const bin = resolveBinary("pyright-langserver", root);
  if (!bin) throw new Error("pyright-langserver is not installed (make host-servers)");
  const proc = spawn(bin, ["--stdio"], { cwd: root, stdio: ["pipe", "pipe", "pipe"] });
  proc.stderr.on("data", (d: Buffer) => process.env.BENCH_DEBUG && process.stderr.write(`[pyright] ${d}`));
  const conn = createMessageConnection(new StreamMessageReader(proc.stdout), new StreamMessageWriter(proc.stdin));
  const pushes = new Map<string, (version: number | undefined) => void>();
  conn.onRequest("workspace/configuration", (p: { items: unknown[] }) => p.items.map(() => ({})));
  let pull = false;
  conn.onRequest("client/registerCapability", (p: { registrations?: Array<{ method: string }> }) => {
    if (p.registrations?.some((r) => r.method === "textDocument/diagnostic")) pull = true;
    return null;
  });
  conn.onRequest("window/workDoneProgress/create", () => null);
  // Any other request of the server's (pyright exits when one goes unanswered).
  conn.onRequest(() => null);
  conn.onNotification("window/logMessage", (p: { message: string }) => {
    if (process.env.BENCH_DEBUG) process.stderr.write(`[log] ${p.message}\n`);
  });
  conn.onNotification("textDocument/publishDiagnostics", (p: { uri: string; version?: number }) => pushes.get(p.uri)?.(p.version));
  conn.listen();
  const rootUri = pathToFileURL(root).href;
  const init = await conn.sendRequest<{ capabilities: { diagnosticProvider?: unknown } }>("initialize", {
    processId: process.pid,
    rootUri,
    workspaceFolders: [{ uri: rootUri, name: "bench" }],
    capabilities: {
      textDocument: { publishDiagnostics: { versionSupport: true }, diagnostic: { dynamicRegistration: true }, hover: { contentFormat: ["markdown"] } },
      workspace: { configuration: true },
    },
  });
  await conn.sendNotification("initialized", {});
  await conn.sendNotification("workspace/didChangeConfiguration", { settings: {} });
  pull ||= Boolean(init.capabilities.diagnosticProvider);
  let version = 1;
  return {
    conn,
    open(uri: string, text: string) {
      return conn.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "python", version, text } });
    },
    /** didChange + didSave, then fresh diagnostics: pulled when offered, else the push for this version. */
    async change(uri: string, text: string): Promise<void> {
      version += 1;
      const v = version;
      const pushed = new Promise<void>((resolve) => pushes.set(uri, (got) => (got === undefined || got >= v) && resolve()));
      await conn.sendNotification("textDocument/didChange", { textDocument: { uri, version: v }, contentChanges: [{ text }] });
      await conn.sendNotification("textDocument/didSave", { textDocument: { uri } });
      if (pull) await conn.sendRequest("textDocument/diagnostic", { textDocument: { uri } });
      else await pushed;
    },
    close() {
      conn.dispose();
      proc.kill("SIGKILL");
    },
  };
}

export async function lspBenchRows(): Promise<BenchRow[]> {
  ensureHostServers();
  const dataDir = mkdtempSync(join(tmpdir(), "enclave-lsp-bench-"));
  // Its log goes to a file, as to a collector: this process is the harness, not its log reader.
  const cp = await startControlPlaneProcess(dataDir, {}, 60_000, join(dataDir, "control-plane.log"));
  const client = cp.client;
  const rows: BenchRow[] = [];
  try {
    const ws = (await client.createConversation("lsp-bench")).workspacePath;
    writeProject(ws);
    const runId = (await client.openRun("lsp-bench", { approvalPolicy: "never", resources: ["workspace", "lsp"] })).id;
    const call = async (tool: string, args: Record<string, unknown>): Promise<void> => {
      const r = await client.callTool(runId, tool, args);
      if (r.isError) throw new Error(`${tool}: ${r.parts.map((p) => (p.part?.$case === "text" ? p.part.value : "")).join("")}`);
    };
    const hover = { action: "hover", file: "py/app.py", line: 3, symbol: "greet" };
    const definition = { action: "definition", file: "py/app.py", line: 3, symbol: "greet" };

    const peer = await directPyright(join(ws, "py"));
    const appUri = pathToFileURL(join(ws, "py", "app.py")).href;
    await peer.open(appUri, readFileSync(join(ws, "py", "app.py"), "utf8"));
    // greet on line 3 (0-based 2): `s = "héllo 🎉 wörld"; print(` is 28 UTF-16 units.
    const position = { textDocument: { uri: appUri }, position: { line: 2, character: 28 } };

    // Steady state: a serving control plane is warm from every conversation's calls, and three
    // processes of ours (harness client, control plane, agent) take about 2000 calls to get there
    // (the first 250 of a fresh one are about 3x slower). The direct client gets the same warm-up, and
    // the two are measured in alternating blocks, so a machine that slows down mid-run slows both.
    const s = await interleaved(
      1000,
      50,
      {
        oursHover: () => call("lsp", hover),
        directHover: () => peer.conn.sendRequest("textDocument/hover", position),
        oursDefinition: () => call("lsp", definition),
        directDefinition: () => peer.conn.sendRequest("textDocument/definition", position),
      },
      2000,
    );
    const ours = { hover: s.oursHover, definition: s.oursDefinition };
    const direct = { hover: s.directHover, definition: s.directDefinition };
    for (const what of ["hover", "definition"] as const) {
      rows.push(row(`lsp ${what}, pyright, host`, ours[what], { name: "direct vscode-jsonrpc client", samples: direct[what] }));
    }

    // Each write changes the file (a new error each time), so every sample waits for fresh diagnostics.
    let i = 0;
    const body = (k: number): string => `from util import greet\n\nvalue_${k}: int = greet("x")\n`;
    const oursDiag = await sample(20, () => call("write", { path: "py/w.py", content: body(i++) }), 5);
    const wUri = pathToFileURL(join(ws, "py", "w.py")).href;
    writeFileSync(join(ws, "py", "w2.py"), body(0));
    await peer.open(wUri, body(0));
    const peerDiag = await sample(
      20,
      async () => {
        const text = body(i++);
        writeFileSync(join(ws, "py", "w2.py"), text);
        await peer.change(wUri, text);
      },
      5,
    );
    rows.push(
      row("write + new diagnostics, pyright, host", oursDiag, { name: "direct client: write, didChange, fresh diagnostics", samples: peerDiag }, { digits: 1 }),
    );
    peer.close();
  } finally {
    await stopControlPlaneProcess(cp, "SIGTERM");
    rmSync(dataDir, { recursive: true, force: true });
  }
  return rows;
}
