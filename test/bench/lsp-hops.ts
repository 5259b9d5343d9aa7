// A profile of one lsp hover, hop by hop: the whole tool call through the control plane's gRPC API,
// the dispatcher in-process (no API hop), the agent's Lsp.Query called directly (no control plane),
// and a direct vscode-jsonrpc client to the same server. Differences between rows are the hops.
// Run: node dist/test/bench/lsp-hops.js
import { LspQueryKind } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import { startFixture } from "../helpers/control-plane-fixture.js";
import { ensureHostServers, writeProject } from "../helpers/lsp-fixture.js";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { directPyright } from "./lsp-bench.js";
import { figures, sample } from "./measure.js";

/** CPU ms (user + system) of this process and every descendant, by process: less noisy than wall time on a busy machine. */
function treeCpuByProcess(): Map<string, number> {
  const stat = new Map<number, { comm: string; ppid: number; ticks: number }>();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const f = readFileSync(`/proc/${d}/stat`, "utf8");
      const rest = f.slice(f.lastIndexOf(")") + 2).split(" ");
      const comm = f.slice(f.indexOf("(") + 1, f.lastIndexOf(")"));
      stat.set(Number(d), { comm, ppid: Number(rest[1]), ticks: Number(rest[11]) + Number(rest[12]) });
    } catch {
      // gone
    }
  }
  const mine = new Set([process.pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, s] of stat) {
      if (mine.has(pid) || !mine.has(s.ppid)) continue;
      mine.add(pid);
      grew = true;
    }
  }
  const out = new Map<string, number>();
  for (const pid of mine) {
    const s = stat.get(pid);
    if (!s) continue;
    const key = pid === process.pid ? "this process (control plane, client)" : `${s.comm} ${pid}`;
    out.set(key, (out.get(key) ?? 0) + s.ticks * 10);
  }
  return out;
}

function treeCpuMs(): number {
  let ms = 0;
  for (const v of treeCpuByProcess().values()) ms += v;
  return ms;
}

/** CPU ms per call of each process of the tree that used any. */
async function cpuPerCallByProcess(n: number, fn: () => Promise<unknown>): Promise<string> {
  const before = treeCpuByProcess();
  for (let i = 0; i < n; i++) await fn();
  const after = treeCpuByProcess();
  return [...after]
    .map(([k, v]) => [k, (v - (before.get(k) ?? 0)) / n] as const)
    .filter(([, v]) => v > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v.toFixed(2)}`)
    .join(", ");
}

async function cpuPerCall(n: number, fn: () => Promise<unknown>): Promise<number> {
  const t = treeCpuMs();
  for (let i = 0; i < n; i++) await fn();
  return (treeCpuMs() - t) / n;
}

async function main(): Promise<void> {
  ensureHostServers();
  const fx = await startFixture();
  try {
    const ws = (await fx.client.createConversation("lsp-hops")).workspacePath;
    writeProject(ws);
    const runId = (await fx.client.openRun("lsp-hops", { approvalPolicy: "never", resources: ["workspace", "lsp"] })).id;
    const hover = { action: "hover", file: "py/app.py", line: 3, symbol: "greet" };
    const n = Number(process.env.N ?? 200);
    const show = (name: string, s: number[]): void => {
      const f = figures(s);
      console.log(`${name.padEnd(40)} median ${f.median.toFixed(3)} ms  p99 ${f.p99.toFixed(3)} ms`);
    };
    const full = await sample(n, async () => {
      const r = await fx.client.callTool(runId, "lsp", hover);
      if (r.isError) throw new Error(JSON.stringify(r.parts));
    });
    const ep = await fx.cp.placements.endpoint("lsp-hops");
    const direct = await sample(n, () =>
      ep.client.lspQuery(
        { kind: LspQueryKind.LSP_QUERY_KIND_HOVER, file: "py/app.py", line: 3, symbol: "greet", query: "", timeoutMs: 0, maxResults: 0 },
        10_000,
      ),
    );
    const health = await sample(n, () => ep.client.health());
    // The same hover asked by a direct client of its own pyright on the same project (the bench's peer).
    const peer = await directPyright(join(ws, "py"));
    const appUri = pathToFileURL(join(ws, "py", "app.py")).href;
    await peer.open(appUri, readFileSync(join(ws, "py", "app.py"), "utf8"));
    const position = { textDocument: { uri: appUri }, position: { line: 2, character: 28 } };
    await sample(20, () => peer.conn.sendRequest("textDocument/hover", position));
    const peerHover = await sample(n, () => peer.conn.sendRequest("textDocument/hover", position));
    const cpuPeer = await cpuPerCall(n, () => peer.conn.sendRequest("textDocument/hover", position));
    const cpuFull = await cpuPerCall(n, () => fx.client.callTool(runId, "lsp", hover));
    const cpuDirect = await cpuPerCall(n, () =>
      ep.client.lspQuery(
        { kind: LspQueryKind.LSP_QUERY_KIND_HOVER, file: "py/app.py", line: 3, symbol: "greet", query: "", timeoutMs: 0, maxResults: 0 },
        10_000,
      ),
    );
    const cpuHealth = await cpuPerCall(n, () => ep.client.health());
    console.log(
      `agent query, cpu ms per call by process: ${await cpuPerCallByProcess(n, () => ep.client.lspQuery({ kind: LspQueryKind.LSP_QUERY_KIND_HOVER, file: "py/app.py", line: 3, symbol: "greet", query: "", timeoutMs: 0, maxResults: 0 }, 10_000))}`,
    );
    console.log(`direct client, cpu ms per call by process: ${await cpuPerCallByProcess(n, () => peer.conn.sendRequest("textDocument/hover", position))}`);
    // Closed only now: a process that exits takes its CPU time out of the tree's sum.
    peer.close();
    console.log(
      `cpu ms per call (this process tree): tool call ${cpuFull.toFixed(2)}, agent query ${cpuDirect.toFixed(2)}, health ${cpuHealth.toFixed(2)}, direct client ${cpuPeer.toFixed(2)}`,
    );
    show("tool call via control-plane gRPC", full);
    show("agent Lsp.Query direct", direct);
    show("agent Health direct", health);
    show("direct vscode-jsonrpc client to pyright", peerHover);
  } finally {
    await fx.close();
  }
}
main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
