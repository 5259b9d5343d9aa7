// `make fidelity` (lsp and debug): the full differential run — many positions in each real project and
// every debug program (Python, C, Go) — through Enclave, on host placement and in an enclosure, and
// through direct clients of the same servers and adapters on the host. Writes
// test/fidelity/results/lsp-debug.json (the counts, and both answers of every difference, per
// placement) and the page docs/fidelity/lsp-debug.md, whole; exits non-zero on any unknown disagreement.
//   PLACEMENTS=host|enclosure|host,enclosure (the default);  FIDELITY_PROBES=60 positions per
//   language;  ENCLOSURE_PROBES=n fewer in the enclosure (a subset: the page says so).
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";
import { resultText } from "@enclave/client/control-plane-client.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { ensureHostServers } from "../helpers/lsp-fixture.js";
import { DEBUG_PROGRAMS } from "./lsp-debug-corpus.js";
import { summarize } from "./lsp-differential.js";
import { compactResult, figuresOf, runSuite, type SuiteResult } from "./lsp-debug-suite.js";
import type { Placement } from "./tool-placements.js";

const PROBES = Number(process.env.FIDELITY_PROBES ?? 60);

/** The interpreters and compiler the debug programs run on, asked in the conversation and on the host
 * (where the direct clients run): an enclosure's are the runtime image's. */
const TOOLCHAIN: Record<string, string> = {
  Python: "python3 -c 'import sys; print(sys.version.split()[0])'",
  Go: "go env GOVERSION",
  gcc: "gcc -dumpfullversion",
};

type Toolchain = Record<string, string>;

function hostToolchain(): Toolchain {
  const out: Toolchain = {};
  for (const [name, command] of Object.entries(TOOLCHAIN)) {
    try {
      // The direct debugpy client runs /usr/bin/python3, whatever python3 comes first on this PATH.
      out[name] = execFileSync("sh", ["-c", name === "Python" ? `/usr/bin/${command}` : command], { encoding: "utf8" }).trim();
    } catch {
      out[name] = "none";
    }
  }
  return out;
}

async function conversationToolchain(fx: Fixture, conversation: string): Promise<Toolchain> {
  const runId = (await fx.client.openRun(conversation, { resources: ["shell"], approvalPolicy: "never" })).id;
  const out: Toolchain = {};
  for (const [name, command] of Object.entries(TOOLCHAIN)) {
    const r = await fx.client.callTool(runId, "exec", { command });
    const text = resultText(r).trim().split("\n")[0] ?? "";
    out[name] = r.isError || !/^[\w.+-]+$/.test(text) ? "none" : text;
  }
  return out;
}

/** "Python 3.11.2, Go go1.19.8 (the direct clients' too)" or each that differs in bold with the host's. */
function toolchainText(mine: Toolchain, host: Toolchain): string {
  return Object.keys(TOOLCHAIN)
    .map((name) => (mine[name] === host[name] ? `${name} ${mine[name]}` : `**${name} ${mine[name]}, the direct clients' ${host[name]}**`))
    .join(", ");
}
const ENCLOSURE_PROBES = Number(process.env.ENCLOSURE_PROBES ?? PROBES);

/** One placement's summary line and table. */
function placementSection(result: SuiteResult, probes: number, toolchain: string): string {
  const lsp = summarize(result.lsp);
  const known = Object.values(lsp.known).reduce((n, k) => n + k, 0);
  const stops = result.debug.flatMap((r) => r.stops);
  const stopsAgree = stops.filter((s) => s.verdict === "agree").length;
  const stopsUnknown = stops.filter((s) => s.verdict === "unknown").length;
  const pct = (a: number, b: number): string => ((100 * a) / Math.max(1, b)).toFixed(1);
  const where =
    result.placement === "host"
      ? "Host placement (the servers and adapters on the host, in the sandbox)"
      : "In an enclosure (the servers and adapters the runtime image carries; the direct clients stay on the host, on the same workspace folder)";
  const subset = probes < PROBES ? ` (a subset: the full run asks ${PROBES})` : "";
  return [
    `## ${result.placement === "host" ? "Host placement" : "In an enclosure"}`,
    "",
    `${where}, ${probes} positions per language × hover, definition and references${subset}: ` +
      `**${lsp.agree} of ${lsp.probes} lsp answers identical (${pct(lsp.agree, lsp.probes)} %)**, ` +
      `known differences ${known}, unknown ${lsp.unknown.length}; **${stopsAgree} of ${stops.length} debug stops identical**, ` +
      `known differences ${stops.length - stopsAgree - stopsUnknown}, unknown ${stopsUnknown}. The programs ran on ${toolchain}.`,
    "",
    figuresOf(result),
  ].join("\n");
}

/** The page `make fidelity` writes whole: one section per placement. */
function figuresPage(results: SuiteResult[], toolchains: Map<Placement, string>): string {
  return [
    "# lsp and debug beside direct clients",
    "",
    "<!-- Written whole by `make fidelity` (test/fidelity/lsp-debug-full.ts); do not edit: the next full run replaces it. -->",
    "",
    "What is compared and how each difference is classed: [README.md](README.md#fidelity-against-direct-clients-lsp-and-debug).",
    "",
    `Measured ${new Date().toISOString().slice(0, 10)} on ${cpus().length} cores.`,
    "",
    ...results.flatMap((r) => [placementSection(r, r.placement === "enclosure" ? ENCLOSURE_PROBES : PROBES, toolchains.get(r.placement) ?? "?"), ""]),
  ].join("\n");
}

async function main(): Promise<void> {
  ensureHostServers();
  const placements = (process.env.PLACEMENTS ?? "host,enclosure").split(",").filter((p): p is Placement => p === "host" || p === "enclosure");
  const fx = await startFixture();
  try {
    const results: SuiteResult[] = [];
    const host = hostToolchain();
    const toolchains = new Map<Placement, string>();
    for (const placement of placements) {
      const probesPerLanguage = placement === "enclosure" ? ENCLOSURE_PROBES : PROBES;
      results.push(
        await runSuite(fx, `fidelity-full-${placement}`, { probesPerLanguage, scale: "full", programs: DEBUG_PROGRAMS, placement }, (l) =>
          process.stderr.write(`fidelity: ${placement}: ${l}\n`),
        ),
      );
      toolchains.set(placement, toolchainText(await conversationToolchain(fx, `fidelity-full-${placement}`), host));
      await fx.client.deleteConversation(`fidelity-full-${placement}`).catch(() => undefined);
    }
    const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
    const out = join(root, "test", "fidelity", "results");
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, "lsp-debug.json"), `${JSON.stringify(results.map(compactResult), null, 1)}\n`);
    const page = figuresPage(results, toolchains);
    const docs = join(root, "docs", "fidelity");
    mkdirSync(docs, { recursive: true });
    writeFileSync(join(docs, "lsp-debug.md"), page);
    console.log(page);
    const unknown = results.reduce(
      (n, result) => n + summarize(result.lsp).unknown.length + result.debug.flatMap((r) => r.stops).filter((s) => s.verdict === "unknown").length,
      0,
    );
    if (unknown > 0) {
      process.stderr.write(`fidelity: ${unknown} unknown disagreements (see results/lsp-debug.json)\n`);
      process.exitCode = 1;
    }
  } finally {
    await fx.close();
  }
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
