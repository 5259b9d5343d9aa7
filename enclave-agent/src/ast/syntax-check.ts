// Does a file still parse? The grammar's own errors (an ERROR node, a MISSING token), and for Python
// the indentation rules its grammar does not enforce: tree-sitter-python accepts a block whose
// statements start at different columns, which Python refuses with an IndentationError.
import type { Node } from "web-tree-sitter";
import { columnAt } from "./matcher.js";

export interface SyntaxProblem {
  /** 1-based. */
  line: number;
  /** 1-based, in code points. */
  column: number;
  message: string;
}

function at(n: Node, source: string, message: string): SyntaxProblem {
  return { line: n.startPosition.row + 1, column: columnAt(source, n.startIndex), message };
}

function grammarError(root: Node, source: string): SyntaxProblem | undefined {
  if (!root.hasError) return undefined;
  let n: Node = root;
  for (;;) {
    if (n.isError || n.isMissing) break;
    const next: Node | undefined = n.children.find((c) => c.isError || c.isMissing || c.hasError);
    if (!next) break;
    n = next;
  }
  const text = n.text.split("\n")[0] ?? "";
  const shown = text.length > 40 ? `${text.slice(0, 40)}…` : text;
  return at(n, source, n.isMissing ? `missing \`${n.type}\`` : n.isError ? `unexpected \`${shown}\`` : `syntax error in \`${n.type}\``);
}

/** True when nothing but whitespace precedes the node on its line. */
function startsLine(n: Node, source: string): boolean {
  const lineStart = source.lastIndexOf("\n", n.startIndex - 1) + 1;
  return source.slice(lineStart, n.startIndex).trim() === "";
}

/** The first statement of a Python block (or module) that starts its own line at another column
 * than the block's first such statement. */
function pythonIndentation(root: Node, source: string): SyntaxProblem | undefined {
  const blocks: Node[] = [root, ...root.descendantsOfType("block").filter((b): b is Node => b !== null)];
  let first: SyntaxProblem | undefined;
  for (const block of blocks) {
    let column: number | undefined = block.type === "module" ? 0 : undefined;
    for (const s of block.namedChildren) {
      if (!s || s.isExtra || !startsLine(s, source)) continue;
      column ??= s.startPosition.column;
      if (s.startPosition.column !== column) {
        const p = at(
          s,
          source,
          s.startPosition.column > column ? "unexpected indent (IndentationError)" : "unindent does not match the block's indentation (IndentationError)",
        );
        if (!first || p.line < first.line) first = p;
        break;
      }
    }
  }
  return first;
}

export function firstSyntaxProblem(root: Node, source: string, language: string): SyntaxProblem | undefined {
  const problems = [grammarError(root, source), language === "python" ? pythonIndentation(root, source) : undefined].filter(
    (p): p is SyntaxProblem => p !== undefined,
  );
  return problems.sort((a, b) => a.line - b.line || a.column - b.column)[0];
}
