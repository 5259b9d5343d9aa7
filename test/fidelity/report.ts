// The differential suite's figures as text: per corpus, per pattern where the tools disagree, and the
// totals by class; and the page `make fidelity` writes whole (docs/fidelity/ast-grep.md).
import { writeFileSync } from "node:fs";
import type { PlacementOutcome } from "./tool-placements.js";
import {
  agreement,
  CLASS_LABEL,
  type CorpusOutcome,
  DELIBERATE,
  type DisagreementClass,
  KNOWN,
  type PatternOutcome,
  strictAgreement,
  totals,
  type Totals,
} from "./differential.js";

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

/** Each class with a count, labelled: "across comments (deliberate) 506; …". */
export function classLines(t: Totals): string[] {
  return ([...KNOWN, "unknown"] as DisagreementClass[]).filter((c) => t.byClass[c] > 0).map((c) => `${CLASS_LABEL[c]}: ${t.byClass[c]}`);
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
      `disagreements: ${deliberate} deliberate (${DELIBERATE.map((c) => `${c} ${all.byClass[c]}`).join(", ")}), ${all.byClass.unparsed} unparsed, ${all.byClass.unknown} unknown`,
    `agreement on the non-deliberate matches: ${pct(strictAgreement(all))} (${all.both} of ${all.union - deliberate})`,
    "disagreements by class:",
    ...classLines(all).map((l) => `  ${l}`),
  );
  return lines.join("\n");
}

/** The table of figures, with the machine it was measured on. */
export function figuresSection(results: CorpusOutcome[], machine: string): string {
  const rows = results.map((r) => {
    const t = totals(r.patterns);
    const deliberate = DELIBERATE.reduce((n, c) => n + t.byClass[c], 0);
    return `| ${r.corpus.id} (${r.corpus.language}) | ${r.corpus.files.length} | ${(r.corpus.bytes / 1e6).toFixed(1)} | ${r.patterns.length} | ${t.union} | ${t.both} | ${pct(agreement(t))} | ${deliberate} | ${pct(strictAgreement(t))} | ${t.byClass.unparsed} | ${t.byClass.unknown} |`;
  });
  const all = totals(results.flatMap((r) => r.patterns));
  const deliberate = DELIBERATE.reduce((n, c) => n + all.byClass[c], 0);
  const backtrackingPattern = results
    .flatMap((r) => r.patterns)
    .filter((p) => p.pattern === "$F($$$A, $B)")
    .reduce((n, p) => n + p.disagreements.length, 0);
  return [
    `Measured ${machine}. Agreement = matches both tools found ÷ matches either found (file, line, column and text equal); ` +
      "non-deliberate agreement leaves the deliberate differences out of the matches either found.",
    "",
    "| corpus | files | MB | patterns | matches | both | agreement | deliberate differences | non-deliberate agreement | unparsed code | unknown |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
    ...rows,
    `| **all** | ${results.reduce((n, r) => n + r.corpus.files.length, 0)} | ${(results.reduce((n, r) => n + r.corpus.bytes, 0) / 1e6).toFixed(1)} | | ${all.union} | ${all.both} | **${pct(agreement(all))}** | ${deliberate} | **${pct(strictAgreement(all))}** | ${all.byClass.unparsed} | ${all.byClass.unknown} |`,
    "",
    "Disagreements by class:",
    "",
    ...classLines(all).map((l) => `- ${l}`),
    "",
    `${backtrackingPattern} of the disagreements come from the one pattern \`$F($$$A, $B)\`, which matches every call of two or more arguments in Enclave and none in ast-grep.`,
  ].join("\n");
}

/** The figures of the subset run through the `ast_grep` tool, one line per placement. */
export function placementText(outcomes: PlacementOutcome[]): string {
  return outcomes
    .map((p) => {
      const deliberate = DELIBERATE.reduce((n, c) => n + p.totals.byClass[c], 0);
      return (
        `through ast_grep on ${p.placement}: ${p.totals.union} matches, both tools ${p.totals.both} — agreement ${pct(agreement(p.totals))}, ` +
        `non-deliberate ${pct(strictAgreement(p.totals))}; ${deliberate} deliberate, ${p.totals.byClass.unparsed} unparsed, ${p.totals.byClass.unknown} unknown; ` +
        `${p.toolVersusEngine} matches differ from the engine's (${p.files} files, ${p.patterns} pattern runs, ${(p.ms / 1000).toFixed(0)} s)` +
        p.examples.map((e) => `\n  ${e}`).join("")
      );
    })
    .join("\n");
}

/** The per-placement table: the same comparison through the tool, on the subset. */
export function placementSection(outcomes: PlacementOutcome[]): string {
  if (!outcomes.length) return "Not run through the `ast_grep` tool this time (`PLACEMENTS=` was empty).";
  const rows = outcomes.map((p) => {
    const deliberate = DELIBERATE.reduce((n, c) => n + p.totals.byClass[c], 0);
    return `| ${p.placement} | ${p.files} | ${p.patterns} | ${p.totals.union} | ${p.totals.both} | ${pct(agreement(p.totals))} | ${deliberate} | ${pct(strictAgreement(p.totals))} | ${p.totals.byClass.unparsed} | ${p.totals.byClass.unknown} | ${p.toolVersusEngine} |`;
  });
  return [
    "## Through the `ast_grep` tool, per placement",
    "",
    "The table above calls the engine in process. The `make test` subset of every corpus is then written into a workspace and searched with the same " +
      "patterns through the `ast_grep` tool of a real control plane, on host placement and inside an enclosure; each disagreement with ast-grep keeps the class " +
      "the in-process run gave it, and a match where the tool and the engine differ counts as unknown.",
    "",
    "| placement | files | pattern runs | matches | both | agreement | deliberate differences | non-deliberate agreement | unparsed code | unknown | tool ≠ engine |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
    ...rows,
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
