// The differential suite's bounded subset, run by `make test`: Enclave's structural search beside
// @ast-grep/cli over a sample of every corpus on this machine (a few hundred kilobytes each), with
// every pattern. The tools must agree on most matches, and every disagreement must be one of the
// known kinds — a deliberate difference of the engine, a pattern the two read differently, or code
// the grammar cannot parse. Any other disagreement is a bug until shown otherwise: the failure lists
// them. `make fidelity` runs the whole corpora.
import { describe, expect, it } from "vitest";
import { CORPORA, type Corpus, corpus } from "./corpora.js";
import { agreement, type CorpusOutcome, runCorpus, strictAgreement, totals } from "./differential.js";
import { PATTERNS } from "./patterns.js";
import { textReport } from "./report.js";

/** Measured at about 75 % on the subset (most of the rest is `$$$A, $B` backtracking, by design). */
const MIN_AGREEMENT = 0.7;
/** Leaving the deliberate differences out, the two agree on all but code the grammar cannot parse. */
const MIN_STRICT_AGREEMENT = 0.99;

describe("structural search against @ast-grep/cli on real code (subset)", () => {
  it("agrees on most matches, and every disagreement is of a known kind", async () => {
    const corpora = CORPORA.map((s) => corpus(s, "subset")).filter((c): c is Corpus => c !== null);
    // typescript's lib (a devDependency) is always here; the others are this machine's stdlibs.
    expect(corpora.map((c) => c.id)).toContain("typescript-lib-js");
    expect(new Set(corpora.map((c) => c.language)).size, "corpora found").toBeGreaterThanOrEqual(3);

    const results: CorpusOutcome[] = [];
    for (const c of corpora) results.push(await runCorpus(c, PATTERNS[c.language] ?? []));
    const report = textReport(results, false);
    const all = totals(results.flatMap((r) => r.patterns));

    expect(all.union, report).toBeGreaterThan(5000);
    expect(all.byClass.unknown, `disagreements of no known kind:\n${report}`).toBe(0);
    expect(agreement(all), report).toBeGreaterThanOrEqual(MIN_AGREEMENT);
    expect(strictAgreement(all), report).toBeGreaterThanOrEqual(MIN_STRICT_AGREEMENT);
    // Patterns that only parse with the grammar's filler are read, not refused.
    const refused = results.flatMap((r) => r.patterns).filter((p) => p.refusedBy === "enclave");
    expect(refused.map((p) => `${p.language}: ${p.pattern}`)).toEqual([]);
    // Bounded: about 15 s here when the machine is quiet; the margin is for a machine under load.
  }, 600_000);
});
