// make fidelity: the differential suite in full — every corpus on this machine, every pattern — with
// Enclave's and ast-grep's figures, each disagreement's class, and docs/fidelity/ast-grep.md written.
// `FIDELITY=subset` runs the bounded subset `make test` runs; `ONLY=go,python` some languages; a
// partial run prints its figures but leaves that page alone. The subset then runs again through the
// `ast_grep` tool on host placement and in an enclosure (`PLACEMENTS=host` for one, `PLACEMENTS=` for
// none), and the page gets each placement's figures.
import "./quiet-logs.js";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";
import { CORPORA, corpus } from "./corpora.js";
import { type CorpusOutcome, runCorpus, totals } from "./differential.js";
import { PATTERNS } from "./patterns.js";
import { figuresSection, placementSection, placementText, textReport, writeFiguresPage } from "./report.js";
import { type Placement, type PlacementOutcome, runThroughTool } from "./tool-placements.js";

async function main(): Promise<void> {
  const mode = process.env.FIDELITY === "subset" ? "subset" : "full";
  const only = (process.env.ONLY ?? "").split(",").filter(Boolean);
  const results: CorpusOutcome[] = [];
  for (const spec of CORPORA) {
    if (only.length && !only.includes(spec.language) && !only.includes(spec.id)) continue;
    const c = corpus(spec, mode);
    if (!c) {
      console.error(`fidelity: ${spec.id}: none of ${spec.roots.join(", ")} is on this machine; left out`);
      continue;
    }
    results.push(await runCorpus(c, PATTERNS[c.language] ?? [], { log: (l) => console.error(`fidelity: ${l}`), keepMatches: mode === "subset" }));
  }
  console.log(textReport(results, process.env.VERBOSE === "1"));

  const placements = (process.env.PLACEMENTS ?? "host,enclosure").split(",").filter((p): p is Placement => p === "host" || p === "enclosure");
  let viaTool: PlacementOutcome[] = [];
  if (placements.length) {
    // The tool runs over the subset: the run's own results when it ran the subset.
    const subset: CorpusOutcome[] = mode === "subset" ? results : [];
    for (const spec of mode === "subset" ? [] : CORPORA) {
      if (only.length && !only.includes(spec.language) && !only.includes(spec.id)) continue;
      const c = corpus(spec, "subset");
      if (c) subset.push(await runCorpus(c, PATTERNS[c.language] ?? [], { keepMatches: true }));
    }
    viaTool = await runThroughTool(subset, placements, (l) => console.error(`fidelity: ${l}`));
    console.log(placementText(viaTool));
  }

  if (mode === "full" && !only.length) {
    const machine = `${new Date().toISOString().slice(0, 10)} on ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, @ast-grep/cli 0.51.1`;
    writeFiguresPage(join(repoRoot, "docs", "fidelity", "ast-grep.md"), [figuresSection(results, machine), placementSection(viaTool)].join("\n\n"));
  }
  const unknown = totals(results.flatMap((r) => r.patterns)).byClass.unknown + viaTool.reduce((n, p) => n + p.totals.byClass.unknown + p.toolVersusEngine, 0);
  if (unknown > 0) process.exitCode = 1;
}

main().then(
  // Something the closed control plane leaves behind keeps the event loop alive; the figures are out
  // and the fixture closed, so nothing is left to wait for.
  () => process.exit(),
  (err: unknown) => {
    console.error(`fidelity: ${err instanceof Error ? err.stack : String(err)}`);
    process.exit(1);
  },
);
