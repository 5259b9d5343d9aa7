// Turns a pattern such as `if ($X != null) $X.dispose()` into a tree the matcher walks. Metavariables
// are swapped for placeholder identifiers the grammar accepts, the text is parsed in the first
// scaffold of the context ladder that accepts it without errors, and the nodes spanning the pattern
// become a plain PatternNode tree (comments dropped, so they never have to match).
import type { Node, Parser } from "web-tree-sitter";
import { AgentError } from "../errors.js";
import { contextsFor, type ContextName, type PatternContext } from "./pattern-contexts.js";

export type PatternNode =
  /** `$NAME` (one node), `$$$NAME` (a run of siblings); name null for the wildcards `$_` and `$$$`. */
  | { kind: "meta"; name: string | null; multi: boolean }
  | { kind: "leaf"; type: string; text: string }
  | { kind: "node"; type: string; children: PatternNode[] };

export interface CompiledPattern {
  source: string;
  language: string;
  context: ContextName;
  /** One node, or a sequence of siblings (`a(); b();`). */
  roots: PatternNode[];
  /** Node types the first root can match, for finding candidates fast; empty means any node. */
  rootType: string | null;
  metaNames: string[];
  /** Words every match contains (the pattern's identifier and keyword leaves): a file lacking one is not parsed. */
  requiredWords: string[];
}

const METAVAR = /\$\$\$([A-Z_][A-Z0-9_]*)?|\$([A-Z_][A-Z0-9_]*)/g;
const PLACEHOLDER = /^"?__mv([SM])_([A-Za-z0-9_]*?)_v"?;?$/;

function placeholder(language: string, multi: boolean, name: string | undefined): string {
  const id = `__mv${multi ? "M" : "S"}_${name && name !== "_" ? name : ""}_v`;
  return language === "json" ? `"${id}"` : id;
}

/** Replaces metavariables with placeholders; returns the new text. */
export function substituteMetavariables(pattern: string, language: string): { text: string; names: string[] } {
  const names = new Set<string>();
  const text = pattern.replace(METAVAR, (_m, multiName: string | undefined, singleName: string | undefined) => {
    const multi = _m.startsWith("$$$");
    const name = multi ? multiName : singleName;
    if (name && name !== "_") names.add(name);
    return placeholder(language, multi, name);
  });
  return { text, names: [...names] };
}

function metaOf(text: string): PatternNode | null {
  const m = PLACEHOLDER.exec(text.trim());
  if (!m) return null;
  return { kind: "meta", multi: m[1] === "M", name: m[2] ? m[2] : null };
}

function significantChildren(n: Node): Node[] {
  return n.children.filter((c) => !c.isExtra);
}

function toPatternNode(n: Node): PatternNode {
  const meta = metaOf(n.text);
  if (meta) return meta;
  const kids = significantChildren(n);
  if (kids.length === 0) return { kind: "leaf", type: n.type, text: n.text };
  return { kind: "node", type: n.type, children: kids.map(toPatternNode) };
}

/** Word-like leaf texts: each must appear verbatim in any code the pattern matches. */
function leafWords(p: PatternNode): string[] {
  if (p.kind === "meta") return [];
  if (p.kind === "leaf") return /^\w+$/.test(p.text) ? [p.text] : [];
  return p.children.flatMap(leafWords);
}

/** The nodes that span exactly [start, end): descend while one child covers it, then unwrap. */
function spanning(root: Node, start: number, end: number): Node[] | null {
  let n = root;
  for (;;) {
    const kids = significantChildren(n);
    const cover = kids.find((c) => c.startIndex <= start && c.endIndex >= end);
    if (cover) {
      n = cover;
      continue;
    }
    const inside = kids.filter((c) => c.startIndex >= start && c.endIndex <= end);
    if (inside.length > 0 && inside[0]?.startIndex === start && inside[inside.length - 1]?.endIndex === end) {
      // Sibling sequence, unless it is the whole of `n` (then n itself is the one node).
      if (inside.length === kids.length && n.startIndex === start && n.endIndex === end) return [unwrap(n)];
      // Elements of a sequence stay as they are: each must be the sibling the grammar makes it.
      return inside;
    }
    if (n.startIndex === start && n.endIndex === end) return [unwrap(n)];
    return null;
  }
}

