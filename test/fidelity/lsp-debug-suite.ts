// The lsp/debug differential suite, shared by its bounded run in `make test`
// (lsp-debug-fidelity.test.ts) and its full run under `make fidelity` (lsp-debug-full.ts): one
// conversation (host placement, or an enclosure) holding the real projects and the debug programs,
// then every probe through Enclave and through a direct client of the same server or adapter on the host.
import { resultText } from "@enclave/client/control-plane-client.js";
import type { Fixture } from "../helpers/control-plane-fixture.js";
import { type CorpusProject, type CorpusScale, type DebugProgram, type Language, writeCorpus, writeDebugPrograms } from "./lsp-debug-corpus.js";
import { type ProgramRun, runProgram } from "./dap-differential.js";
import { type LanguageRun, pickProbes, runLanguage, summarize } from "./lsp-differential.js";
import type { Placement } from "./tool-placements.js";

export interface SuiteOptions {
  /** Probes per language (each asked as hover, definition and references). */
  probesPerLanguage: number;
  scale: CorpusScale;
  /** The languages asked about (default: every project of the corpus). */
  languages?: readonly Language[];
  programs: readonly DebugProgram[];
  /** Where the conversation runs (default host placement); the direct clients are always on the host. */
  placement?: Placement;
}

export interface SuiteResult {
  placement: Placement;
  projects: CorpusProject[];
  lsp: LanguageRun[];
  debug: ProgramRun[];
}

export async function runSuite(fx: Fixture, conversation: string, opts: SuiteOptions, log: (line: string) => void = () => undefined): Promise<SuiteResult> {
  const { workspacePath: workspace } = await fx.client.createConversation(conversation);
  const projects = writeCorpus(workspace, opts.scale).filter((p) => !opts.languages || opts.languages.includes(p.language));
  writeDebugPrograms(workspace, opts.programs);
  const placement = opts.placement ?? "host";
  // The workspace is the same folder on both placements (an enclosure binds it): the direct clients read it on the host.
  if (placement === "enclosure") await fx.client.startEnclosure(conversation);
  const runId = (await fx.client.openRun(conversation, { resources: ["workspace", "shell", "lsp", "debug"], approvalPolicy: "never" })).id;
  for (const p of opts.programs) {
    if (!p.build) continue;
    const r = await fx.client.callTool(runId, "exec", { command: p.build });
    if (r.isError) throw new Error(`building ${p.program}: ${resultText(r)}`);
  }
  const lsp: LanguageRun[] = [];
  for (const project of projects) {
    const probes = pickProbes(workspace, project, opts.probesPerLanguage);
    const t0 = Date.now();
    const run = await runLanguage(fx, runId, workspace, project, probes);
    const s = summarize([run]);
    log(
      `lsp ${project.language}: ${s.agree}/${s.probes} agree, known ${JSON.stringify(s.known)}, unknown ${s.unknown.length} (${Math.round((Date.now() - t0) / 1000)} s)`,
    );
    lsp.push(run);
  }
  const debug: ProgramRun[] = [];
  for (const p of opts.programs) {
    const run = await runProgram(fx, runId, workspace, p);
    log(`debug ${p.adapter}: ${run.stops.filter((s) => s.verdict === "agree").length}/${run.stops.length} stops agree`);
    debug.push(run);
  }
  return { placement, projects, lsp, debug };
}

/** What the results file keeps: the counts, and every answer that was not identical (both sides). */
export function compactResult(r: SuiteResult): unknown {
  return {
    placement: r.placement,
    projects: r.projects.map((p) => ({ language: p.language, root: p.root, origin: p.origin, files: p.files.length })),
    lsp: r.lsp.map((run) => {
      const s = summarize([run]);
      return { language: run.language, probes: s.probes, identical: s.agree, known: s.known, differences: run.results.filter((x) => x.verdict !== "agree") };
    }),
    debug: r.debug.map((run) => ({
      adapter: run.adapter,
      stops: run.stops.length,
      identical: run.stops.filter((x) => x.verdict === "agree").length,
      differences: run.stops.filter((x) => x.verdict !== "agree"),
    })),
  };
}

/** The table of docs/fidelity/lsp-debug.md. */
export function figuresOf(r: SuiteResult): string {
  const lines: string[] = [];
  for (const run of r.lsp) {
    const s = summarize([run]);
    const project = r.projects.find((p) => p.language === run.language);
    const known = Object.entries(s.known)
      .map(([k, n]) => `${n} ${k}`)
      .join(", ");
    lines.push(
      `| lsp, ${run.language} | ${project?.origin ?? ""} | ${s.probes} | ${s.agree} (${((100 * s.agree) / Math.max(1, s.probes)).toFixed(1)} %) | ${known || "—"} | ${s.unknown.length} |`,
    );
  }
  for (const run of r.debug) {
    const agree = run.stops.filter((s) => s.verdict === "agree").length;
    const known = run.stops.filter((s) => s.verdict !== "agree" && s.verdict !== "unknown").map((s) => s.verdict);
    const unknown = run.stops.filter((s) => s.verdict === "unknown").length;
    lines.push(
      `| debug, ${run.adapter} | stops of a small program | ${run.stops.length} | ${agree} (${((100 * agree) / Math.max(1, run.stops.length)).toFixed(1)} %) | ${known.length ? `${known.length} ${[...new Set(known)].join(", ")}` : "—"} | ${unknown} |`,
    );
  }
  return ["| what | corpus | probes / stops | identical | known differences | unknown |", "|---|---|---|---|---|---|", ...lines].join("\n");
}
