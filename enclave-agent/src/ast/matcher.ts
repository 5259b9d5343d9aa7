// Matches a compiled pattern against a parsed file. Node types must agree and leaves must have the
// same text, so a pattern can only match real syntax nodes, never text inside a string or a comment
// (a `"$M"` metavariable inside a string literal binds that literal's content). A metavariable
// repeated in one pattern must capture the same source text.
//
// Where this is deliberately more permissive than ast-grep's default ("smart") matching — each can be
// switched to ast-grep's behaviour, which the differential suite uses to name every disagreement:
// - "comments": a comment in the code is skipped before any pattern element (ast-grep skips one only
//   before a token or a metavariable, so `if ($A) return $B` does not match when a comment sits
//   between the condition and the body there);
// - "unnamed": an unnamed token the pattern does not mention (`async`, a `,`, an `=`) is skipped
//   before any pattern element (ast-grep skips one only before a token of the pattern);
// - "empty-trailing-run": a `$$$` at the end of a list matches nothing, with the separator before it
//   (`return $$$R` matches a bare `return`, `f($A, $$$)` matches `f(a)`; ast-grep needs code there);
// - "backtracking": a `$$$` before other elements takes as many nodes as the rest of the pattern
//   leaves (`f($$$A, $B)` matches `f(a, b, c)` with $B = c; ast-grep's run stops at the first node
//   the next element matches, so there $B = a and the match fails).
// As in ast-grep, an empty `$$$` takes the separator after it along (`f($$$A, $B)` matches `f(a)`),
// and code after the pattern's last element is allowed (an `else` after `if (…) { … }`).
import type { Node, Tree } from "web-tree-sitter";
import type { CompiledPattern, PatternNode } from "./pattern-compiler.js";

export interface Capture {
  /** Source text of the capture (for a run, from its first node to its last). */
  text: string;
  start: number;
  end: number;
}

export type Bindings = Map<string, Capture>;

export interface Match {
  start: number;
  end: number;
  startRow: number;
  endRow: number;
  /** 1-based, in characters (Unicode code points) from the start of the line. */
  startColumn: number;
  endColumn: number;
  bindings: Bindings;
}

/** The deliberate differences from ast-grep (see the header). */
export type Permissive = "comments" | "unnamed" | "empty-trailing-run" | "backtracking";
export const PERMISSIVE: readonly Permissive[] = ["comments", "unnamed", "empty-trailing-run", "backtracking"];

export interface MatchOptions {
  /** Differences to switch to ast-grep's behaviour (default: none, all permissive). */
  asAstGrep?: ReadonlySet<Permissive>;
  /** Find candidates by walking every node of the tree, never from the pattern's words (the
   * reference the word-anchored search is checked against). */
  walk?: boolean;
  /** The part of the source the tree covers (a piece of a file parsed in pieces): words are looked
   * for only there. */
  within?: { start: number; end: number };
}

/** A word leaf of a one-node pattern, and the node types on the way down to it from the root. */
interface Anchor {
  word: string;
  type: string;
  path: string[];
}

/** Word leaves (keywords, identifiers) a match must contain as tokens at a fixed depth: the matcher
 * compares a pattern node's children with the code node's children level by level, so the token
 * matching a leaf sits exactly as deep under the match as the leaf sits in the pattern. An unnamed
 * leaf is compared by type alone, so it anchors only when its type is its text (a keyword). */
function anchorsOf(p: PatternNode, path: string[] = []): Anchor[] {
  if (p.kind === "meta") return [];
  if (p.kind === "leaf") return /^\w+$/.test(p.text) && (p.named || p.text === p.type) ? [{ word: p.text, type: p.type, path }] : [];
  const below = [...path, p.type];
  return p.children.flatMap((c) => anchorsOf(c, below));
}

/** Past this many occurrences per source character, walking the tree once is cheaper than finding
 * each occurrence's token (measured: a lookup costs about what walking 20 nodes does). */
const MAX_ANCHOR_DENSITY = 1 / 100;

function bind(b: Bindings, name: string | null, cap: Capture): boolean {
  if (name === null) return true;
  const prior = b.get(name);
  if (prior) return prior.text === cap.text;
  b.set(name, cap);
  return true;
}

/** A capture whose text is cut from the source only when read: a `$$$` run tries many lengths, and
 * copying each candidate's text would make a call with thousands of arguments quadratic. */
function lazyCapture(source: string, start: number, end: number): Capture {
  let text: string | undefined;
  return {
    start,
    end,
    get text(): string {
      text ??= source.slice(start, end);
      return text;
    },
  };
}

function isMulti(p: PatternNode | undefined): boolean {
  return p?.kind === "meta" && p.multi;
}