/** Wrapper nodes (an expression statement around a call) give way to what they wrap. */
function unwrap(n: Node): Node {
  let cur = n;
  for (;;) {
    if (metaOf(cur.text)) return cur;
    const kids = significantChildren(cur);
    const only = kids.length === 1 ? kids[0] : undefined;
    if (!only || only.startIndex !== cur.startIndex || only.endIndex !== cur.endIndex) return cur;
    cur = only;
  }
}

function firstError(n: Node): Node | null {
  if (n.isError || n.isMissing) return n;
  if (!n.hasError) return null;
  for (const c of n.children) {
    const e = firstError(c);
    if (e) return e;
  }
  return n;
}

function restoreMetavariables(text: string): string {
  return text.replace(/"?__mv([SM])_([A-Za-z0-9_]*?)_v"?/g, (_m, kind: string, name: string) => `${kind === "M" ? "$$$" : "$"}${name || "_"}`);
}

function complaint(root: Node, ctx: PatternContext, offset: number, source: string): string {
  const e = firstError(root);
  if (!e) return `${ctx.name}: does not form whole syntax nodes`;
  const at = Math.max(0, e.startIndex - offset);
  const line = source.slice(0, at).split("\n").length;
  const what = e.isMissing ? `missing \`${e.type}\`` : `unexpected \`${restoreMetavariables(e.text).slice(0, 40)}\``;
  return `${ctx.name}: ${what} at line ${line} of the pattern`;
}

function indentLines(text: string, indent: string): string {
  return text
    .split("\n")
    .map((l) => indent + l)
    .join("\n");
}

export function compilePattern(parser: Parser, language: string, pattern: string): CompiledPattern {
  const trimmed = pattern.trim();
  if (!trimmed) throw new AgentError("invalid_argument", "the pattern is empty; give code with $METAVARIABLES, e.g. `foo($X)`");
  const { text, names } = substituteMetavariables(trimmed, language);
  const complaints: string[] = [];
  const tried = new Set<string>();
  for (const ctx of contextsFor(language)) {
    const body = ctx.indent ? indentLines(text + (ctx.suffix ?? ""), ctx.indent) : text + (ctx.suffix ?? "");
    const source = ctx.before + body + ctx.after;
    if (tried.has(source)) continue;
    tried.add(source);
    const tree = parser.parse(source);
    if (!tree) continue;
    try {
      const start = ctx.before.length + (ctx.indent?.length ?? 0);
      const end = ctx.before.length + body.length;
      if (tree.rootNode.hasError) {
        complaints.push(complaint(tree.rootNode, ctx, start, body));
        continue;
      }
      const nodes = spanning(tree.rootNode, start, end);
      if (!nodes) {
        complaints.push(`${ctx.name}: does not form whole syntax nodes`);
        continue;
      }
      const roots = nodes.map(toPatternNode);
      const first = roots[0];
      return {
        source: trimmed,
        language,
        context: ctx.name,
        roots,
        rootType: first && first.kind !== "meta" ? first.type : null,
        metaNames: names,
        requiredWords: [...new Set(roots.flatMap(leafWords))],
      };
    } finally {
      tree.delete();
    }
  }
  throw new AgentError(
    "invalid_argument",
    `the pattern \`${trimmed}\` is not valid ${language} in any context the compiler tries; nothing was searched. ` +
      `The parser's complaints: ${complaints.join("; ")}. Write the pattern as complete ${language} code (a statement, an expression, a class member or a declaration).`,
  );
}
