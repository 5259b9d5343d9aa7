// The differential suite: Enclave's structural search (the engine the agent serves) and @ast-grep/cli
// over the same real files with the same patterns, compared match by match (file, start line and
// column, text). Every disagreement is given a class, each checked at that match (`classify`):
// - one of the engine's deliberate permissive differences ("comments", "unnamed",
//   "empty-trailing-run", "backtracking"): the engine, switched to ast-grep's behaviour for that one
//   difference (or for all of them at once: "several"), agrees on that match;
// - "reading": the two tools read the pattern itself differently (ast-grep parses a pattern as a whole
//   file, Enclave in the first context of its ladder that accepts it — a C `malloc($N)` is a macro
//   type to ast-grep and a call to Enclave, Go's `errors.New($S)` a type conversion to ast-grep), and
//   no node at the match has the type the other tool's pattern starts with, so that tool cannot match
//   there;
// - "unparsed": the code at the match does not parse cleanly under Enclave's grammar (C++ in a `.h`,
//   macros the C grammar cannot follow): the two tools' grammar versions recover from errors
//   differently, so their trees differ there — not a difference of the matcher;
// - "unknown": none of these — a bug until shown otherwise.
// The deliberate ones are what the product documents ask for (docs/tools/structural-search.md); the
// agreement on the rest — matches both found ÷ matches either found, the deliberate ones left out —
// is the figure that shows the matcher agrees with ast-grep wherever it means to.
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

/** What each class means, as the report prints it. */
export const CLASS_LABEL: Record<DisagreementClass, string> = {
  comments: "across comments (deliberate)",
  unnamed: "past unnamed tokens the pattern does not name (deliberate)",
  "empty-trailing-run": "trailing $$$ matching nothing (deliberate)",
  backtracking: "$$$ backtracking before the next element (deliberate)",
  several: "several deliberate differences at once (deliberate)",
  reading: "pattern read in context, where ast-grep reads it as a whole file (deliberate)",
  unparsed: "code the grammar cannot parse (the grammar versions recover differently)",
  unknown: "unknown (a bug until shown otherwise)",
};

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
  /** Every match key each tool found (kept when the run is asked to: `keepMatches`). */
  matches?: { ours: Set<string>; peer: Set<string> };
}

export interface CorpusOutcome {
  corpus: Corpus;
  patterns: PatternOutcome[];
  oursMs: number;
  peerMs: number;
}

