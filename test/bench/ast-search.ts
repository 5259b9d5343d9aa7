// Structural search over a large real corpus: the JavaScript of typescript@5.9.3's lib/ (a pinned
// devDependency), ours through the ast_grep tool (host placement) beside @ast-grep/cli@0.51.1 on the
// same files and pattern, first query and repeated query, with both match counts.
//
// typescript.js (9.1 MB) is left out of the corpus: ast-grep 0.51.1 silently returns no match for
// it here (files over about 9.1 MB), while we search it, so counts on it could not be compared.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resultText } from "../../control-plane/src/client/control-plane-client.js";
import { repoRoot } from "../../control-plane/src/repo-paths.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";

const PATTERN = "if ($X) { return $Y }";
const REPEATS = 7;
const LEFT_OUT = new Set(["typescript.js"]);

function stats(samples: number[]): { median: number; p99: number } {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
  return { median: at(0.5), p99: at(0.99) };
}

function time<T>(fn: () => T): Promise<{ ms: number; value: Awaited<T> }> {
  const t = process.hrtime.bigint();
  return Promise.resolve(fn()).then((value) => ({ ms: Number(process.hrtime.bigint() - t) / 1e6, value }));
}

function makeCorpus(): { dir: string; bytes: number; files: number } {
  const lib = join(repoRoot, "node_modules", "typescript", "lib");
  const dir = mkdtempSync(join(tmpdir(), "enclave-ast-corpus-"));
  let bytes = 0;
  let files = 0;
  for (const name of readdirSync(lib)) {
    if (!name.endsWith(".js") || LEFT_OUT.has(name)) continue;
    copyFileSync(join(lib, name), join(dir, name));
    bytes += statSync(join(dir, name)).size;
    files++;
  }
  return { dir, bytes, files };
}

function astGrepCount(dir: string): number {
  const bin = join(repoRoot, "node_modules", "@ast-grep", "cli", "ast-grep");
  const out = execFileSync(bin, ["run", "--pattern", PATTERN, "--lang", "js", "--json=stream", dir], { maxBuffer: 1 << 30 });
  return out.toString().split("\n").filter((l) => l.trim()).length;
}

export async function astSearchRows(fx: Fixture): Promise<string[][]> {
  const corpus = makeCorpus();
  const rows: string[][] = [];
  try {
    mkdirSync(corpus.dir, { recursive: true });
    await fx.client.createConversation("bench-ast", corpus.dir);
    const run = (await fx.client.openRun("bench-ast", { resources: ["workspace", "ast"] })).id;
    await fx.client.callTool(run, "list", {}); // starts the host agent; grammars stay unloaded
    const ours = async (): Promise<number> => {
      const r = await fx.client.callTool(run, "ast_grep", { pattern: PATTERN, path: "", language: "javascript", max_results: 10_000 });
      if (r.isError) throw new Error(resultText(r));
      return Number(/^(\d+) match/.exec(resultText(r))?.[1] ?? "0");
    };
    const firstOurs = await time(ours);
    const firstPeer = await time(() => astGrepCount(corpus.dir));
    const oursMs: number[] = [];
    const peerMs: number[] = [];
    let oursCount = firstOurs.value;
    let peerCount = firstPeer.value;
    for (let i = 0; i < REPEATS; i++) {
      const o = await time(ours);
      oursMs.push(o.ms);
      oursCount = o.value;
      const p = await time(() => astGrepCount(corpus.dir));
      peerMs.push(p.ms);
      peerCount = p.value;
    }
    const o = stats(oursMs);
    const p = stats(peerMs);
    const mb = (corpus.bytes / 1e6).toFixed(1);
    const label = `ast_grep \`${PATTERN}\`, ${corpus.files} JS files (${mb} MB) of typescript@5.9.3 lib`;
    rows.push([`${label}, first query (ms)`, firstOurs.ms.toFixed(0), "", "@ast-grep/cli 0.51.1", firstPeer.ms.toFixed(0), ""]);
    rows.push([`${label}, repeated x${REPEATS} (ms)`, o.median.toFixed(0), o.p99.toFixed(0), "@ast-grep/cli 0.51.1", p.median.toFixed(0), p.p99.toFixed(0)]);
    rows.push([`  match counts`, String(oursCount), "", "@ast-grep/cli 0.51.1", String(peerCount), oursCount === peerCount ? "equal" : "DIFFERENT"]);
    if (oursCount !== peerCount || firstOurs.value !== oursCount || firstPeer.value !== peerCount) {
      throw new Error(`match counts differ: ours ${firstOurs.value}/${oursCount}, ast-grep ${firstPeer.value}/${peerCount}`);
    }
  } finally {
    await fx.cp.deleteConversation("bench-ast").catch(() => undefined);
    rmSync(corpus.dir, { recursive: true, force: true });
  }
  return rows;
}

// Alone: `node dist/test/bench/ast-search.js`.
if (process.argv[1]?.endsWith("ast-search.js")) {
  const fx = await startFixture();
  try {
    const rows = await astSearchRows(fx);
    const header = ["measure", "ours median", "ours p99", "peer", "peer median", "peer p99"];
    console.log(`| ${header.join(" | ")} |\n|${header.map(() => "---").join("|")}|`);
    for (const r of rows) console.log(`| ${r.join(" | ")} |`);
  } finally {
    await fx.close();
  }
}
