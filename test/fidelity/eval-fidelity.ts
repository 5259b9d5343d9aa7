// make fidelity (eval): the whole corpus through Enclave's eval and through Jupyter / Node's REPL,
// on host placement and in an enclosure, with the agreement figures docs/fidelity/eval.md states
// (its table of figures written by the run) and every cell that is neither identical nor a documented
// difference shown side by side. Exits non-zero when such a cell remains.
//   ONLY=python|javascript   one language;  SESSION=substring   only the sessions whose name has it;
//   PLACEMENTS=host|enclosure|host,enclosure (the default);  SHOW=deliberate   also show the cells
//   that differ deliberately. A partial run (ONLY or SESSION) prints its figures but leaves the page alone.
import "./quiet-logs.js";
import { readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";
import { type LanguageReport, pct, runDifferentials, summary } from "./eval-differential.js";
import { type Language, loadSessions } from "./eval-corpus.js";
import type { Part } from "./eval-compare.js";
import { PLACEMENT_RULES } from "./eval-placement.js";
import type { Placement } from "./tool-placements.js";

function show(parts: Part[]): string {
  return parts
    .map((p) =>
      p.kind === "text" ? p.text : p.kind === "image" ? `[image ${p.mime}]` : `[rich ${p.mime}: ${p.text.slice(0, 200)}${p.text.length > 200 ? "…" : ""}]`,
    )
    .join("\n");
}

function indent(text: string): string {
  return text.replace(/^/gm, "    │ ");
}

const BEGIN = "<!-- figures: written by `make fidelity-eval` (test/fidelity/eval-fidelity.ts); do not edit by hand -->";
const END = "<!-- /figures -->";

/** The figures section of docs/fidelity/eval.md: one row per language and placement. */
function figures(reports: LanguageReport[]): string {
  const name = (l: Language): string => (l === "python" ? "Python beside Jupyter" : "JavaScript beside Node's REPL");
  const interp = (r: LanguageReport): string => {
    const what = r.language === "python" ? "Python" : "Node";
    return r.interpreter.enclave === r.interpreter.reference
      ? `${what} ${r.interpreter.enclave} (the reference's)`
      : `${what} ${r.interpreter.enclave}; **the reference's is ${r.interpreter.reference}**`;
  };
  const rows = reports.map((r) => {
    const n = r.cells.length;
    return `| ${name(r.language)} | ${r.placement} | ${interp(r)} | ${n} | ${r.identical} (${pct(r.identical, n)}) | ${r.deliberate} (${pct(r.deliberate, n)}) | ${r.placement === "host" ? "—" : r.placementDifferences} | ${r.unknown} |`;
  });
  const byRule = new Map<string, number>();
  for (const r of reports.filter((x) => x.placement === "enclosure")) {
    for (const c of r.cells) if (c.verdict === "placement") for (const id of c.rules) byRule.set(id, (byRule.get(id) ?? 0) + 1);
  }
  const placementLines = PLACEMENT_RULES.filter((p) => byRule.has(p.id)).map(
    (p) => `- ${p.id} (${byRule.get(p.id)} ${byRule.get(p.id) === 1 ? "cell" : "cells"}): ${p.description}`,
  );
  return [
    BEGIN,
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} cores. The reference runs on the host; Enclave's kernels run on host placement ` +
      "(bubblewrap, the host's interpreters) and in an enclosure (the runtime image's Python, the agent's pinned Node). " +
      "An enclosure's cell that differs from host placement's same cell (which agrees with the reference) only by " +
      "the interpreter's version, where it and its packages are installed or the agent's paths — or that agrees with the reference once those are " +
      "rewritten on both sides — is an *enclosure difference*, not a remaining one.",
    "",
    "| corpus | placement | Enclave's interpreter | cells | identical | deliberate (listed below) | enclosure differences | remaining |",
    "|---|---|---|---|---|---|---|---|",
    ...rows,
    ...(placementLines.length ? ["", "Enclosure differences by kind (a cell may need several):", "", ...placementLines] : []),
    "",
    END,
  ].join("\n");
}

function writeFigures(reports: LanguageReport[]): void {
  const path = join(repoRoot, "docs", "fidelity", "eval.md");
  const page = readFileSync(path, "utf8");
  const start = page.indexOf(BEGIN);
  const end = page.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${path}: no figures markers`);
  writeFileSync(path, page.slice(0, start) + figures(reports) + page.slice(end + END.length));
}

async function main(): Promise<void> {
  const only = process.env.ONLY as Language | undefined;
  const languages: Language[] = only ? [only] : ["python", "javascript"];
  const placements = (process.env.PLACEMENTS ?? "host,enclosure").split(",").filter((p): p is Placement => p === "host" || p === "enclosure");
  const reports: LanguageReport[] = [];
  for (const language of languages) {
    const sessions = loadSessions(language).filter((s) => !process.env.SESSION || s.name.includes(process.env.SESSION));
    process.stderr.write(
      `fidelity: eval ${language}, ${sessions.reduce((n, s) => n + s.cells.length, 0)} cells in ${sessions.length} sessions on ${placements.join(" and ")} …\n`,
    );
    for (const report of await runDifferentials(language, sessions, placements)) {
      reports.push(report);
      for (const c of report.cells) {
        if (c.verdict === "identical" || (c.verdict !== "unknown" && process.env.SHOW !== "deliberate")) continue;
        console.log(
          `\n── ${language} on ${report.placement}, ${c.session} cell ${c.index + 1}: ${c.verdict}${c.rules.length ? ` (${c.rules.join(", ")})` : ""}`,
        );
        console.log(indent(c.code));
        console.log("  enclave:");
        console.log(indent(show(c.enclave)));
        console.log(`  ${language === "python" ? "jupyter" : "node repl"}:`);
        console.log(indent(show(c.reference)));
      }
    }
  }
  console.log("");
  for (const r of reports) console.log(summary(r));
  if (!only && !process.env.SESSION && placements.length) writeFigures(reports);
  if (reports.some((r) => r.unknown > 0)) process.exitCode = 1;
}

main().then(
  // The closed control plane can leave something keeping the event loop alive; the figures are out.
  () => process.exit(),
  (err: unknown) => {
    console.error(`fidelity: ${err instanceof Error ? err.stack : String(err)}`);
    process.exit(1);
  },
);
