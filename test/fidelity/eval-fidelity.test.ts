// The eval differential suite's bounded subset (the sessions marked `fidelity: quick`): Enclave's eval
// beside Jupyter and Node's REPL on the same cells. Every difference must be identical or one of the
// documented deliberate ones; `make fidelity` runs the whole corpus.
import { describe, expect, it } from "vitest";
import { classify, RULES } from "./eval-compare.js";
import { type Language, loadSessions } from "./eval-corpus.js";
import { type LanguageReport, runDifferential, summary } from "./eval-differential.js";

/** The share of quick cells that must be identical; the quick sessions are the error-heavy ones, so
 * lower than the whole corpus's (measured here: Python 0.57, JavaScript 0.58). */
const IDENTICAL_AT_LEAST: Record<Language, number> = { python: 0.5, javascript: 0.5 };

function unexplained(r: LanguageReport): string {
  return r.cells
    .filter((c) => c.verdict === "unknown")
    .map((c) => `${c.session} cell ${c.index + 1}:\n${c.code}\n-- enclave:\n${JSON.stringify(c.enclave)}\n-- reference:\n${JSON.stringify(c.reference)}`)
    .join("\n\n");
}

describe("eval beside Jupyter and Node's REPL (the quick corpus)", () => {
  for (const language of ["python", "javascript"] as const) {
    it(`agrees with the ${language === "python" ? "Jupyter" : "Node REPL"} reference on every ${language} cell, or differs as documented`, async () => {
      const sessions = loadSessions(language).filter((s) => s.quick);
      expect(sessions.length).toBeGreaterThan(3);
      const report = await runDifferential(language, sessions);
      console.log(summary(report));
      expect(report.unknown, unexplained(report)).toBe(0);
      expect(report.identical / report.cells.length).toBeGreaterThanOrEqual(IDENTICAL_AT_LEAST[language]);
    }, 240_000);
  }

  it("calls a difference no deliberate rule explains unknown", () => {
    const ctx = { enclaveWorkspace: "/w1", referenceWorkspace: "/w2", enclaveCell: 1, referenceCell: 1 };
    const text = (t: string) => [{ kind: "text" as const, text: t }];
    expect(classify("python", "x", text("42"), text("42"), ctx).verdict).toBe("identical");
    expect(classify("python", "x", text("<A object at 0x7f00aa11bb22>"), text("<A object at 0x7f99cc33dd44>"), ctx).verdict).toBe("identical");
    expect(classify("python", "x", text("42"), text("43"), ctx).verdict).toBe("unknown");
    expect(classify("javascript", "x", text("[ 1, 2 ]"), text("[ 1, 3 ]"), ctx).verdict).toBe("unknown");
    const repl = classify("javascript", "let a = 1", text("(no output)"), text("undefined"), ctx);
    expect(repl).toMatchObject({ verdict: "deliberate", rules: ["undefined-echo"] });
    for (const rule of RULES) expect(rule.description.length, rule.id).toBeGreaterThan(40);
  });
});
