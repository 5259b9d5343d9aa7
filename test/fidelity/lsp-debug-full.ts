// `make fidelity` (lsp and debug): the full differential run — many positions in each real project and
// every debug program (Python, C, Go) — through Enclave and through direct clients of the same servers
// and adapters. Writes test/fidelity/results/lsp-debug.{json,md} (the counts, and both answers of
// every difference); exits non-zero on any unknown disagreement.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startFixture } from "../helpers/control-plane-fixture.js";
import { ensureHostServers } from "../helpers/lsp-fixture.js";
import { DEBUG_PROGRAMS } from "./lsp-debug-corpus.js";
import { summarize } from "./lsp-differential.js";
import { compactResult, figuresOf, runSuite } from "./lsp-debug-suite.js";

const PROBES = Number(process.env.FIDELITY_PROBES ?? 60);

async function main(): Promise<void> {
  ensureHostServers();
  const fx = await startFixture();
  try {
    const result = await runSuite(fx, "fidelity-full", { probesPerLanguage: PROBES, scale: "full", programs: DEBUG_PROGRAMS }, (l) => process.stderr.write(`fidelity: ${l}\n`));
    const out = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "test", "fidelity", "results");
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, "lsp-debug.json"), `${JSON.stringify(compactResult(result), null, 1)}\n`);
    const table = figuresOf(result);
    writeFileSync(join(out, "lsp-debug.md"), `${table}\n`);
    console.log(table);
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
