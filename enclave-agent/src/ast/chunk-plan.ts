// Cutting one large file into top-level pieces that separate workers parse at the same time. Each
// piece is parsed over the whole text with tree-sitter's included ranges, so its nodes keep their
// positions in the file and the matcher needs no offsets.
//
// Why the answer equals the whole parse's: a cut comes only at the start of a line that opens a
// top-level declaration after a line that ends a statement (the grammar's ChunkRule), so when the
// whole parse is at the top level there, the piece after the cut parses as it does in the whole
// file, and the piece before it ends as it does there (none of the declaration keywords continues
// the statement before). When the whole parse is NOT at the top level there (the cut is inside a
// bracket, a string or template spanning lines, a triple-quoted string), the piece before the cut
// ends with that construct unclosed, which its parse reports as an error: the caller then parses
// the file whole. The one construct whose cut-off start can still parse cleanly, a block comment
// (`/*` reads as a regular expression), is kept away from by the plan itself. Patterns that could
// match across the pieces (the root node, a run of sibling statements, any node) are not split.
import type { ChunkRule } from "./grammar-registry.js";
import type { CompiledPattern } from "./pattern-compiler.js";

/** One piece, as web-tree-sitter's Range (UTF-16 offsets; columns are 0 at a cut, a line start). */
export interface ChunkRange {
  startIndex: number;
  endIndex: number;
  startPosition: { row: number; column: number };
  endPosition: { row: number; column: number };
}

/** May the matches of this pattern be gathered piece by piece? Only a single-node pattern of a
 * definite type other than the root's: it matches one node inside one top-level statement, and
 * those nodes are the same in a piece's tree as in the whole file's. */
export function patternSplittable(pattern: CompiledPattern, rule: ChunkRule): boolean {
  return pattern.roots.length === 1 && pattern.rootType !== null && pattern.rootType !== rule.rootType;
}

/** Spans of text that could be inside a block comment: from every `/*` (wherever it is, even in a
 * string) to the first `*\/` after it, or to the end. Every real comment is one of them. Ascending
 * by start and by end. */
function commentSpans(source: string): [number, number][] {
  const out: [number, number][] = [];
  for (let i = source.indexOf("/*"); i >= 0;) {
    const close = source.indexOf("*/", i + 2);
    if (close < 0) {
      out.push([i, source.length]);
      break;
    }
    out.push([i, close + 2]);
    // An opening before close - 1 finds the same `*/`: its span lies inside this one.
    i = source.indexOf("/*", close - 1);
  }
  return out;
}

/** Longest declaration start a rule needs to see (`abstract class `, `async function `, with room). */
const HEAD_CHARS = 64;

function isBlankChar(c: number): boolean {
  return c === 32 || c === 9 || c === 13 || c === 11 || c === 12;
}

/** Offsets where a cut may go, ascending (never 0). One pass over the lines; only a line starting
 * with a letter or `@` is tested against the rule. */
export function cutCandidates(source: string, rule: ChunkRule): number[] {
  const spans = rule.blockComments ? commentSpans(source) : [];
  let span = 0;
  const out: number[] = [];
  // The last non-blank line seen, as [start, end).
  let prevStart = -1;
  let prevEnd = -1;
  for (let at = 0; at < source.length;) {
    const nl = source.indexOf("\n", at);
    const end = nl < 0 ? source.length : nl;
    const c = source.charCodeAt(at);
    const word = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 64;
    if (
      word &&
      prevStart >= 0 &&
      rule.declarationStart.test(source.slice(at, Math.min(end, at + HEAD_CHARS))) &&
      rule.previousLineEnds(source.slice(prevStart, prevEnd))
    ) {
      while (span < spans.length && (spans[span] as [number, number])[1] <= at) span++;
      const s = spans[span];
      if (!s || s[0] >= at) out.push(at);
    }
    let k = at;
    while (k < end && isBlankChar(source.charCodeAt(k))) k++;
    if (k < end) {
      prevStart = at;
      prevEnd = end;
    }
    at = end + 1;
  }
  return out;
}

/** May a cut go at line start `at`? The same test as cutCandidates, made from `at` alone: the last
 * `/*` before `at` stands for every earlier one (if any earlier opening's comment could reach past
 * `at`, no `*\/` lies between it and `at`, so neither does one after the last opening). */
