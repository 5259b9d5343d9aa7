// Positions as the tools give them (a 1-based line plus a symbol substring of it, `name#N` for the
// Nth occurrence) turned into LSP positions, and LSP positions turned back into what people read.
// LSP counts characters in UTF-16 code units, which is exactly how JavaScript indexes strings, so a
// string index is an LSP character; columns shown to people count code points instead.
import { AgentError } from "../errors.js";
import type { Position } from "./lsp-types.js";

// The last text split, kept: a query splits its document twice (to place the symbol, then to show
// its line), and the next query on an unchanged document splits the same text again. The same
// string is recognized at once; another one is compared, which costs less than splitting it.
let lastText: string | undefined;
let lastLines: readonly string[] = [];

export function splitLines(text: string): readonly string[] {
  if (text !== lastText) {
    lastLines = Object.freeze(text.split(/\r\n|\r|\n/));
    lastText = text;
  }
  return lastLines;
}

/** 1-based column, in code points, of a UTF-16 offset on a line. */
export function displayColumn(lineText: string, utf16: number): number {
  return [...lineText.slice(0, Math.max(0, utf16))].length + 1;
}

const WORD = /[\p{L}\p{N}_$]/u;

function isWordAt(line: string, i: number): boolean {
  const ch = line.codePointAt(i);
  return ch !== undefined && WORD.test(String.fromCodePoint(ch));
}

function wordBoundedAt(line: string, at: number, len: number): boolean {
  const before = at > 0 ? line.slice(0, at) : "";
  const prev = before ? ([...before].pop() ?? "") : "";
  return !(prev && WORD.test(prev)) && !isWordAt(line, at + len);
}

export function identifiersOf(line: string): string[] {
  return [...new Set(line.match(/[\p{L}_$][\p{L}\p{N}_$]*/gu) ?? [])];
}

export interface SymbolSpec {
  name: string;
  occurrence: number;
}

/** `name#3` → name and occurrence 3; a plain name is occurrence 1. */
export function parseSymbol(symbol: string): SymbolSpec {
  const m = /^(.*\S)#(\d+)$/s.exec(symbol);
  if (m && m[1] !== undefined && m[2] !== undefined) return { name: m[1], occurrence: Math.max(1, Number(m[2])) };
  return { name: symbol, occurrence: 1 };
}

function occurrences(line: string, name: string): number[] {
  const out: number[] = [];
  for (let at = line.indexOf(name); at !== -1; at = line.indexOf(name, at + 1)) out.push(at);
  return out;
}

function describeLine(file: string, line: number, text: string): string {
  const ids = identifiersOf(text);
  const shown = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  return (
    `line ${line} of \`${file}\` reads: ${shown.trim() ? `\`${shown.trim()}\`` : "(an empty line)"}` +
    (ids.length ? `; it contains ${ids.map((i) => `\`${i}\``).join(", ")}` : "; it has no identifiers")
  );
}

/**
 * The LSP position of `symbol` on 1-based `line` of `text`. Whole-word matches are preferred (so `x`
 * does not land inside `max`); a symbol with dots or other punctuation points at its last word.
 */
export function locateSymbol(text: string, file: string, line: number, symbol: string | undefined): Position {
  const lines = splitLines(text);
  if (line < 1 || line > lines.length) {
    throw new AgentError("invalid_argument", `\`${file}\` has ${lines.length} line${lines.length === 1 ? "" : "s"}; line ${line} is out of range`);
  }
  const lineText = lines[line - 1] ?? "";
  if (!symbol || !symbol.trim()) {
    throw new AgentError("invalid_argument", `give \`symbol\`: the name on the line to ask about (never a column); ${describeLine(file, line, lineText)}`);
  }
  const { name, occurrence } = parseSymbol(symbol);
  const all = occurrences(lineText, name);
  const whole = all.filter((at) => wordBoundedAt(lineText, at, name.length));
  const candidates = whole.length ? whole : all;
  if (candidates.length === 0) {
    throw new AgentError("invalid_argument", `\`${name}\` is not on line ${line}; ${describeLine(file, line, lineText)}`);
  }
  const at = candidates[occurrence - 1];
  if (at === undefined) {
    throw new AgentError(
      "invalid_argument",
      `\`${name}\` occurs ${candidates.length} time${candidates.length === 1 ? "" : "s"} on line ${line} of \`${file}\`; there is no #${occurrence}`,
    );
  }
  // For `obj.method` point at `method`: the last word-run inside the match.
  let offset = at;
  const words = [...name.matchAll(/[\p{L}\p{N}_$]+/gu)];
  const last = words[words.length - 1];
  if (last?.index !== undefined && words.length > 1) offset = at + last.index;
  return { line: line - 1, character: offset };
}
