// Turns a pattern such as `if ($X != null) $X.dispose()` into a tree the matcher walks. Metavariables
// are swapped for placeholder identifiers the grammar accepts, the text is parsed in the scaffolds of
// the context ladder, and the nodes spanning the pattern become a plain PatternNode tree (comments
// dropped, so they never have to match).
//
// Which reading wins: a pattern that starts with a statement keyword (`switch`, `while`, …) is read
// as a statement whenever that parses, even if another context also accepts it (JavaScript reads
// `switch ($X) { $$$ }` as a method named `switch` in a class body otherwise). Else the first context
// that parses the pattern as written wins. A pattern no context parses as written may still parse
// with the filler the grammar needs, and the reading then says what was supplied:
// - a `;` the grammar wants after a metavariable (`while ($C) { $$$ }` in C);
// - a metavariable where the grammar wants a construct a placeholder cannot spell (the cases of a
//   `switch`): the metavariable stands for whatever the code has there;
// - a metavariable where the grammar accepts only a string literal (`import … from $S`): it is read
//   as any string literal.
import type { Node, Parser } from "web-tree-sitter";
import { AgentError } from "../errors.js";
import { contextsFor, type ContextName, type PatternContext, startsWithStatementKeyword } from "./pattern-contexts.js";

export type PatternNode =
  /** `$NAME` (one node), `$$$NAME` (a run of siblings); name null for `$_`, `$_NAME` and `$$$`. */
  | { kind: "meta"; name: string | null; multi: boolean }
  | { kind: "leaf"; type: string; text: string; named: boolean }
  | { kind: "node"; type: string; children: PatternNode[] };

export interface CompiledPattern {
  source: string;
  language: string;
  context: ContextName;
  /** What the compiler supplied so the pattern parses (empty when it parsed as written). */
  fillers: string[];
  /** One node, or a sequence of siblings (`a(); b();`). */
  roots: PatternNode[];
  /** Node types the first root can match, for finding candidates fast; empty means any node. */
  rootType: string | null;
  /** Names a rewrite may use (`$_NAME` binds nothing, so it is not here). */
  metaNames: string[];
  /** Words every match contains (the pattern's identifier and keyword leaves): a file lacking one is not parsed. */
  requiredWords: string[];
}

const METAVAR = /\$\$\$([A-Z_][A-Z0-9_]*)?|\$([A-Z_][A-Z0-9_]*)/g;
/** A placeholder as the grammar sees it: an identifier, or (for an expression statement) one followed by `;`. */
const PLACEHOLDER = /^__mv([SM])_([A-Za-z0-9_]*?)_v(;?)$/;
/** A placeholder we wrapped in quotes: the whole string literal stands for the metavariable. */
const QUOTED_PLACEHOLDER = /^"__mvq([SM])_([A-Za-z0-9_]*?)_v"$/;
const ANY_PLACEHOLDER = /"?__mvq?([SM])_([A-Za-z0-9_]*?)_v"?/g;

function placeholderId(multi: boolean, name: string | undefined): string {
  return `__mv${multi ? "M" : "S"}_${name ?? ""}_v`;
}

/** `$_`, `$_NAME` and `$$$` bind nothing: as in ast-grep, a name starting with `_` is a wildcard. */
function bindingName(name: string): string | null {
  return name && !name.startsWith("_") ? name : null;
}

function quoted(id: string): string {
  return `"${id.replace(/^__mv/, "__mvq")}"`;
}

/** Replaces metavariables with placeholders; returns the new text and the names that bind. */
export function substituteMetavariables(pattern: string, language: string): { text: string; names: string[] } {
  const names = new Set<string>();
  const text = pattern.replace(METAVAR, (whole: string, multiName: string | undefined, singleName: string | undefined, offset: number) => {
    const multi = whole.startsWith("$$$");
    const name = multi ? multiName : singleName;
    if (name && !name.startsWith("_")) names.add(name);
    const id = placeholderId(multi, name);
    // JSON has no identifiers: a metavariable is written as a string there, and stands for any
    // value — unless the pattern already put it inside quotes (then it is the string's content).
    const inQuotes = pattern[offset - 1] === '"' && pattern[offset + whole.length] === '"';
    return language === "json" && !inQuotes ? quoted(id) : id;
  });
  return { text, names: [...names] };
}

function metaOf(n: Node): PatternNode | null {
  const text = n.text.trim();
  const q = QUOTED_PLACEHOLDER.exec(text);
  if (q) return { kind: "meta", multi: q[1] === "M", name: bindingName(q[2] ?? "") };
  const m = PLACEHOLDER.exec(text);
  if (!m) return null;
  // `$$$;` is a run of statements; `$X;` is an expression statement around one node.
  if (m[3] && m[1] !== "M") return null;
  return { kind: "meta", multi: m[1] === "M", name: bindingName(m[2] ?? "") };
}

/** Children that take part in matching: not comments, not zero-width MISSING tokens, but an ERROR
 * node that is exactly one metavariable (the grammar could not place it; it stands for what is there). */
