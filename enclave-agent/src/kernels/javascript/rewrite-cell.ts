// Rewrites a JavaScript cell so it runs as a notebook cell on node:vm: inside an async function (so
// top-level `await` works), with its top-level declarations turned into assignments to globals (so
// `let`, `const`, `class` and functions survive into the next cell, may be declared again, and a
// declaration that throws does not leave its name poisoned), static `import` turned into dynamic
// import, every `import()` resolved from the working directory, and the last expression returned
// for the echo. Line numbers stay the user's: the wrapper opens on the cell's first line.
import { parse } from "acorn";

/** The name the runner gives its module loader in the cell's global scope. */
export const IMPORT_FN = "__enclaveImport";

interface AnyNode {
  type: string;
  start: number;
  end: number;
  [key: string]: unknown;
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

export class CellSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(message);
    this.name = "SyntaxError";
  }
}

function isNode(v: unknown): v is AnyNode {
  return typeof v === "object" && v !== null && typeof (v as AnyNode).type === "string" && typeof (v as AnyNode).start === "number";
}

function children(node: AnyNode): AnyNode[] {
  const out: AnyNode[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === "loc") continue;
    if (Array.isArray(value)) for (const v of value) if (isNode(v)) out.push(v);
    if (isNode(value)) out.push(value);
  }
  return out;
}

const FUNCTION_TYPES = new Set(["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"]);

function parseCell(code: string): AnyNode {
  const common = { ecmaVersion: "latest" as const, allowHashBang: true, locations: false };
  try {
    return parse(code, { ...common, sourceType: "script", allowAwaitOutsideFunction: true }) as unknown as AnyNode;
  } catch (scriptErr) {
    try {
      // Static imports only parse as a module.
      return parse(code, { ...common, sourceType: "module" }) as unknown as AnyNode;
    } catch {
      const e = scriptErr as SyntaxError & { loc?: { line: number; column: number } };
      throw new CellSyntaxError(e.message, e.loc?.line ?? 1, e.loc?.column ?? 0);
    }
  }
}

function bindingText(code: string, decl: AnyNode): string {
  return code.slice((decl.id as AnyNode).start, (decl.id as AnyNode).end);
}

/** `let a = 1, {b} = o` → `void ((a = 1), ({b} = o))`; `var a;` keeps a's current value. */
function declarationAsAssignment(code: string, node: AnyNode, edits: Edit[], inFor: boolean): void {
  const kind = node.kind as string;
  const decls = node.declarations as AnyNode[];
  const first = decls[0];
  const last = decls[decls.length - 1];
  if (!first || !last) return;
  edits.push({ start: node.start, end: first.start, text: inFor ? "" : "void (" });
  for (const d of decls) {
    const id = d.id as AnyNode;
    if (d.init) {
      // Parenthesised, `{a} = o` is an assignment and not a block.
      edits.push({ start: d.start, end: d.start, text: "(" });
      edits.push({ start: d.end, end: d.end, text: ")" });
    } else if (id.type === "Identifier") {
      const name = JSON.stringify(bindingText(code, d));
      edits.push({
        start: d.start,
        end: d.end,
        text: kind === "var" ? `(globalThis[${name}] = globalThis[${name}])` : `(globalThis[${name}] = undefined)`,
      });
    }
  }
  if (!inFor) edits.push({ start: last.end, end: last.end, text: ")" });
}

