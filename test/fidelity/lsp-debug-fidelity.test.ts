// The bounded run of the lsp/debug differential suite (the full one is `make fidelity`, which adds
// grpc-js's TypeScript — its project takes tsserver seconds to load — and the Go program): a few
// positions in real projects (attrs, Go's container packages, the Go runtime's C) asked of Enclave's
// lsp and of a direct client of the same server, and two small programs stepped through Enclave's
// debug and a direct DAP client of the same adapter. Every disagreement must be a known,
// deliberate one (a cap Enclave states); an unknown one fails, with both answers shown.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { ensureHostServers } from "../helpers/lsp-fixture.js";
import { DEBUG_PROGRAMS } from "./lsp-debug-corpus.js";
import { summarize } from "./lsp-differential.js";
import { runSuite, type SuiteResult } from "./lsp-debug-suite.js";

let fx: Fixture;
let result: SuiteResult;

beforeAll(async () => {
  ensureHostServers();
  const started = Date.now();
  fx = await startFixture();
  result = await runSuite(
    fx,
    "fidelity-subset",
    { probesPerLanguage: 3, scale: "subset", languages: ["python", "go", "c"], programs: DEBUG_PROGRAMS.filter((p) => p.adapter !== "delve") },
    (l) => {
      if (process.env.FIDELITY_TRACE) process.stderr.write(`fidelity: ${l} (${Math.round((Date.now() - started) / 1000)} s)\n`);
    },
  );
}, 600_000);
afterAll(async () => fx?.close());

describe("lsp and debug against direct clients of the same servers and adapters", () => {
  it("lsp: hover, definition and references agree on every probe, or differ only as Enclave says it does", () => {
    const s = summarize(result.lsp);
    expect(s.probes).toBe(3 * 3 * 3);
    expect(s.unknown, JSON.stringify(s.unknown, null, 1)).toEqual([]);
    if (process.env.FIDELITY_TRACE)
      console.log(
        JSON.stringify(
          result.lsp.flatMap((r) => r.results.filter((x) => x.verdict !== "agree")),
          null,
          1,
        ),
      );
  });

  it("debug: every stop's location, stack and locals agree, or differ only where Enclave says it cut a value", () => {
    for (const run of result.debug) {
      expect(run.stops.length, run.adapter).toBeGreaterThan(2);
      const unknown = run.stops.filter((s) => s.verdict === "unknown");
      expect(unknown, `${run.adapter}: ${JSON.stringify(unknown, null, 1)}`).toEqual([]);
    }
  });
});
