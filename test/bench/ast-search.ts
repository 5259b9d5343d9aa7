// Structural search over a large real corpus: the JavaScript of typescript@5.9.3's lib/ (a pinned
// devDependency), ours through the ast_grep tool (host placement) beside @ast-grep/cli@0.51.1 on the
// same files and pattern, first query and repeated query, with both match counts.
//
// Each first-query sample is a genuinely first query: a new conversation (so a new host agent, no
// kept trees, grammar not loaded), its agent started by a cheap call, then the search; the samples
// alternate with runs of ast-grep, and the row compares medians (one sample of either is noise here:
// ast-grep alone ranges over about half its median between runs).
//
// typescript.js (9.1 MB) is left out of the corpus: ast-grep 0.51.1 silently returns no match for
// it here (files over about 9.1 MB), while we search it, so counts on it could not be compared.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resultText } from "@enclave/client/control-plane-client.js";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";
import { startFixture } from "../helpers/control-plane-fixture.js";
import { type BenchRow, row, time } from "./measure.js";

const PATTERN = "if ($X) { return $Y }";
const REPEATS = 7;
const FIRST_SAMPLES = 5;
const LEFT_OUT = new Set(["typescript.js"]);

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
  return out
    .toString()
    .split("\n")
    .filter((l) => l.trim()).length;
}

export async function astSearchRows(): Promise<BenchRow[]> {
  const fx = await startFixture();
  const corpus = makeCorpus();
  try {
    mkdirSync(corpus.dir, { recursive: true });
    const counts = { ours: new Set<number>(), peer: new Set<number>() };
    const search = async (run: string): Promise<void> => {
      const r = await fx.client.callTool(run, "ast_grep", { pattern: PATTERN, path: "", language: "javascript", max_results: 10_000 });
      if (r.isError) throw new Error(resultText(r));
      counts.ours.add(Number(/^(\d+) match/.exec(resultText(r))?.[1] ?? "0"));
    };
    const peer = (): void => {
      counts.peer.add(astGrepCount(corpus.dir));
    };
    /** A new conversation whose host agent is running (grammars unloaded, nothing parsed). */
    const fresh = async (id: string): Promise<string> => {
      await fx.client.createConversation(id, corpus.dir);
      const run = (await fx.client.openRun(id, { approvalPolicy: "never", resources: ["workspace", "ast"] })).id;
      await fx.client.callTool(run, "list", {}); // starts the host agent; grammars stay unloaded
      return run;
    };
    const first = { ours: [] as number[], peer: [] as number[] };
    let run = "";
    for (let i = 0; i < FIRST_SAMPLES; i++) {
      const id = `bench-ast-${i}`;
      run = await fresh(id);
      first.ours.push(await time(() => search(run)));
      first.peer.push(await time(peer));
      // The last conversation stays for the repeated queries; the others go (with their agents).
      if (i < FIRST_SAMPLES - 1) await fx.client.deleteConversation(id);
    }
    const oursMs: number[] = [];
    const peerMs: number[] = [];
    for (let i = 0; i < REPEATS; i++) {
      oursMs.push(await time(() => search(run)));
      peerMs.push(await time(peer));
    }
    if (counts.ours.size !== 1 || counts.peer.size !== 1 || [...counts.ours][0] !== [...counts.peer][0]) {
      throw new Error(`match counts differ: ours ${[...counts.ours].join("/")}, ast-grep ${[...counts.peer].join("/")}`);
    }
    const label = `ast_grep \`${PATTERN}\` over ${corpus.files} JS files (${(corpus.bytes / 1e6).toFixed(1)} MB) of typescript@5.9.3 lib`;
    const peerName = "@ast-grep/cli 0.51.1";
    const n = [...counts.ours][0] ?? 0;
    return [
      row(`${label}, first query (median of ${FIRST_SAMPLES}, each in a new conversation)`, first.ours, { name: peerName, samples: first.peer }, { digits: 0 }),
      row(`${label}, repeated ×${REPEATS}`, oursMs, { name: peerName, samples: peerMs }, { digits: 0 }),
      row("ast_grep match count, same corpus", [n], { name: peerName, samples: [n] }, { unit: "matches", digits: 0, note: "equal" }),
    ];
  } finally {
    await fx.close();
    rmSync(corpus.dir, { recursive: true, force: true });
  }
}