/** A list separator of the pattern (`,` or `;`), which may stand beside an empty `$$$`. */
function isSeparator(p: PatternNode | undefined): boolean {
  return p?.kind === "leaf" && !p.named && (p.text === "," || p.text === ";");
}

/** 1-based column, in code points, of a UTF-16 offset. */
export function columnAt(source: string, offset: number): number {
  const lineStart = source.lastIndexOf("\n", offset - 1) + 1;
  let n = 1;
  for (let i = lineStart; i < offset; i++) {
    const c = source.charCodeAt(i);
    // A surrogate pair is one character.
    if (c >= 0xdc00 && c <= 0xdfff && i > lineStart) {
      const prev = source.charCodeAt(i - 1);
      if (prev >= 0xd800 && prev <= 0xdbff) continue;
    }
    n++;
  }
  return n;
}

export class Matcher {
  private readonly strict: ReadonlySet<Permissive>;
  private readonly walk: boolean;
  private readonly from: number;
  private readonly to: number;

  constructor(
    private readonly pattern: CompiledPattern,
    private readonly source: string,
    options: MatchOptions = {},
  ) {
    this.strict = options.asAstGrep ?? new Set();
    this.walk = options.walk ?? false;
    this.from = options.within?.start ?? 0;
    this.to = options.within?.end ?? source.length;
  }

  private node(p: PatternNode, c: Node, b: Bindings): boolean {
    if (p.kind === "meta") return c.isNamed && !c.isExtra && bind(b, p.name, lazyCapture(this.source, c.startIndex, c.endIndex));
    if (p.type !== c.type) return false;
    // An unnamed token is its type (`# define` is the `#define` token); a named leaf is its text.
    if (p.kind === "leaf") return c.childCount === 0 || c.children.every((k) => k.isExtra) ? !p.named || c.text === p.text : false;
    return this.list(p.children, 0, c.children, 0, b, c.endIndex);
  }

  /** May code child c be passed over before pattern element p? */
  private skippable(p: PatternNode, c: Node): boolean {
    if (c.isExtra) return !this.strict.has("comments") || p.kind !== "node";
    if (c.isNamed) return false;
    return !this.strict.has("unnamed") || p.kind === "leaf";
  }

  /** The capture of the run cs[from..to): from its first node to its last, comments included. */
  private run(cs: Node[], from: number, to: number, at: number): Capture {
    if (to <= from) return { text: "", start: at, end: at };
    return lazyCapture(this.source, (cs[from] as Node).startIndex, (cs[to - 1] as Node).endIndex);
  }

  /** Matches pattern children ps[pi..] against code children cs[ci..] (comments included). */
  private list(ps: PatternNode[], pi: number, cs: Node[], ci: number, b: Bindings, endAt: number): boolean {
    if (pi === ps.length) return true;
    const p = ps[pi] as PatternNode;
    if (ci >= cs.length && this.strict.has("empty-trailing-run")) return false;
    if (p.kind === "meta" && p.multi) return this.multi(p, ps, pi, cs, ci, b, endAt);
    for (let i = ci; i < cs.length; i++) {
      const c = cs[i] as Node;
      const trial = new Map(b);
      if (!c.isExtra && this.node(p, c, trial) && this.list(ps, pi + 1, cs, i + 1, trial, endAt)) {
        copyInto(b, trial);
        return true;
      }
      if (!this.skippable(p, c)) break;
    }
    // A separator right before a `$$$` that matches nothing may be missing (`f($A, $$$)` on `f(a)`).
    if (isSeparator(p) && isMulti(ps[pi + 1]) && !this.strict.has("empty-trailing-run")) {
      const trial = new Map(b);
      if (this.emptyRunAtEnd(ps, pi + 1, cs, ci, trial, endAt)) {
        copyInto(b, trial);
        return true;
      }
    }
    return false;
  }

  /** `$$$` at ps[mi] matching nothing because the code's list ended (only tokens, such as a closing
   * `)`, are left), so the separator before it is not needed. */
  private emptyRunAtEnd(ps: PatternNode[], mi: number, cs: Node[], ci: number, b: Bindings, endAt: number): boolean {
    if (cs.slice(ci).some((c) => c.isNamed && !c.isExtra)) return false;
    if (ps.slice(mi + 1).some((q) => q.kind !== "leaf")) return false;
    const p = ps[mi] as PatternNode & { kind: "meta" };
    const next = cs.slice(ci).find((c) => !c.isExtra);
    const at = next ? next.startIndex : endAt;
    if (!bind(b, p.name, { text: "", start: at, end: at })) return false;
    return this.list(ps, mi + 1, cs, ci, b, endAt);
  }