function significantChildren(n: Node): Node[] {
  return n.children.filter((c) => !c.isMissing && (!c.isExtra || (c.isError && metaOf(c) !== null)));
}

function toPatternNode(n: Node): PatternNode {
  const meta = metaOf(n);
  if (meta) return meta;
  const kids = significantChildren(n);
  if (kids.length === 0) return { kind: "leaf", type: n.type, text: n.text, named: n.isNamed };
  return { kind: "node", type: n.type, children: kids.map(toPatternNode) };
}

function isSeparatorLeaf(p: PatternNode | undefined): boolean {
  return p?.kind === "leaf" && !p.named && (p.text === ";" || p.text === ",");
}

/** Word-like leaf texts: each must appear verbatim in any code the pattern matches. */
function leafWords(p: PatternNode): string[] {
  if (p.kind === "meta") return [];
  if (p.kind === "leaf") return /^\w+$/.test(p.text) ? [p.text] : [];
  return p.children.flatMap(leafWords);
}

/** Nodes whose text runs past the pattern's end only by whitespace (a C `#define` takes its line's
 * newline) still span it exactly. */
function endsAt(n: Node, end: number, source: string): boolean {
  return n.endIndex === end || (n.endIndex > end && source.slice(end, n.endIndex).trim() === "");
}

/** The nodes that span exactly [start, end): descend while one child covers it, then unwrap. */
function spanning(root: Node, start: number, end: number, source: string): Node[] | null {
  let n = root;
  for (;;) {
    const kids = significantChildren(n);
    const cover = kids.find((c) => c.startIndex <= start && c.endIndex >= end);
    if (cover) {
      n = cover;
      continue;
    }
    if (n.startIndex === start && endsAt(n, end, source)) return [unwrap(n)];
    const inside = kids.filter((c) => c.startIndex >= start && c.endIndex <= end);
    if (inside.length > 0 && inside[0]?.startIndex === start && inside[inside.length - 1]?.endIndex === end) {
      // Sibling sequence, unless it is the whole of `n` (then n itself is the one node).
      if (inside.length === kids.length && n.startIndex === start && n.endIndex === end) return [unwrap(n)];
      // Elements of a sequence stay as they are: each must be the sibling the grammar makes it.
      return inside;
    }
    return null;
  }
}

