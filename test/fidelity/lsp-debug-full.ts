// `make fidelity` (lsp and debug): the full differential run — many positions in each real project and
// every debug program (Python, C, Go) — through Enclave and through direct clients of the same servers
// and adapters. Writes test/fidelity/results/lsp-debug.json (the counts, and both answers of every
// difference) and the page docs/fidelity/lsp-debug.md, whole; exits non-zero on any unknown disagreement.
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startFixture } from "../helpers/control-plane-fixture.js";
import { ensureHostServers } from "../helpers/lsp-fixture.js";
import { DEBUG_PROGRAMS } from "./lsp-debug-corpus.js";
import { summarize } from "./lsp-differential.js";
import { compactResult, figuresOf, runSuite, type SuiteResult } from "./lsp-debug-suite.js";

const PROBES = Number(process.env.FIDELITY_PROBES ?? 60);

/** The page `make fidelity` writes whole: a summary line of the totals, then the table. */
function figuresPage(result: SuiteResult): string {
  const lsp = summarize(result.lsp);
  const known = Object.values(lsp.known).reduce((n, k) => n + k, 0);
  const stops = result.debug.flatMap((r) => r.stops);
  const stopsAgree = stops.filter((s) => s.verdict === "agree").length;
  const stopsUnknown = stops.filter((s) => s.verdict === "unknown").length;
  const pct = (a: number, b: number): string => ((100 * a) / Math.max(1, b)).toFixed(1);
  return [
    "# lsp and debug beside direct clients",
    "",
    "<!-- Written whole by `make fidelity` (test/fidelity/lsp-debug-full.ts); do not edit: the next full run replaces it. -->",
    "",
    "What is compared and how each difference is classed: [README.md](README.md#fidelity-against-direct-clients-lsp-and-debug).",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} cores, host placement, ${PROBES} positions per language × hover, ` +
      `definition and references: **${lsp.agree} of ${lsp.probes} lsp answers identical (${pct(lsp.agree, lsp.probes)} %)**, ` +
      `known differences ${known}, unknown ${lsp.unknown.length}; **${stopsAgree} of ${stops.length} debug stops identical**, ` +
      `known differences ${stops.length - stopsAgree - stopsUnknown}, unknown ${stopsUnknown}.`,
    "",
    figuresOf(result),
    "",
  ].join("\n");
}

async function main(): Promise<void> {
  ensureHostServers();
  const fx = await startFixture();
  try {
    const result = await runSuite(fx, "fidelity-full", { probesPerLanguage: PROBES, scale: "full", programs: DEBUG_PROGRAMS }, (l) =>
      process.stderr.write(`fidelity: ${l}\n`),
    );
    const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
    const out = join(root, "test", "fidelity", "results");
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, "lsp-debug.json"), `${JSON.stringify(compactResult(result), null, 1)}\n`);
    const page = figuresPage(result);
    const docs = join(root, "docs", "fidelity");
    mkdirSync(docs, { recursive: true });
    writeFileSync(join(docs, "lsp-debug.md"), page);
    console.log(page);
    const unknown = summarize(result.lsp).unknown.length + result.debug.flatMap((r) => r.stops).filter((s) => s.verdict === "unknown").length;
    if (unknown > 0) {
      process.stderr.write(`fidelity: ${unknown} unknown disagreements (see results/lsp-debug.json)\n`);
      process.exitCode = 1;
    }
  } finally {
    await fx.close();
  }
}

main().catch((err: unknown) => {
  console.error(`fidelity: ${err instanceof Error ? err.stack : String(err)}`);
  process.exit(1);
});