  private multi(p: PatternNode & { kind: "meta" }, ps: PatternNode[], pi: number, cs: Node[], ci: number, b: Bindings, endAt: number): boolean {
    const at = ci < cs.length ? (cs[ci] as Node).startIndex : endAt;
    // Last in the pattern: nothing after it anchors the run, so it takes every remaining sibling
    // but trailing tokens such as a `;`.
    if (pi === ps.length - 1) {
      let end = cs.length;
      while (end > ci && !(cs[end - 1] as Node).isNamed && !(cs[end - 1] as Node).isExtra) end--;
      return bind(b, p.name, this.run(cs, ci, end, at));
    }
    if (this.strict.has("backtracking")) return this.multiFirstFit(p, ps, pi, cs, ci, b, endAt);
    let onlyComments = true;
    for (let k = ci; k <= cs.length; k++) {
      if (k > ci && !(cs[k - 1] as Node).isExtra) onlyComments = false;
      // A run never ends on a comment that the next element would skip anyway: the comment stays
      // in the run, so a rewrite keeps it.
      if (k < cs.length && (cs[k] as Node).isExtra) continue;
      const trial = new Map(b);
      if (!bind(trial, p.name, this.run(cs, ci, k, at))) continue;
      if (this.list(ps, pi + 1, cs, k, trial, endAt) || (onlyComments && this.separatorThenRest(ps, pi + 1, cs, k, trial, endAt))) {
        copyInto(b, trial);
        return true;
      }
    }
    return false;
  }

  /** An empty run takes the separators after it along: `f($$$A, $B)` matches `f(a)`. */
  private separatorThenRest(ps: PatternNode[], next: number, cs: Node[], ci: number, b: Bindings, endAt: number): boolean {
    let q = next;
    while (q < ps.length && isSeparator(ps[q])) q++;
    return q > next && this.list(ps, q, cs, ci, b, endAt);
  }

  /** ast-grep's run: unnamed pattern tokens after it are skipped, and it ends at the first code node
   * the next element matches (no second try). */
  private multiFirstFit(p: PatternNode & { kind: "meta" }, ps: PatternNode[], pi: number, cs: Node[], ci: number, b: Bindings, endAt: number): boolean {
    const at = ci < cs.length ? (cs[ci] as Node).startIndex : endAt;
    let q = pi + 1;
    let skipped = 0;
    while (q < ps.length && (ps[q] as PatternNode).kind === "leaf" && !(ps[q] as PatternNode & { kind: "leaf" }).named) {
      q++;
      skipped++;
    }
    if (q === ps.length) {
      let end = cs.length;
      while (end > ci && skipped > 0 && !(cs[end - 1] as Node).isNamed) {
        end--;
        skipped--;
      }
      return bind(b, p.name, this.run(cs, ci, end, at));
    }
    const next = ps[q] as PatternNode;
    for (let k = ci; k < cs.length; k++) {
      const c = cs[k] as Node;
      if (c.isExtra || !this.node(next, c, new Map(b))) continue;
      let end = k;
      for (let s = skipped; s > 0 && end > ci && !(cs[end - 1] as Node).isNamed; s--) end--;
      const trial = new Map(b);
      if (!bind(trial, p.name, this.run(cs, ci, end, at))) return false;
      if (!this.list(ps, q, cs, k, trial, endAt)) return false;
      copyInto(b, trial);
      return true;
    }
    return false;
  }

  /** A sequence's last pattern element must land on the run's last sibling (no trailing slack). */
  private consumesAll(roots: PatternNode[], run: Node[]): boolean {
    const lastP = roots[roots.length - 1];
    if (isMulti(lastP)) return true;
    const lastC = run[run.length - 1] as Node;
    return this.node(lastP as PatternNode, lastC, new Map()) || !lastC.isNamed;
  }

  private found(start: Node, end: Node, bindings: Bindings): Match {
    return {
      start: start.startIndex,
      end: end.endIndex,
      startRow: start.startPosition.row,
      endRow: end.endPosition.row,
      startColumn: columnAt(this.source, start.startIndex),
      endColumn: columnAt(this.source, end.endIndex),
      bindings,
    };
  }

  /** Does the pattern match at this node (or, for a sequence pattern, starting at it)? */
  matchAt(n: Node): Match | null {
    const roots = this.pattern.roots;
    const b: Bindings = new Map();
    if (roots.length === 1) {
      if (!this.node(roots[0] as PatternNode, n, b)) return null;
      return this.found(n, n, b);
    }
    const parent = n.parent;
    if (!parent) return null;
    const siblings = parent.children.filter((s) => !s.isExtra);
    const idx = siblings.findIndex((s) => s.startIndex === n.startIndex && s.endIndex === n.endIndex && s.type === n.type);
    if (idx < 0) return null;
    // The sequence ends at the shortest run of siblings the pattern consumes (the longest when it
    // ends in a $$$ run, which takes what follows).
    const greedy = isMulti(roots[roots.length - 1]);
    const ends: number[] = [];
    for (let k = idx + 1; k <= siblings.length; k++) ends.push(k);
    if (greedy) ends.reverse();
    for (const k of ends) {
      const trial: Bindings = new Map();
      const run = siblings.slice(idx, k);
      if (this.list(roots, 0, run, 0, trial, (siblings[k - 1] as Node).endIndex) && this.consumesAll(roots, run)) {
        return this.found(n, siblings[k - 1] as Node, trial);
      }
    }
    return null;
  }