/** Wrapper nodes (an expression statement around a call) give way to what they wrap. */
function unwrap(n: Node): Node {
  let cur = n;
  for (;;) {
    if (metaOf(cur)) return cur;
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
  return text.replace(ANY_PLACEHOLDER, (_m, kind: string, name: string) => `${kind === "M" ? "$$$" : "$"}${name}`);
}

/** How a parse with errors can still be read: the filler each error stands for, or null when an
 * error is one the pattern's author must fix. */
function fillersFor(root: Node, start: number, end: number, source: string): string[] | null {
  // A root that is itself an ERROR leaves nothing readable.
  if (root.isError || root.isMissing) return null;
  const out: string[] = [];
  let ok = true;
  const visit = (n: Node): void => {
    if (!ok || !n.hasError) return;
    for (const c of n.children) {
      if (!ok) return;
      if (c.isMissing) {
        // A `;` the grammar wants right after a metavariable (`{ $$$ }` in C, Java, Dart).
        const before = source.slice(start, c.startIndex).trimEnd();
        const placeholder = /__mv([SM])_([A-Za-z0-9_]*?)_v$/.exec(before);
        if (c.type === ";" && c.startIndex >= start && c.startIndex <= end && placeholder) {
          out.push(`a \`;\` supplied after \`${restoreMetavariables(placeholder[0])}\``);
          continue;
        }
        ok = false;
        return;
      }
      if (c.isError) {
        const meta = metaOf(c);
        if (meta && c.startIndex >= start && c.endIndex <= end) {
          const what = restoreMetavariables(c.text.trim());
          out.push(`\`${what}\` standing for whatever the code has where the grammar expects ${describeSlot(n)}`);
          continue;
        }
        ok = false;
        return;
      }
      visit(c);
    }
  };
  visit(root);
  return ok ? out : null;
}

function describeSlot(parent: Node): string {
  const t = parent.type;
  if (/switch|case|select/.test(t)) return "cases";
  return `the contents of a \`${t}\``;
}

/** Single placeholders inside an ERROR region: candidates for the string-literal filler. */
function placeholdersInErrors(root: Node, start: number, end: number): string[] {
  const out = new Set<string>();
  const visit = (n: Node): void => {
    if (!n.hasError && !n.isError) return;
    if (n.isError && n.startIndex < end && n.endIndex > start) {
      for (const m of n.text.matchAll(/__mvS_([A-Za-z0-9_]*?)_v/g)) out.add(m[0]);
      return;
    }
    for (const c of n.children) visit(c);
  };
  visit(root);
  return [...out];
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

interface Reading {
  context: ContextName;
  fillers: string[];
  roots: PatternNode[];
}

type Attempt = { reading: Reading; clean: boolean } | { complaint: string };

function attempt(parser: Parser, ctx: PatternContext, text: string, extraFillers: string[]): Attempt {
  const body = ctx.indent ? indentLines(text + (ctx.suffix ?? ""), ctx.indent) : text + (ctx.suffix ?? "");
  const source = ctx.before + body + ctx.after;
  const tree = parser.parse(source);
  if (!tree) return { complaint: `${ctx.name}: the parser gave no tree` };
  try {
    const start = ctx.before.length + (ctx.indent?.length ?? 0);
    const end = ctx.before.length + body.length;
    let fillers: string[] = [];
    if (tree.rootNode.hasError) {
      const f = fillersFor(tree.rootNode, start, end, source);
      if (!f) return { complaint: complaint(tree.rootNode, ctx, start, body) };
      fillers = f;
    }
    const nodes = spanning(tree.rootNode, start, end, source);
    if (!nodes) return { complaint: `${ctx.name}: does not form whole syntax nodes` };
    const all = [...extraFillers, ...fillers];
    const roots = nodes.map(toPatternNode);
    // A class member's `;` is the class body's token, not the member's (`readonly $P: $T;`): the
    // pattern is the member, which the code's own `;` follows.
    while (roots.length > 1 && isSeparatorLeaf(roots[roots.length - 1])) roots.pop();
    return { reading: { context: ctx.name, fillers: all, roots }, clean: all.length === 0 };
  } finally {
    tree.delete();
  }
}

/** Every context's reading of the text, in ladder order: clean ones, filled ones, and complaints. */
function readings(parser: Parser, language: string, text: string): { clean: Reading[]; filled: Reading[]; complaints: string[] } {
  const out = { clean: [] as Reading[], filled: [] as Reading[], complaints: [] as string[] };
  const tried = new Set<string>();
  for (const ctx of contextsFor(language)) {
    const key = `${ctx.before}\0${ctx.after}\0${ctx.suffix ?? ""}\0${ctx.indent ?? ""}`;
    if (tried.has(key)) continue;
    tried.add(key);
    let a = attempt(parser, ctx, text, []);
    if ("complaint" in a && language !== "json") {
      // Last filler: a metavariable the grammar accepts only as a string literal is read as one.
      const q = quoteFiller(parser, ctx, text);
      if (q) a = q;
    }
    if ("complaint" in a) out.complaints.push(a.complaint);
    else (a.clean ? out.clean : out.filled).push(a.reading);
  }
  return out;
}

function quoteFiller(parser: Parser, ctx: PatternContext, text: string): Attempt | null {
  const body = ctx.indent ? indentLines(text + (ctx.suffix ?? ""), ctx.indent) : text + (ctx.suffix ?? "");
  const source = ctx.before + body + ctx.after;
  const tree = parser.parse(source);
  if (!tree) return null;
  let ids: string[];
  try {
    ids = placeholdersInErrors(tree.rootNode, ctx.before.length, ctx.before.length + body.length);
  } finally {
    tree.delete();
  }
  // Those the parser choked on first, then the others (an error is often reported just before the
  // metavariable that caused it: `export * from $S`).
  const all = new Set([...ids, ...[...text.matchAll(/__mvS_[A-Za-z0-9_]*?_v/g)].map((m) => m[0])]);
  for (const id of all) {
    const a = attempt(parser, ctx, text.split(id).join(quoted(id)), [`\`${restoreMetavariables(id)}\` taken as a string literal`]);
    if (!("complaint" in a)) return a;
  }
  return null;
}

export function compilePattern(parser: Parser, language: string, pattern: string): CompiledPattern {
  const trimmed = pattern.trim();
  if (!trimmed) throw new AgentError("invalid_argument", "the pattern is empty; give code with $METAVARIABLES, e.g. `foo($X)`");
  const { text, names } = substituteMetavariables(trimmed, language);
  const r = readings(parser, language, text);
  // The `;`-added rung is itself a filler, and the weakest one: a `;` the grammar wants right after a
  // metavariable is supplied without making the pattern demand it.
  const asWritten = r.clean.filter((x) => x.context === "statement");
  const statementReadings = [
    ...asWritten,
    ...r.filled.filter((x) => x.context === "statement"),
    ...r.clean.filter((x) => x.context !== "statement" && x.context.startsWith("statement")),
  ];
  const preferred = startsWithStatementKeyword(language, trimmed) ? statementReadings[0] : undefined;
  const chosen = preferred ?? r.clean[0] ?? r.filled[0];
  if (!chosen) {
    throw new AgentError(
      "invalid_argument",
      `the pattern \`${trimmed}\` is not valid ${language} in any context the compiler tries; nothing was searched. ` +
        `The parser's complaints: ${r.complaints.join("; ")}. Write the pattern as complete ${language} code (a statement, an expression, a class member or a declaration).`,
    );
  }
  const first = chosen.roots[0];
  return {
    source: trimmed,
    language,
    context: chosen.context,
    fillers: chosen.fillers,
    roots: chosen.roots,
    rootType: first && first.kind !== "meta" ? first.type : null,
    metaNames: names,
    requiredWords: [...new Set(chosen.roots.flatMap(leafWords))],
  };
}
