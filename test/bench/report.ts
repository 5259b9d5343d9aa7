// The benchmark results: a machine-readable JSON file, and a markdown table (ours, the peer, the ratio,
// median and p99) with the date and the machine, written whole as a page of the docs.
import { execFileSync } from "node:child_process";
import { cpus, totalmem } from "node:os";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { type BenchRow, MIN_SAMPLES_FOR_P99 } from "./measure.js";

export interface BenchMachine {
  date: string;
  cores: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  docker: string;
  cgroup: string;
}

export interface BenchResults {
  machine: BenchMachine;
  /** Each row with the bench that measured it (rows recorded before benches were named have none). */
  rows: (BenchRow & { ratio?: number; bench?: string })[];
  failures: { bench: string; error: string }[];
  /** Benches measured again alone after the full run (`make bench ONLY=… RECORD=1`), with when. */
  remeasured?: { bench: string; date: string }[];
}

export function describeMachine(): BenchMachine {
  let docker = "absent";
  try {
    docker = execFileSync("docker", ["version", "--format", "{{.Server.Version}}"], { encoding: "utf8", timeout: 10_000 }).trim();
  } catch {
    // No engine: enclosure rows will have failed and say so.
  }
  return {
    date: new Date().toISOString().slice(0, 10),
    cores: cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? "unknown",
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    docker,
    cgroup: existsSync("/sys/fs/cgroup/cgroup.controllers") ? "v2" : "v1",
  };
}

const fmt = (n: number | undefined, digits: number): string => (n === undefined || Number.isNaN(n) ? "" : n.toFixed(digits));

export function markdownTable(results: BenchResults): string {
  const m = results.machine;
  const lines = [
    `Measured ${m.date} on ${m.cores} cores (${m.cpuModel}), ${m.memoryGiB} GiB, Node ${m.node}, Docker ${m.docker}, cgroup ${m.cgroup}.`,
    "Ratio = our median ÷ the peer's median (below 1: we are faster).",
    "",
    "| measure | ours median | ours p99 | peer | peer median | peer p99 | ratio |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const r of results.rows) {
    const d = r.digits ?? (r.ours.median < 10 ? 2 : 0);
    const name = `${r.measure} (${r.unit})${r.note ? ` — ${r.note}` : ""}`;
    // A p99 of a handful of samples is only their largest: left out rather than printed as one.
    const p99 = (value: number | undefined, n: number | undefined): string => (n !== undefined && n < MIN_SAMPLES_FOR_P99 ? "" : fmt(value, d));
    lines.push(
      `| ${name} | ${fmt(r.ours.median, d)} | ${p99(r.ours.p99, r.samples?.ours.length)} | ${r.peer?.name ?? ""} | ${fmt(r.peer?.median, d)} | ${p99(r.peer?.p99, r.samples?.peer?.length)} | ${fmt(r.ratio, 2)} |`,
    );
  }
  for (const f of results.failures) lines.push(`| ${f.bench}: not measured (${f.error.replace(/\|/g, "/").slice(0, 200)}) | | | | | | |`);
  return lines.join("\n");
}

export function withRatios(rows: BenchRow[]): BenchResults["rows"] {
  return rows.map((r) => ({ ...r, ratio: r.peer && r.peer.median > 0 ? r.ours.median / r.peer.median : undefined }));
}

/**
 * The recorded results with the benches of a partial run (`ran`) replaced by what it measured: their
 * rows and failures go, the new ones take their place (in the benches' order where every row is
 * named, else after the others), and the page says which were measured again and when.
 */
export function recordPartial(recorded: BenchResults, fresh: BenchResults, ran: readonly string[], order: readonly string[]): BenchResults {
  const measures = new Set(fresh.rows.map((r) => r.measure));
  const kept = recorded.rows.filter((r) => !(r.bench && ran.includes(r.bench)) && !measures.has(r.measure));
  let rows = [...kept, ...fresh.rows];
  if (rows.every((r) => r.bench)) rows = rows.sort((a, b) => order.indexOf(a.bench ?? "") - order.indexOf(b.bench ?? ""));
  return {
    machine: recorded.machine,
    rows,
    failures: [...recorded.failures.filter((f) => !ran.includes(f.bench)), ...fresh.failures],
    remeasured: [...(recorded.remeasured ?? []).filter((m) => !ran.includes(m.bench)), ...ran.map((bench) => ({ bench, date: fresh.machine.date }))],
  };
}

/** The page `make bench` writes whole (docs/benchmarks/results.md): nothing in it is edited by hand. */
export function resultsPage(results: BenchResults): string {
  return [
    "# Benchmark results",
    "",
    "<!-- Written whole by `make bench` (test/bench/run-all.ts); do not edit: the next full run replaces it. -->",
    "",
    "How each figure is measured, and what its peer is: [README.md](README.md).",
    "",
    ...(results.remeasured?.length
      ? [`Measured again alone after that run (\`make bench ONLY=… RECORD=1\`): ${results.remeasured.map((m) => `${m.bench} on ${m.date}`).join(", ")}.`, ""]
      : []),
    ...(results.failures.length ? [`Failed in this run: ${results.failures.map((f) => `${f.bench} (${f.error.split("\n")[0]})`).join("; ")}.`, ""] : []),
    markdownTable(results),
    "",
  ].join("\n");
}

/** Writes results.json under dir and the results page at page, each whole. */
export function writeResults(results: BenchResults, dir: string, page: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  mkdirSync(dirname(page), { recursive: true });
  writeFileSync(page, resultsPage(results));
}