  /** Every match in the tree, in source order (nested matches included), up to `limit`. */
  findAll(tree: Tree, limit = Infinity): Match[] {
    const out: Match[] = [];
    const at = new Map(this.pattern.requiredWords.map((w) => [w, occurrences(this.source, w, this.from, this.to)]));
    const words = [...at.values()];
    const candidates =
      (this.walk ? null : this.anchored(tree, at)) ??
      (this.pattern.rootType ? tree.rootNode.descendantsOfType(this.pattern.rootType) : allNamed(tree.rootNode));
    for (const n of candidates) {
      if (!n) continue;
      // Each of the pattern's words must occur inside a match: a cheap test before the tree walk.
      if (this.pattern.roots.length === 1 && !words.every((at) => occursWithin(at, n.startIndex, n.endIndex))) continue;
      const m = this.matchAt(n);
      if (m) {
        out.push(m);
        if (out.length >= limit) break;
      }
    }
    return out;
  }
  /**
   * The nodes a one-node pattern can match at, in the order a walk of the tree meets them, found from
   * the occurrences of its rarest word leaf instead of by walking every node: the token at each
   * occurrence, then its ancestors as far up as the leaf sits in the pattern, their types checked on
   * the way. Null when a walk is the better way (a sequence pattern, no word leaf, a word on every
   * line) or the order cannot be told from positions alone.
   */
  private anchored(tree: Tree, at: Map<string, number[]>): Node[] | null {
    const root = this.pattern.roots[0];
    if (this.pattern.roots.length !== 1 || !root) return null;
    let best: { anchor: Anchor; at: number[] } | undefined;
    for (const anchor of anchorsOf(root)) {
      const positions = at.get(anchor.word) ?? occurrences(this.source, anchor.word, this.from, this.to);
      if (!best || positions.length < best.at.length || (positions.length === best.at.length && anchor.path.length < best.anchor.path.length))
        best = { anchor, at: positions };
    }
    if (!best || best.at.length > (this.to - this.from) * MAX_ANCHOR_DENSITY) return null;
    const { anchor } = best;
    const top = tree.rootNode;
    const seen = new Set<number>();
    const found: { node: Node; start: number; end: number }[] = [];
    for (const i of best.at) {
      const end = i + anchor.word.length;
      let n: Node | null = top.descendantForIndex(i, end);
      if (!n || n.startIndex !== i || n.endIndex !== end || n.type !== anchor.type) continue;
      for (let d = anchor.path.length - 1; n && d >= 0; d--) {
        n = n.parent;
        if (n && n.type !== anchor.path[d]) n = null;
      }
      if (!n || seen.has(n.id)) continue;
      seen.add(n.id);
      found.push({ node: n, start: n.startIndex, end: n.endIndex });
    }
    // A walk meets an outer node before the nodes inside it: by start, the longer first.
    found.sort((a, b) => a.start - b.start || b.end - a.end);
    // Two nodes over the same text (one wrapping the other) cannot be ordered by position.
    for (let k = 1; k < found.length; k++) {
      const a = found[k - 1] as (typeof found)[number];
      const b = found[k] as (typeof found)[number];
      if (a.start === b.start && a.end === b.end) return null;
    }
    return found.map((f) => f.node);
  }
}

/** Where a word starts in source[from, to) (whole-word or not), in order. */
function occurrences(source: string, word: string, from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = source.indexOf(word, from); i >= 0 && i < to; i = source.indexOf(word, i + 1)) out.push(i);
  return out;
}

/** Is there an occurrence starting in [start, end)? */
function occursWithin(sorted: number[], start: number, end: number): boolean {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid] as number) < start) lo = mid + 1;
    else hi = mid;
  }
  return lo < sorted.length && (sorted[lo] as number) < end;
}

function copyInto(target: Bindings, from: Bindings): void {
  for (const [k, v] of from) target.set(k, v);
}

function allNamed(root: Node): Node[] {
  const out: Node[] = [];
  const cursor = root.walk();
  let done = false;
  while (!done) {
    if (cursor.currentNode.isNamed && !cursor.currentNode.isExtra) out.push(cursor.currentNode);
    if (cursor.gotoFirstChild()) continue;
    while (!cursor.gotoNextSibling()) {
      if (!cursor.gotoParent()) {
        done = true;
        break;
      }
    }
  }
  cursor.delete();
  return out;
}