function importAsAssignment(code: string, node: AnyNode, edits: Edit[]): void {
  const source = code.slice((node.source as AnyNode).start, (node.source as AnyNode).end);
  const specifiers = node.specifiers as AnyNode[];
  const loaded = `(await ${IMPORT_FN}(${source}))`;
  const ns = specifiers.find((s) => s.type === "ImportNamespaceSpecifier");
  const parts: string[] = [];
  for (const s of specifiers) {
    const local = (s.local as AnyNode & { name: string }).name;
    if (s.type === "ImportDefaultSpecifier") parts.push(`default: ${local}`);
    else if (s.type === "ImportSpecifier") {
      const imported = s.imported as AnyNode & { name?: string; value?: string };
      parts.push(`${JSON.stringify(imported.name ?? imported.value)}: ${local}`);
    }
  }
  let text: string;
  if (ns) {
    const local = (ns.local as AnyNode & { name: string }).name;
    text = parts.length ? `void (${local} = ${loaded}, {${parts.join(", ")}} = ${local});` : `void (${local} = ${loaded});`;
  } else if (parts.length) {
    text = `void ({${parts.join(", ")}} = ${loaded});`;
  } else {
    text = `void ${loaded};`;
  }
  edits.push({ start: node.start, end: node.end, text });
}

/** Walks below the top level: `var` outside functions becomes global, and every import() ours. */
function walk(code: string, node: AnyNode, edits: Edit[], inFunction: boolean): void {
  if (node.type === "ImportExpression") {
    edits.push({ start: node.start, end: node.start + "import".length, text: IMPORT_FN });
  }
  if (node.type === "VariableDeclaration" && node.kind === "var" && !inFunction) {
    declarationAsAssignment(code, node, edits, false);
  }
  for (const child of children(node)) {
    const fn = inFunction || FUNCTION_TYPES.has(child.type) || child.type === "ClassBody";
    if ((node.type === "ForStatement" && child === node.init) || ((node.type === "ForInStatement" || node.type === "ForOfStatement") && child === node.left)) {
      if (child.type === "VariableDeclaration" && child.kind === "var" && !inFunction) {
        declarationAsAssignment(code, child, edits, true);
        for (const d of child.declarations as AnyNode[]) for (const c of children(d)) walk(code, c, edits, false);
        continue;
      }
    }
    walk(code, child, edits, fn);
  }
}

/** A run of the rewritten source that came from the cell at `orig` (copied text), or was put in for
 * the cell text starting at `orig` (inserted text: a position inside it means the cell's text there). */
interface Span {
  gen: number;
  orig: number;
  len: number;
  copied: boolean;
}

function apply(code: string, edits: Edit[], prefix: string): { text: string; spans: Span[] } {
  // Insertions at a position go before a replacement starting there; outer before inner.
  const sorted = edits.map((e, i) => ({ ...e, i })).sort((a, b) => a.start - b.start || (a.end === a.start ? 0 : 1) - (b.end === b.start ? 0 : 1) || a.i - b.i);
  let out = prefix;
  const spans: Span[] = [{ gen: 0, orig: 0, len: prefix.length, copied: false }];
  const put = (text: string, orig: number, copied: boolean): void => {
    if (!text) return;
    spans.push({ gen: out.length, orig, len: text.length, copied });
    out += text;
  };
  let at = 0;
  for (const e of sorted) {
    if (e.start < at) continue; // overlapping edits never happen for well-formed trees; be safe
    put(code.slice(at, e.start), at, true);
    put(e.text, e.start, false);
    at = e.end;
  }
  put(code.slice(at), at, true);
  return { text: out, spans };
}

/** A position in a stack trace: line and column as V8 prints them (both from 1). */
export interface StackPosition {
  line: number;
  column: number;
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

/** Maps positions in the rewritten source back to the cell's own text. */
export class CellPositions {
  private readonly genLines: number[];
  private readonly cellLines: number[];
  private readonly codeLength: number;

  constructor(
    private readonly spans: Span[],
    generated: string,
    code: string,
  ) {
    this.genLines = lineStarts(generated);
    this.cellLines = lineStarts(code);
    this.codeLength = code.length;
  }

  /** How many numbers this map holds (what remembering it costs). */
  get size(): number {
    return this.genLines.length + this.cellLines.length + this.spans.length * 4;
  }

