// Matches a compiled pattern against a parsed file. Node types must agree and leaves must have the
// same text; comments (extras) never take part, so whitespace, line breaks and comments do not
// matter, and a pattern can only match real syntax nodes, never text inside a string or a comment.
// Like ast-grep's default ("smart") strictness, anonymous tokens in the code that the pattern does
// not mention (an optional `;`) are skipped. A metavariable repeated in one pattern must capture the
// same source text.
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
  bindings: Bindings;
}

function kids(n: Node): Node[] {
  const out: Node[] = [];
  for (const c of n.children) if (!c.isExtra) out.push(c);
  return out;
}

function bind(b: Bindings, name: string | null, cap: Capture): boolean {
  if (name === null) return true;
  const prior = b.get(name);
  if (prior) return prior.text === cap.text;
  b.set(name, cap);
  return true;
}

function runCapture(source: string, nodes: Node[], from: number, to: number, at: number): Capture {
  if (to <= from) return { text: "", start: at, end: at };
  const start = (nodes[from] as Node).startIndex;
  const end = (nodes[to - 1] as Node).endIndex;
  return { text: source.slice(start, end), start, end };
}

export class Matcher {
  constructor(
    private readonly pattern: CompiledPattern,
    private readonly source: string,
  ) {}

  private node(p: PatternNode, c: Node, b: Bindings): boolean {
    if (p.kind === "meta") return c.isNamed && bind(b, p.name, { text: c.text, start: c.startIndex, end: c.endIndex });
    if (p.type !== c.type) return false;
    if (p.kind === "leaf") return c.childCount === 0 || kids(c).length === 0 ? c.text === p.text : false;
    return this.list(p.children, 0, kids(c), 0, b, c.endIndex);
  }

  /** Matches pattern children ps[pi..] against code children cs[ci..]. */
  private list(ps: PatternNode[], pi: number, cs: Node[], ci: number, b: Bindings, endAt: number): boolean {
    // Code children after the pattern's last one (an `else` after `if (…) { … }`) are allowed, as in
    // ast-grep: the pattern's own closing tokens already anchor what must be complete.
    if (pi === ps.length) return true;
    const p = ps[pi] as PatternNode;
    if (p.kind === "meta" && p.multi) {
      const at = ci < cs.length ? (cs[ci] as Node).startIndex : endAt;
      // Last in the pattern: nothing after it anchors the run, so it takes every remaining named
      // sibling (not trailing tokens such as a `;`).
      if (pi === ps.length - 1) {
        let end = cs.length;
        while (end > ci && !(cs[end - 1] as Node).isNamed) end--;
        return bind(b, p.name, runCapture(this.source, cs, ci, end, at));
      }
      for (let k = ci; k <= cs.length; k++) {
        const trial = new Map(b);
        if (!bind(trial, p.name, runCapture(this.source, cs, ci, k, at))) continue;
        if (this.list(ps, pi + 1, cs, k, trial, endAt)) {
          copyInto(b, trial);
          return true;
        }
      }
      return false;
    }
    for (let i = ci; i < cs.length; i++) {
      const c = cs[i] as Node;
      const trial = new Map(b);
      if (this.node(p, c, trial) && this.list(ps, pi + 1, cs, i + 1, trial, endAt)) {
        copyInto(b, trial);
        return true;
      }
      // Only an anonymous token the pattern does not mention may be skipped.
      if (c.isNamed) return false;
    }
    return false;
  }

  /** A sequence's last pattern element must land on the run's last sibling (no trailing slack). */
  private consumesAll(roots: PatternNode[], run: Node[]): boolean {
    const lastP = roots[roots.length - 1];
    if (lastP?.kind === "meta" && lastP.multi) return true;
    const lastC = run[run.length - 1] as Node;
    return this.node(lastP as PatternNode, lastC, new Map()) || !lastC.isNamed;
  }

  /** Does the pattern match at this node (or, for a sequence pattern, starting at it)? */
  matchAt(n: Node): Match | null {
    const roots = this.pattern.roots;
    const b: Bindings = new Map();
    if (roots.length === 1) {
      if (!this.node(roots[0] as PatternNode, n, b)) return null;
      return { start: n.startIndex, end: n.endIndex, startRow: n.startPosition.row, endRow: n.endPosition.row, bindings: b };
    }
    const parent = n.parent;
    if (!parent) return null;
    const siblings = kids(parent);
    const idx = siblings.findIndex((s) => s.startIndex === n.startIndex && s.endIndex === n.endIndex && s.type === n.type);
    if (idx < 0) return null;
    // The sequence ends at the shortest run of siblings the pattern consumes (the longest when it
    // ends in a $$$ run, which takes what follows).
    const lastRoot = roots[roots.length - 1];
    const greedy = lastRoot?.kind === "meta" && lastRoot.multi;
    const ends: number[] = [];
    for (let k = idx + 1; k <= siblings.length; k++) ends.push(k);
    if (greedy) ends.reverse();
    for (const k of ends) {
      const trial: Bindings = new Map();
      const run = siblings.slice(idx, k);
      if (this.list(roots, 0, run, 0, trial, (siblings[k - 1] as Node).endIndex) && this.consumesAll(roots, run)) {
        const last = siblings[k - 1] as Node;
        return { start: n.startIndex, end: last.endIndex, startRow: n.startPosition.row, endRow: last.endPosition.row, bindings: trial };
      }
    }
    return null;
  }

  /** Every match in the tree, in source order (nested matches included), up to `limit`. */
  findAll(tree: Tree, limit = Infinity): Match[] {
    const out: Match[] = [];
    const candidates = this.pattern.rootType ? tree.rootNode.descendantsOfType(this.pattern.rootType) : allNamed(tree.rootNode);
    for (const n of candidates) {
      if (!n) continue;
      const m = this.matchAt(n);
      if (m) {
        out.push(m);
        if (out.length >= limit) break;
      }
    }
    return out;
  }
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