export function key(file: string, line: number, column: number, text: string): string {
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

/** The UTF-16 range of a match given by line, column (code points) and text. */
function rangeOf(source: string, starts: number[], m: { line: number; column: number; text: string }): { start: number; end: number } {
  let start = starts[m.line - 1] ?? 0;
  for (let c = 1; c < m.column; c++) start += (source.codePointAt(start) ?? 0) > 0xffff ? 2 : 1;
  return { start, end: start + m.text.length };
}

/** Types of the nodes of the tree spanning exactly [start, end). */
function typesSpanning(tree: Tree, start: number, end: number): string[] {
  const out: string[] = [];
  for (let n: Node | null = tree.rootNode.descendantForIndex(start, end); n && n.startIndex >= start && n.endIndex <= end; n = n.parent) {
    if (n.startIndex === start && n.endIndex === end) out.push(n.type);
  }
  return out;
}

/** Does the code at the match fail to parse: an error or missing node overlapping it, or one in the
 * top-level declaration, definition or directive holding it (a macro the grammar cannot follow
 * makes it recover by reading the rest of that construct in its own way)? An error elsewhere in the
 * file says nothing about this match. */
function unparsedAt(tree: Tree, start: number, end: number): boolean {
  const top = tree.rootNode;
  if (!top.hasError) return false;
  const visit = (n: Node): boolean => {
    if (n.endIndex < start || n.startIndex > end) return false;
    if (n.isError || n.isMissing) return true;
    return n.hasError && n.children.some(visit);
  };
  if (visit(top)) return true;
  return top.children.some((c) => c.startIndex <= start && c.endIndex >= end && c.hasError);
}

/** What the classifier needs to know about one disagreement. */
export interface ClassifyInput {
  compiled: CompiledPattern;
  source: string;
  tree: Tree;
  /** Start offsets of the source's lines. */
  starts: number[];
  match: { line: number; column: number; text: string };
  foundByUs: boolean;
  /** The type of the root of ast-grep's reading of the pattern, null when it has none (it refused the
   * pattern, or its root is a metavariable); undefined when its reading is Enclave's. */
  peerRootType: string | null | undefined;
}

/** The class of one disagreement, checked at that match. */
export function classify(input: ClassifyInput): DisagreementClass {
  const { compiled, source, tree, starts, match, foundByUs, peerRootType } = input;
  const k = key("", match.line, match.column, match.text);
  const cls = explain((set) => matchesAt(compiled, source, tree, starts, k, set), foundByUs);
  if (cls) return cls;
  const { start, end } = rangeOf(source, starts, match);
  if (peerRootType !== undefined && compiled.roots.length === 1) {
    // The tool that did not find it cannot match there: no node at the match has its pattern's type.
    const missing = foundByUs ? peerRootType : compiled.rootType;
    if (missing === null || !typesSpanning(tree, start, end).includes(missing)) return "reading";
  }
  return unparsedAt(tree, start, end) ? "unparsed" : "unknown";
}

/** The root type of a pattern tree as ast-grep dumps it (null: none, or a metavariable). */
export function peerRoot(dump: string): string | null {
  const first = dump.split("\n")[0]?.trim() ?? "";
  if (!first || first.startsWith("(") || first.startsWith("MetaVar")) return null;
  return first.split(" ")[0] ?? null;
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
  const { start, end } = rangeOf(source, starts, fromKey(k));
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
  /** Keep every match of both tools on the outcomes (for comparing another run with this one). */
  keepMatches?: boolean;
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

  // How ast-grep reads each pattern Enclave reads: undefined where the two readings are the same.
  const peerRoots: (string | null | undefined)[] = [];
  for (const [i, c] of compiled.entries()) {
    const dump = c ? await dumpPattern(corpus.sgLang, patterns[i] as string) : "";
    peerRoots.push(c && dump !== dumpOurs(c.roots) ? peerRoot(dump) : undefined);
  }

  const t1 = Date.now();
  const parser = await engine.runtime.parser(grammar);
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
      if (options.keepMatches) {
        o.matches ??= { ours: new Set(), peer: new Set() };
        for (const k of ours) o.matches.ours.add(k);
        for (const k of theirs) o.matches.peer.add(k);
      }
      for (const k of ours) if (theirs.has(k)) o.both++;
      const onlyOurs = [...ours].filter((k) => !theirs.has(k));
      const onlyTheirs = [...theirs].filter((k) => !ours.has(k));
      for (const [list, foundByUs] of [
        [onlyOurs, true],
        [onlyTheirs, false],
      ] as const) {
        for (const k of list) {
          tree ??= parser.parse(source);
          starts ??= lineStarts(source);
          const match = fromKey(k);
          // A pattern Enclave refuses but ast-grep reads is not a difference of reading: it is a gap.
          const cls = c && tree ? classify({ compiled: c, source, tree, starts, match, foundByUs, peerRootType: peerRoots[i] }) : "unknown";
          o.disagreements.push({ foundBy: foundByUs ? "enclave" : "ast-grep", ...match, class: cls });
        }
      }
    }
    tree?.delete();
  }
  const oursMs = Date.now() - t1;

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

/** Matches both tools found, over matches either found leaving out the deliberate differences: how
 * closely the matcher follows ast-grep wherever it means to (1 when there are none). */
export function strictAgreement(t: Totals): number {
  const deliberate = DELIBERATE.reduce((n, c) => n + t.byClass[c], 0);
  const rest = t.union - deliberate;
  return rest === 0 ? 1 : t.both / rest;
}

/** Matches both tools found, over matches either found (1 when neither found any). */
export function agreement(t: Totals): number {
  return t.union === 0 ? 1 : t.both / t.union;
}