  /** Where a rewritten position is in the cell; undefined for the runner's own wrapper. */
  toCell(pos: StackPosition): StackPosition | undefined {
    const lineStart = this.genLines[pos.line - 1];
    if (lineStart === undefined) return undefined;
    const offset = lineStart + pos.column - 1;
    const span = this.spans.find((s) => offset >= s.gen && offset < s.gen + s.len);
    if (!span || (span.gen === 0 && !span.copied)) return undefined;
    const orig = span.copied ? span.orig + (offset - span.gen) : span.orig;
    if (orig >= this.codeLength && !span.copied) return undefined;
    let line = 0;
    while (line + 1 < this.cellLines.length && (this.cellLines[line + 1] as number) <= orig) line += 1;
    return { line: line + 1, column: orig - (this.cellLines[line] as number) + 1 };
  }

  static identity(code: string): CellPositions {
    return new CellPositions([{ gen: 0, orig: 0, len: code.length, copied: true }], code, code);
  }
}

export interface RewrittenCell {
  source: string;
  /** Whether the last statement is an expression whose value is echoed. */
  echoes: boolean;
  /** Where positions in `source` (in stack traces) are in the cell. */
  positions: CellPositions;
}

/** Node's REPL reads `{ a: 1 }` alone as an object, not a block: so does a cell. */
function objectLiteral(code: string): string | undefined {
  const trimmed = code.trim();
  if (!/^\{/.test(trimmed) || !/\}\s*;?$/.test(trimmed)) return undefined;
  const body = trimmed.replace(/;\s*$/, "");
  try {
    parse(`(${body})`, { ecmaVersion: "latest", allowAwaitOutsideFunction: true });
  } catch {
    return undefined;
  }
  const start = code.indexOf("{");
  return `${code.slice(0, start)}(${body})${code.slice(start + body.length)}`;
}

export function rewriteCell(cellCode: string): RewrittenCell {
  // Parenthesised, an object cell's positions move by one column: nothing in it can throw but a getter.
  const code = objectLiteral(cellCode) ?? cellCode;
  const program = parseCell(code);
  const body = program.body as AnyNode[];
  const edits: Edit[] = [];
  const hoisted: string[] = [];
  let echoes = false;
  body.forEach((stmt, index) => {
    const isLast = index === body.length - 1;
    switch (stmt.type) {
      case "VariableDeclaration":
        declarationAsAssignment(code, stmt, edits, false);
        for (const d of stmt.declarations as AnyNode[]) if (d.init) walk(code, d.init as AnyNode, edits, false);
        return;
      case "FunctionDeclaration": {
        const name = (stmt.id as AnyNode & { name: string }).name;
        hoisted.push(`globalThis[${JSON.stringify(name)}] = ${name};`);
        walk(code, stmt, edits, true);
        return;
      }
      case "ClassDeclaration": {
        const name = (stmt.id as AnyNode & { name: string }).name;
        edits.push({ start: stmt.start, end: stmt.start, text: `${name} = ` });
        edits.push({ start: stmt.end, end: stmt.end, text: ";" });
        walk(code, stmt, edits, false);
        return;
      }
      case "ImportDeclaration":
        importAsAssignment(code, stmt, edits);
        return;
      case "ExportNamedDeclaration":
      case "ExportDefaultDeclaration":
      case "ExportAllDeclaration":
        throw new CellSyntaxError("`export` has no meaning in a cell: everything a cell declares is already visible to the next one", 1, 0);
      case "ExpressionStatement":
        if (isLast) {
          // The statement's own range: the expression's leaves out parentheses around it, `({ a: 1 })`.
          const semicolon = code[stmt.end - 1] === ";";
          edits.push({ start: stmt.start, end: stmt.start, text: "return { value: (" });
          edits.push({ start: semicolon ? stmt.end - 1 : stmt.end, end: semicolon ? stmt.end - 1 : stmt.end, text: semicolon ? ") }" : ") };" });
          echoes = true;
        }
        walk(code, stmt, edits, false);
        return;
      default:
        walk(code, stmt, edits, false);
    }
  });
  const { text, spans } = apply(code, edits, `(async () => {${hoisted.join(" ")} `);
  const source = `${text}\n})()`;
  return { source, echoes, positions: new CellPositions(spans, source, code) };
}
