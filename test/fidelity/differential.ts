// The differential suite: Enclave's structural search (the engine the agent serves) and @ast-grep/cli
// over the same real files with the same patterns, compared match by match (file, start line and
// column, text). Every disagreement is given a class:
// - one of the engine's deliberate permissive differences ("comments", "unnamed",
//   "empty-trailing-run", "backtracking"): the engine, switched to ast-grep's behaviour for that one
//   difference (or for all of them at once: "several"), agrees on that match;
// - "reading": the two tools read the pattern itself differently (ast-grep parses a pattern as a whole
//   file, Enclave in the first context of its ladder that accepts it — a C `malloc($N)` is a macro
//   type to ast-grep and a call to Enclave), shown by their pattern trees differing;
// - "unparsed": the file does not parse cleanly under Enclave's grammar (C++ in a `.h`, macros the C
//   grammar cannot follow), and the two tools' grammar versions recover from errors differently, so
//   their trees differ: not a difference of the matcher;
// - "unknown": none of these — a bug until shown otherwise.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Node, Tree } from "web-tree-sitter";
import { agentBundleDir } from "@enclave/control-plane/repo-paths.js";
import { AstEngine } from "@enclave/agent/ast/ast-engine.js";
import { grammarById } from "@enclave/agent/ast/grammar-registry.js";
import { Matcher, PERMISSIVE, type Permissive } from "@enclave/agent/ast/matcher.js";
import type { CompiledPattern, PatternNode } from "@enclave/agent/ast/pattern-compiler.js";
import { WorkspacePaths } from "@enclave/agent/fs/workspace-paths.js";
import { dumpPattern, type PeerMatch, peerMatches } from "./ast-grep-peer.js";
import type { Corpus } from "./corpora.js";

export type DisagreementClass = Permissive | "several" | "reading" | "unparsed" | "unknown";
/** The engine's deliberate differences from ast-grep. */
export const DELIBERATE: readonly DisagreementClass[] = [...PERMISSIVE, "several", "reading"];
/** Every class but "unknown". */
export const KNOWN: readonly DisagreementClass[] = [...DELIBERATE, "unparsed"];

export interface Disagreement {
  /** Which tool found the match the other did not. */
  foundBy: "enclave" | "ast-grep";
  file: string;
  line: number;
  column: number;
  text: string;
  class: DisagreementClass;
}

export interface PatternOutcome {
  corpus: string;
  language: string;
  pattern: string;
  /** How Enclave read it (context and fillers), or why it refused it. */
  reading: string;
  refusedBy?: "enclave" | "ast-grep";
  /** ast-grep's complaint when it refused the pattern. */
  peerError?: string;
  ours: number;
  peer: number;
  both: number;
  disagreements: Disagreement[];
}

export interface CorpusOutcome {
  corpus: Corpus;
  patterns: PatternOutcome[];
  oursMs: number;
  peerMs: number;
}

function key(file: string, line: number, column: number, text: string): string {
  return `${file}\0${line}\0${column}\0${text}`;
}

function fromKey(k: string): { file: string; line: number; column: number; text: string } {
  const [file = "", line = "0", column = "0", ...text] = k.split("\0");
  return { file, line: Number(line), column: Number(column), text: text.join("\0") };
}

/** Our pattern tree in ast-grep's `--debug-query=pattern` layout, to compare readings. */
export function dumpOurs(roots: PatternNode[]): string {
  if (roots.length !== 1) return `(a sequence of ${roots.length} nodes)`;
  const out: string[] = [];
  const visit = (p: PatternNode, depth: number): void => {
    const pad = "  ".repeat(depth);
    if (p.kind === "meta") out.push(`${pad}MetaVar ${p.multi ? "$$$" : "$"}${p.name ?? (p.multi ? "" : "_")}`);
    else if (p.kind === "leaf") out.push(p.named ? `${pad}${p.type} ${p.text}` : `${pad}${p.text}`);
    else {
      out.push(`${pad}${p.type}`);
      for (const c of p.children) visit(c, depth + 1);
    }
  };
  visit(roots[0] as PatternNode, 0);
  return out.join("\n");
}

