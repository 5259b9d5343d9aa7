// The differential suite's figures as text: per corpus, per pattern where the tools disagree, and the
// totals by class; and the page `make fidelity` writes whole (docs/fidelity/ast-grep.md).
import { writeFileSync } from "node:fs";
import { agreement, type CorpusOutcome, DELIBERATE, type PatternOutcome, totals } from "./differential.js";

function pct(x: number): string {
  return `${(100 * x).toFixed(1)} %`;
}

export function patternLine(o: PatternOutcome): string {
  const t = totals([o]);
  const classes = Object.entries(t.byClass)
    .filter(([, n]) => n > 0)
    .map(([c, n]) => `${c} ${n}`)
    .join(", ");
  return `  ${JSON.stringify(o.pattern)}: enclave ${o.refusedBy === "enclave" ? "refused" : o.ours}, ast-grep ${o.refusedBy === "ast-grep" ? `refused (${o.peerError ?? ""})` : o.peer}, both ${o.both}, agreement ${pct(agreement(t))}${classes ? ` (${classes})` : ""} — read as ${o.reading}`;
}

export function textReport(results: CorpusOutcome[], verbose: boolean): string {
  const lines: string[] = [];
  for (const r of results) {
    const t = totals(r.patterns);
    lines.push(
      `${r.corpus.id} (${r.corpus.language}, ${r.corpus.files.length} files, ${(r.corpus.bytes / 1e6).toFixed(1)} MB, ${r.corpus.root}): agreement ${pct(agreement(t))} of ${t.union} matches`,
    );
    for (const o of r.patterns) if (verbose || o.disagreements.length) lines.push(patternLine(o));
    for (const o of r.patterns) {
      for (const d of o.disagreements.filter((x) => x.class === "unknown").slice(0, 5)) {
        lines.push(`    UNKNOWN ${d.foundBy} only: ${d.file}:${d.line}:${d.column} ${JSON.stringify(d.text.slice(0, 120))}`);
      }
    }
  }
  const all = totals(results.flatMap((r) => r.patterns));
  const deliberate = DELIBERATE.reduce((n, c) => n + all.byClass[c], 0);
  lines.push(
    "",
    `total: ${all.union} matches, both tools ${all.both} — agreement ${pct(agreement(all))}; ` +
      `disagreements: ${deliberate} deliberate (${DELIBERATE.map((c) => `${c} ${all.byClass[c]}`).join(", ")}), ${all.byClass.unknown} unknown`,
  );
  return lines.join("\n");
}

/** The table of figures, with the machine it was measured on. */
export function figuresSection(results: CorpusOutcome[], machine: string): string {
  const rows = results.map((r) => {
    const t = totals(r.patterns);
    const deliberate = DELIBERATE.reduce((n, c) => n + t.byClass[c], 0);
    return `| ${r.corpus.id} (${r.corpus.language}) | ${r.corpus.files.length} | ${(r.corpus.bytes / 1e6).toFixed(1)} | ${r.patterns.length} | ${t.union} | ${t.both} | ${pct(agreement(t))} | ${deliberate} | ${t.byClass.unparsed} | ${t.byClass.unknown} |`;
  });
  const all = totals(results.flatMap((r) => r.patterns));
  const deliberate = DELIBERATE.reduce((n, c) => n + all.byClass[c], 0);
  const backtrackingPattern = results
    .flatMap((r) => r.patterns)
    .filter((p) => p.pattern === "$F($$$A, $B)")
    .reduce((n, p) => n + p.disagreements.length, 0);
  return [
    `Measured ${machine}. Agreement = matches both tools found ÷ matches either found (file, line, column and text equal).`,
    "",
    "| corpus | files | MB | patterns | matches | both | agreement | deliberate differences | unparsed code | unknown |",
    "|---|---|---|---|---|---|---|---|---|---|",
    ...rows,
    `| **all** | ${results.reduce((n, r) => n + r.corpus.files.length, 0)} | ${(results.reduce((n, r) => n + r.corpus.bytes, 0) / 1e6).toFixed(1)} | | ${all.union} | ${all.both} | **${pct(agreement(all))}** | ${deliberate} | ${all.byClass.unparsed} | ${all.byClass.unknown} |`,
    "",
    `Deliberate differences by kind: ${DELIBERATE.filter((c) => c !== "several")
      .map((c) => `${c} ${all.byClass[c]}`)
      .join(", ")}` +
      `${all.byClass.several ? `, several at once ${all.byClass.several}` : ""}. ` +
      `${backtrackingPattern} of them come from the one pattern \`$F($$$A, $B)\`, which matches every call of two or more arguments in Enclave and none in ast-grep.`,
  ].join("\n");
}

/** Writes the figures as a whole page: nothing in it is edited by hand. */
export function writeFiguresPage(path: string, section: string): void {
  const page = [
    "# Structural search beside ast-grep",
    "",
    "<!-- Written whole by `make fidelity` (test/fidelity/run.ts); do not edit: the next full run replaces it. -->",
    "",
    "What is compared and how each disagreement is classed: [README.md](README.md#structural-search-beside-ast-grep).",
    "",
    section,
    "",
  ].join("\n");
  writeFileSync(path, page);
}
