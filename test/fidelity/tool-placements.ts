// The differential suite through the `ast_grep` tool itself, on host placement and inside an enclosure:
// the suite's own comparison calls the engine in process, so this runs the same patterns over the same
// files through a real control plane and agent on each placement, and compares the tool's matches
// with the engine's and with ast-grep's (each disagreement keeps the class the in-process run gave it;
// a match only the tool found or missed is "unknown").
import { resultText } from "@enclave/client/control-plane-client.js";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startFixture } from "../helpers/control-plane-fixture.js";
import { type CorpusOutcome, DELIBERATE, type DisagreementClass, key, type Totals } from "./differential.js";

export type Placement = "host" | "enclosure";

export interface PlacementOutcome {
  placement: Placement;
  files: number;
  patterns: number;
  /** Matches the tool and the in-process engine disagree on (must be 0). */
  toolVersusEngine: number;
  /** A few of those, for the report: which tool found it, the pattern, where. */
  examples: string[];
  totals: Totals;
  ms: number;
}

interface ToolMatch {
  path: string;
  line: number;
  column: number;
  text: string;
}

/** The tool gives a match's text cut at 4 000 characters (the agent's stated cap), so the other
 * sides' texts are cut the same way before comparing. */
const MATCH_TEXT_CHARS = 4000;

function clipped(k: string): string {
  const [file = "", line = "0", column = "0", ...rest] = k.split("\0");
  const text = rest.join("\0");
  return key(file, Number(line), Number(column), text.length > MATCH_TEXT_CHARS ? `${text.slice(0, MATCH_TEXT_CHARS)}…` : text);
}

/** Where a corpus file goes in the workspace: one flat folder per corpus, so no folder name (a
 * `node_modules` inside a package) makes the tool skip it as vendored. */
function workspacePath(corpusId: string, rel: string): string {
  return `fidelity/${corpusId}/${rel.replaceAll("/", "~")}`;
}

function corpusRel(corpusId: string, path: string): string {
  return path.slice(`fidelity/${corpusId}/`.length).replaceAll("~", "/");
}

/** Runs every pattern of the corpora (their in-process outcomes, run with keepMatches) through the
 * tool on each placement. */
export async function runThroughTool(results: CorpusOutcome[], placements: Placement[], log: (l: string) => void): Promise<PlacementOutcome[]> {
  const fx = await startFixture();
  const out: PlacementOutcome[] = [];
  try {
    for (const placement of placements) {
      const t0 = Date.now();
      const conv = `fidelity-ast-${placement}`;
      await fx.client.createConversation(conv);
      if (placement === "enclosure") await fx.client.startEnclosure(conv);
      const run = (await fx.client.openRun(conv, { approvalPolicy: "never" })).id;
      const call = async (tool: string, args: unknown): Promise<unknown> => {
        const r = await fx.client.callTool(run, tool, args);
        if (r.isError) throw new Error(`${tool} on ${placement}: ${resultText(r).slice(0, 300)}`);
        return r.details;
      };
      const byClass = Object.fromEntries([...DELIBERATE, "unparsed", "unknown"].map((c) => [c, 0])) as Record<DisagreementClass, number>;
      const t: Totals = { ours: 0, peer: 0, both: 0, union: 0, byClass };
      let toolVersusEngine = 0;
      const examples: string[] = [];
      const differs = (who: string, pattern: string, k: string): void => {
        toolVersusEngine++;
        if (examples.length < 10)
          examples.push(
            `${who} only, ${JSON.stringify(pattern)}: ${k.split("\0").slice(0, 3).join(":")} ${JSON.stringify(k.split("\0").slice(3).join("").slice(0, 80))}`,
          );
      };
      let files = 0;
      let patterns = 0;
      for (const r of results) {
        for (const f of r.corpus.files) {
          await call("write", { path: workspacePath(r.corpus.id, f), content: readFileSync(join(r.corpus.root, f), "utf8") });
        }
        files += r.corpus.files.length;
        for (const o of r.patterns) {
          if (o.refusedBy === "enclave" || !o.matches) continue;
          patterns++;
          const d = (await call("ast_grep", {
            pattern: o.pattern,
            path: `fidelity/${r.corpus.id}`,
            language: r.corpus.language,
            max_results: 10_000,
          })) as { matches: ToolMatch[]; truncated: boolean };
          if (d.truncated) throw new Error(`${o.pattern} in ${r.corpus.id}: more than 10 000 matches; the tool run takes the subset`);
          const tool = new Set(d.matches.map((m) => key(corpusRel(r.corpus.id, m.path), m.line, m.column, m.text)));
          const ours = new Set([...o.matches.ours].map(clipped));
          const peer = new Set([...o.matches.peer].map(clipped));
          const classOf = new Map(o.disagreements.map((x) => [clipped(key(x.file, x.line, x.column, x.text)), x.class]));
          for (const k of tool) if (!ours.has(k)) differs("tool", o.pattern, k);
          for (const k of ours) if (!tool.has(k)) differs("engine", o.pattern, k);
          t.ours += tool.size;
          t.peer += peer.size;
          for (const k of tool) {
            if (peer.has(k)) t.both++;
            else byClass[ours.has(k) ? (classOf.get(k) ?? "unknown") : "unknown"]++;
          }
          for (const k of peer) if (!tool.has(k)) byClass[!ours.has(k) ? (classOf.get(k) ?? "unknown") : "unknown"]++;
        }
      }
      t.union = t.ours + t.peer - t.both;
      const ms = Date.now() - t0;
      log(`${placement}: ${files} files, ${patterns} pattern runs through ast_grep in ${ms} ms; ${toolVersusEngine} matches differ from the engine's`);
      out.push({ placement, files, patterns, toolVersusEngine, examples, totals: t, ms });
      await fx.client.deleteConversation(conv).catch(() => undefined);
    }
  } finally {
    await fx.close();
  }
  return out;
}