function matchKeys(compiled: CompiledPattern, source: string, tree: Tree, file: string, asAstGrep?: ReadonlySet<Permissive>): Set<string> {
  const out = new Set<string>();
  for (const m of new Matcher(compiled, source, asAstGrep ? { asAstGrep } : {}).findAll(tree)) {
    out.add(key(file, m.startRow + 1, m.startColumn, source.slice(m.start, m.end)));
  }
  return out;
}

/** Which of the engine's deliberate differences explains a disagreement, if one does: the engine
 * switched to ast-grep's behaviour for it agrees there. */
function explain(matchesWith: (set: ReadonlySet<Permissive>) => boolean, foundByUs: boolean): DisagreementClass | null {
  for (const p of PERMISSIVE) if (matchesWith(new Set([p])) !== foundByUs) return p;
  return matchesWith(new Set(PERMISSIVE)) !== foundByUs ? "several" : null;
}

/** Start offsets (UTF-16) of each line. */
function lineStarts(source: string): number[] {
  const out = [0];
  for (let i = source.indexOf("\n"); i >= 0; i = source.indexOf("\n", i + 1)) out.push(i + 1);
  return out;
}

/** Does the pattern (under these switches) match at the match k names? Only the nodes spanning
 * exactly that text are tried, so classifying a disagreement costs a few node matches. */
function matchesAt(compiled: CompiledPattern, source: string, tree: Tree, starts: number[], k: string, asAstGrep: ReadonlySet<Permissive>): boolean {
  const m = fromKey(k);
  let start = starts[m.line - 1] ?? 0;
  for (let c = 1; c < m.column; c++) start += (source.codePointAt(start) ?? 0) > 0xffff ? 2 : 1;
  const end = start + m.text.length;
  const matcher = new Matcher(compiled, source, { asAstGrep });
  // A sequence pattern starts its match at its first node: try the nodes starting there.
  if (compiled.roots.length !== 1) {
    for (let n: Node | null = tree.rootNode.descendantForIndex(start, start); n && n.startIndex === start; n = n.parent) {
      const m = matcher.matchAt(n);
      if (m && m.end === end) return true;
    }
    return false;
  }
  for (let n: Node | null = tree.rootNode.descendantForIndex(start, end); n && n.startIndex === start && n.endIndex === end; n = n.parent) {
    if (matcher.matchAt(n)) return true;
  }
  return false;
}

export interface RunOptions {
  /** Progress lines (one per corpus). */
  log?: (line: string) => void;
}