export function isCut(source: string, rule: ChunkRule, at: number): boolean {
  if (at <= 0 || at >= source.length || source.charCodeAt(at - 1) !== 10) return false;
  const c = source.charCodeAt(at);
  if (!((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 64)) return false;
  const nl = source.indexOf("\n", at);
  if (!rule.declarationStart.test(source.slice(at, Math.min(nl < 0 ? source.length : nl, at + HEAD_CHARS)))) return false;
  // The last non-blank line before `at`.
  let end = at - 1;
  for (;;) {
    const start = source.lastIndexOf("\n", end - 1) + 1;
    let k = start;
    while (k < end && isBlankChar(source.charCodeAt(k))) k++;
    if (k < end) {
      if (!rule.previousLineEnds(source.slice(start, end))) return false;
      break;
    }
    if (start === 0) return false;
    end = start - 1;
  }
  if (rule.blockComments) {
    const open = source.lastIndexOf("/*", at - 1);
    if (open >= 0) {
      const close = source.indexOf("*/", open + 2);
      if (close < 0 || close + 2 > at) return false;
    }
  }
  return true;
}

/** The cut nearest `ideal` strictly between `lo` and `hi`, found by walking lines outward from it
 * (a large file is not scanned whole). */
function nearestCut(source: string, rule: ChunkRule, ideal: number, lo: number, hi: number): number | undefined {
  const n = source.length;
  const nextLine = (at: number): number => {
    const nl = source.indexOf("\n", at);
    return nl < 0 ? n : nl + 1;
  };
  // f: the first line start at or after `ideal`; b: the one before it.
  let f = ideal > 0 && source.charCodeAt(ideal - 1) === 10 ? ideal : nextLine(ideal);
  let b = f >= 2 ? source.lastIndexOf("\n", f - 2) + 1 : -1;
  let best: number | undefined;
  for (;;) {
    const df = f < hi ? f - ideal : Infinity;
    const db = b > lo ? ideal - b : Infinity;
    if (best !== undefined && Math.abs(best - ideal) <= Math.min(df, db)) return best;
    if (df === Infinity && db === Infinity) return best;
    if (df <= db) {
      if (isCut(source, rule, f)) best = f;
      f = nextLine(f);
    } else {
      if (isCut(source, rule, b)) best = b;
      b = b <= 0 ? -1 : source.lastIndexOf("\n", b - 2) + 1;
    }
  }
}

/**
 * Up to `pieces` ranges covering the whole text, each cut the candidate nearest its even share
 * (pieces are parsed at once, so the largest sets the time). Null when the text cannot be cut (no
 * candidate, or a piece would not be smaller than 3/4 of the file).
 */
export function planChunks(source: string, rule: ChunkRule, pieces: number): ChunkRange[] | null {
  if (pieces < 2) return null;
  const n = source.length;
  const cuts: number[] = [];
  for (let i = 1; i < pieces; i++) {
    const prev = cuts[cuts.length - 1] ?? 0;
    const c = nearestCut(source, rule, Math.max(prev + 1, Math.round((i * n) / pieces)), prev, n);
    if (c !== undefined && c > prev) cuts.push(c);
  }
  if (cuts.length === 0) return null;
  const bounds = [0, ...cuts, n];
  let largest = 0;
  for (let j = 1; j < bounds.length; j++) largest = Math.max(largest, (bounds[j] as number) - (bounds[j - 1] as number));
  if (largest > n * 0.75) return null;
  return toRanges(source, cuts);
}

/** Row and column (UTF-16 units, as the runtime counts them) of each offset, ascending. */
function pointsAt(source: string, offsets: number[]): { row: number; column: number }[] {
  const out: { row: number; column: number }[] = [];
  let row = 0;
  let lineStart = 0;
  let nl = source.indexOf("\n");
  for (const at of offsets) {
    while (nl >= 0 && nl < at) {
      row++;
      lineStart = nl + 1;
      nl = source.indexOf("\n", lineStart);
    }
    out.push({ row, column: at - lineStart });
  }
  return out;
}

function toRanges(source: string, cuts: number[]): ChunkRange[] {
  const bounds = [0, ...cuts, source.length];
  const points = pointsAt(source, bounds);
  const out: ChunkRange[] = [];
  for (let j = 0; j + 1 < bounds.length; j++) {
    out.push({
      startIndex: bounds[j] as number,
      endIndex: bounds[j + 1] as number,
      startPosition: points[j] as { row: number; column: number },
      endPosition: points[j + 1] as { row: number; column: number },
    });
  }
  return out;
}
