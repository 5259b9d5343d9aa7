// make fidelity (eval): the whole corpus through Enclave's eval and through Jupyter / Node's REPL,
// with the agreement figures docs/fidelity/eval.md states and every cell that is neither identical nor a
// documented deliberate difference shown side by side. Exits non-zero when such a cell remains.
//   ONLY=python|javascript   one language;  SESSION=substring   only the sessions whose name has it;
//   SHOW=deliberate          also show the cells that differ deliberately.
import { type LanguageReport, runDifferential, summary } from "./eval-differential.js";
import { type Language, loadSessions } from "./eval-corpus.js";
import type { Part } from "./eval-compare.js";

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

async function main(): Promise<void> {
  const only = process.env.ONLY as Language | undefined;
  const languages: Language[] = only ? [only] : ["python", "javascript"];
  const reports: LanguageReport[] = [];
  for (const language of languages) {
    const sessions = loadSessions(language).filter((s) => !process.env.SESSION || s.name.includes(process.env.SESSION));
    process.stderr.write(`fidelity: eval ${language}, ${sessions.reduce((n, s) => n + s.cells.length, 0)} cells in ${sessions.length} sessions …\n`);
    const report = await runDifferential(language, sessions);
    reports.push(report);
    for (const c of report.cells) {
      if (c.verdict === "identical" || (c.verdict === "deliberate" && process.env.SHOW !== "deliberate")) continue;
      console.log(`\n── ${language} ${c.session} cell ${c.index + 1}: ${c.verdict}${c.rules.length ? ` (${c.rules.join(", ")})` : ""}`);
      console.log(indent(c.code));
      console.log("  enclave:");
      console.log(indent(show(c.enclave)));
      console.log(`  ${language === "python" ? "jupyter" : "node repl"}:`);
      console.log(indent(show(c.reference)));
    }
  }
  console.log("");
  for (const r of reports) console.log(summary(r));
  if (reports.some((r) => r.unknown > 0)) process.exitCode = 1;
}

await main();