export async function runCorpus(corpus: Corpus, patterns: string[], options: RunOptions = {}): Promise<CorpusOutcome> {
  const grammar = grammarById(corpus.language);
  if (!grammar) throw new Error(`no grammar ${corpus.language}`);
  const engine = new AstEngine(new WorkspacePaths(corpus.root), join(agentBundleDir, "grammars"));

  const t0 = Date.now();
  const peer = await peerMatches(corpus.root, corpus.files, corpus.sgLang, patterns);
  const peerMs = Date.now() - t0;
  const peerKeys = peer.map((r) => (Array.isArray(r) ? new Set(r.map((m: PeerMatch) => key(m.file, m.line, m.column, m.text))) : new Set<string>()));
  const peerByFile = peerKeys.map((keys) => {
    const byFile = new Map<string, Set<string>>();
    for (const k of keys) {
      const f = fromKey(k).file;
      let s = byFile.get(f);
      if (!s) byFile.set(f, (s = new Set()));
      s.add(k);
    }
    return byFile;
  });

  const outcomes: PatternOutcome[] = [];
  const compiled: (CompiledPattern | null)[] = [];
  for (const [i, p] of patterns.entries()) {
    const base: PatternOutcome = {
      corpus: corpus.id,
      language: corpus.language,
      pattern: p,
      reading: "",
      ours: 0,
      peer: peerKeys[i]?.size ?? 0,
      both: 0,
      disagreements: [],
    };
    try {
      const c = await engine.compile(grammar, p);
      compiled.push(c);
      base.reading = c.context + (c.fillers.length ? `, ${c.fillers.join(", ")}` : "");
    } catch (err) {
      compiled.push(null);
      base.refusedBy = "enclave";
      base.reading = `refused: ${(err as Error).message.slice(0, 200)}`;
    }
    const r = peer[i];
    if (r && !Array.isArray(r)) {
      base.refusedBy ??= "ast-grep";
      base.peerError = r.error;
    }
    outcomes.push(base);
  }

  const t1 = Date.now();
  const parser = await engine.runtime.parser(grammar);
  const pendingReading: { outcome: PatternOutcome; index: number; d: Disagreement; unparsed: boolean }[] = [];
  for (const file of corpus.files) {
    const source = readFileSync(join(corpus.root, file), "utf8");
    let tree: Tree | null = null;
    let starts: number[] | null = null;
    for (const [i, c] of compiled.entries()) {
      const o = outcomes[i] as PatternOutcome;
      const theirs = peerByFile[i]?.get(file) ?? new Set<string>();
      let ours = new Set<string>();
      if (c && c.requiredWords.every((w) => source.includes(w))) {
        tree ??= parser.parse(source);
        if (tree) ours = matchKeys(c, source, tree, file);
      }
      if (ours.size === 0 && theirs.size === 0) continue;
      o.ours += ours.size;
      for (const k of ours) if (theirs.has(k)) o.both++;
      const onlyOurs = [...ours].filter((k) => !theirs.has(k));
      const onlyTheirs = [...theirs].filter((k) => !ours.has(k));
      for (const [list, foundByUs] of [
        [onlyOurs, true],
        [onlyTheirs, false],
      ] as const) {
        for (const k of list) {
          tree ??= parser.parse(source);
          const t = tree;
          starts ??= lineStarts(source);
          const at = starts;
          const cls = c && t ? explain((set) => matchesAt(c, source, t, at, k, set), foundByUs) : null;
          const d: Disagreement = { foundBy: foundByUs ? "enclave" : "ast-grep", ...fromKey(k), class: cls ?? "unknown" };
          o.disagreements.push(d);
          if (!cls) pendingReading.push({ outcome: o, index: i, d, unparsed: tree?.rootNode.hasError ?? false });
        }
      }
    }
    tree?.delete();
  }
  const oursMs = Date.now() - t1;

  // What no permissive difference explains may still come from the pattern being read differently.
  const readings = new Map<number, boolean>();
  for (const { index, d, unparsed } of pendingReading) {
    let differs = readings.get(index);
    if (differs === undefined) {
      const c = compiled[index];
      // A pattern Enclave refuses but ast-grep reads is not a reading difference: it is a gap.
      differs = c !== null && c !== undefined && (await dumpPattern(corpus.sgLang, patterns[index] as string)) !== dumpOurs(c.roots);
      readings.set(index, differs);
    }
    if (differs) d.class = "reading";
    else if (unparsed) d.class = "unparsed";
  }
  options.log?.(`${corpus.id}: ${corpus.files.length} files, ${(corpus.bytes / 1e6).toFixed(1)} MB; enclave ${oursMs} ms, ast-grep ${peerMs} ms`);
  return { corpus, patterns: outcomes, oursMs, peerMs };
}

export interface Totals {
  ours: number;
  peer: number;
  both: number;
  /** Matches either tool found. */
  union: number;
  byClass: Record<DisagreementClass, number>;
}

export function totals(outcomes: PatternOutcome[]): Totals {
  const byClass = Object.fromEntries([...KNOWN, "unknown"].map((c) => [c, 0])) as Record<DisagreementClass, number>;
  let ours = 0;
  let peer = 0;
  let both = 0;
  for (const o of outcomes) {
    ours += o.ours;
    peer += o.peer;
    both += o.both;
    for (const d of o.disagreements) byClass[d.class]++;
  }
  return { ours, peer, both, union: ours + peer - both, byClass };
}

/** Matches both tools found, over matches either found (1 when neither found any). */
export function agreement(t: Totals): number {
  return t.union === 0 ? 1 : t.both / t.union;
}
