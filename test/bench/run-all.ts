// make bench: every benchmark's figures beside its peer's, measured in the same run, written to
// test/bench/results/results.json and, as a table, to docs/benchmarks/results.md. A benchmark that fails is
// reported (and makes the run exit non-zero) without hiding the others' figures.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { astSearchRows } from "./ast-search.js";
import { burstRows } from "./burst-bench.js";
import { debugBenchRows } from "./debug-bench.js";
import { densityRows } from "./density-bench.js";
import { consoleRows } from "./console-bench.js";
import { egressRows } from "./egress-bench.js";
import { enclosureRows } from "./enclosure-bench.js";
import { firstCellRows } from "./first-cell-bench.js";
import { forkRows } from "./fork-bench.js";
import { growthRows } from "./growth-bench.js";
import { writeGrowthPage } from "./growth-page.js";
import { kernelRows } from "./kernel-bench.js";
import { lspBenchRows } from "./lsp-bench.js";
import { pauseRows } from "./pause-bench.js";
import type { BenchRow } from "./measure.js";
import { questionsVibeRows } from "./questions-vibe.js";
import { restRows } from "./rest-bench.js";
import { throughputRows } from "./throughput-bench.js";
import { type BenchResults, describeMachine, markdownTable, recordPartial, withRatios, writeResults } from "./report.js";

/** Each benchmark by name; `make bench ONLY=name,name` runs a subset. */
const BENCHES: Record<string, () => Promise<BenchRow[]>> = {
  enclosure: enclosureRows,
  pause: pauseRows,
  fork: forkRows,
  "questions-vibe": questionsVibeRows,
  "ast-search": astSearchRows,
  lsp: lspBenchRows,
  debug: debugBenchRows,
  kernels: kernelRows,
  "first-cell": firstCellRows,
  console: consoleRows,
  density: densityRows,
  throughput: throughputRows,
  egress: egressRows,
  growth: growthRows,
  burst: burstRows,
  rest: restRows,
};

async function main(): Promise<void> {
  const only = (process.env.ONLY ?? "").split(",").filter(Boolean);
  const unknown = only.filter((n) => !(n in BENCHES));
  if (unknown.length) throw new Error(`unknown benchmark ${unknown.join(", ")}; known: ${Object.keys(BENCHES).join(", ")}`);
  const rows: BenchRow[] = [];
  const failures: BenchResults["failures"] = [];
  for (const [name, bench] of Object.entries(BENCHES)) {
    if (only.length && !only.includes(name)) continue;
    process.stderr.write(`bench: ${name} …\n`);
    try {
      rows.push(...(await bench()).map((r) => ({ ...r, bench: name })));
    } catch (err) {
      failures.push({ bench: name, error: err instanceof Error ? err.message : String(err) });
      process.stderr.write(`bench: ${name} failed: ${err instanceof Error ? err.message : String(err)}\n`);
    }
  }
  const results: BenchResults = { machine: describeMachine(), rows: withRatios(rows), failures };
  const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
  const recordedDir = join(root, "test", "bench", "results");
  const page = join(root, "docs", "benchmarks", "results.md");
  // A partial run (ONLY=…) prints its table and leaves the recorded results alone, unless RECORD=1:
  // then its benches' rows replace theirs in the recorded run (a bench measured again after a fix).
  if (!only.length) writeResults(results, recordedDir, page);
  else if (process.env.RECORD === "1") {
    const recorded = JSON.parse(readFileSync(join(recordedDir, "results.json"), "utf8")) as BenchResults;
    writeResults(recordPartial(recorded, results, only, Object.keys(BENCHES)), recordedDir, page);
  }
  // The growth page and plot are the growth bench's alone: written by a full run, and by one that runs it.
  if (!only.length || only.includes("growth")) writeGrowthPage(results, join(root, "docs", "benchmarks"));
  console.log(markdownTable(results));
  if (failures.length) process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(`bench: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
