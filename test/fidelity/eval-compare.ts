// How the eval differential suite compares a cell's output from Enclave with the reference's (Jupyter
// for Python, Node's REPL for JavaScript). Both sides are first normalised for what is never the same
// twice (addresses, timings, async ids, the workspace's path, a pty's carriage returns); equal then
// means identical. Otherwise the deliberate differences are applied in turn, each a narrow rewrite
// of both sides that docs/fidelity/eval.md lists as a difference from Jupyter or Node, with an example; equal
// after them means deliberate (with the rules it took), anything else is unknown: a bug to fix, or a
// difference to understand before it is added here.
import { parse } from "acorn";
import type { Language } from "./eval-corpus.js";

export type Part = { kind: "text"; text: string } | { kind: "image"; mime: string } | { kind: "rich"; mime: string; text: string };

export interface CellVerdict {
  verdict: "identical" | "deliberate" | "unknown";
  rules: string[];
  enclave: Part[];
  reference: Part[];
}

export interface CompareContext {
  enclaveWorkspace: string;
  referenceWorkspace: string;
  /** The number each side gave the cell (Enclave's `<cell N>`, Jupyter's `Cell In [N]`, the REPL's `REPLN`). */
  enclaveCell: number;
  referenceCell: number;
}

/** Where a notebook would redraw a cell's output area, which a transcript cannot: the Jupyter
 * reference marks it so, and the rules below recognise the marks. */
export const DISPLAY_UPDATED = "[jupyter: the display above is replaced by]";
export const OUTPUT_CLEARED = "[jupyter: the output above is cleared]";

interface Sides {
  enclave: Part[];
  reference: Part[];
}

export interface Rule {
  id: string;
  language: Language;
  /** What differs and why Enclave does it its way (the list in docs/fidelity/eval.md). */
  description: string;
  apply(sides: Sides, code: string, ctx: CompareContext): Sides;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function mapText(parts: Part[], fn: (t: string) => string): Part[] {
  return parts.map((p) => (p.kind === "text" ? { ...p, text: fn(p.text) } : p));
}

function texts(parts: Part[]): string {
  return parts.map((p) => (p.kind === "text" ? p.text : `\u0000${p.kind}:${p.mime}\u0000`)).join("\n");
}

function fromText(parts: Part[], text: string): Part[] {
  // Only for rules over single-text results: the other shapes stay as they are.
  return parts.length === 1 && parts[0]?.kind === "text" ? [{ kind: "text", text: text === "" ? "(no output)" : text }] : parts;
}

function onlyText(parts: Part[]): string | undefined {
  return parts.length === 1 && parts[0]?.kind === "text" ? parts[0].text : undefined;
}

/** What is never the same twice, on both sides. */
export function normalize(parts: Part[], workspaces: string[]): Part[] {
  const paths = [...workspaces, "/workspace"].sort((a, b) => b.length - a.length).map(escapeRe);
  const ws = new RegExp(`(?:${paths.join("|")})(?=/|\\b|$)`, "g");
  return mapText(parts, (t) =>
    t
      .replace(/\r\n?/g, "\n")
      .replace(ws, "<ws>")
      .replace(/0x[0-9a-f]{6,16}/g, "0x…")
      .replace(/\[Symbol\((async_id_symbol|trigger_async_id_symbol)\)\]: \d+/g, "[Symbol($1)]: …")
      .replace(/\/tmp\/ipykernel_\d+\/\d+\.py/g, "<ipykernel cell file>")
      // IPython warns when one timing run was much slower than the others: load, not behaviour.
      .replace(/^The slowest run took [\d.]+ times longer than the fastest\. This could mean that an intermediate result is being cached\.\n/gm, "")
      .replace(/^CPU times: .*$/gm, "CPU times: …")
      .replace(/^Wall time: .*$/gm, "Wall time: …")
      .replace(
        /^[\d.]+(?:e[+-]\d+)? [nµm]?s ± [\d.]+(?:e[+-]\d+)? [nµm]?s per loop \(mean ± std\. dev\. of (\d+) runs?, ([\d,]+) loops? each\)$/gm,
        "… per loop (mean ± std. dev. of $1 runs, … loops each)",
      )
      .replace(/[ \t]+$/gm, "")
      .replace(/\n+$/, ""),
  );
}

function same(a: Sides): boolean {
  return JSON.stringify(a.enclave) === JSON.stringify(a.reference);
}

// -- Python: tracebacks ---------------------------------------------------------------------------

interface PyException {
  frames: string[];
  error: string;
}

const CHAINS = ["The above exception was the direct cause of the following exception:", "During handling of the above exception, another exception occurred:"];

function relCell(n: number, current: number): string {
  const d = n - current;
  return d === 0 ? "this cell" : `cell ${d}`;
}

function where(file: string): string {
  return file.replace(/^"|"$/g, "").split("/").pop() ?? file;
}

/** The exception lines at the end of a traceback section: `Name: message`, module prefix dropped. */
function errorLine(lines: string[]): string {
  const text = lines.join("\n").trim();
  return text.replace(/^[\w.]+\.(\w+(?:Error|Exception|Warning|Exit|Interrupt)\b)/, "$1");
}

/** A traceback as Python prints it (Enclave) or as IPython does (Jupyter), as frames and error. */
function parsePyTraceback(text: string, current: number): PyException[] | undefined {
  const out: PyException[] = [];
  let frames: string[] = [];
  let tail: string[] = [];
  let inTail = false;
  let syntax = false;
  const flush = (): void => {
    out.push({ frames, error: errorLine(tail) });
    frames = [];
    tail = [];
    inTail = false;
  };
  for (const line of text.split("\n")) {
    let m: RegExpExecArray | null;
    if (CHAINS.includes(line.trim())) {
      flush();
      continue;
    }
    if (
      /^-{20,}$/.test(line) ||
      /^\w+\s+Traceback \(most recent call last\)$/.test(line) ||
      line === "Traceback (most recent call last):" ||
      line.trim() === ""
    )
      continue;
    if (
      (m = /^ {0,2}File "<cell (\d+)>", line (\d+)(?:, in .*)?$/.exec(line)) ||
      (m = /^ {0,2}(?:Cell|Input) In ?\[(\d+)\], line (\d+)(?:, in .*)?$/.exec(line))
    ) {
      frames.push(`${relCell(Number(m[1]), current)}:${m[2]}`);
      inTail = false;
      continue;
    }
    if ((m = /^ {0,2}File "([^"]+)", line (\d+)(?:, in .*)?$/.exec(line)) || (m = /^ {0,2}File ([^:]+(?::[^\d][^:]*)?):(\d+)(?:,? in .*)?$/.exec(line))) {
      const file = m[1] as string;
      // IPython's own frame, shown when it reports a SyntaxError raised by code the cell ran.
      if (/\/IPython\//.test(file)) continue;
      if (file === "<tokenize>") syntax = true;
      frames.push(`${where(file)}:${m[2]}`);
      inTail = false;
      continue;
    }
    if (/^\s*(?:\d+|-+>\s*\d+|\(\.\.\.\))(?:\s|$)/.test(line) || /^ {4}/.test(line) || /^\s+[~^]+\s*$/.test(line)) {
      // Source lines, IPython's numbered context, carets.
      if (!inTail) continue;
    }
    if (/^\[Previous line repeated \d+ more times?\]$/.test(line.trim()) || /^\[\.\.\. skipping/.test(line.trim())) continue;
    inTail = true;
    tail.push(line);
  }
  flush();
  if (out.some((e) => !/^\w+(?:: |$)/.test(e.error))) return undefined;
  if (syntax) for (const e of out) e.frames = e.frames.map((f) => f.replace(/^[^:]+:/, "this cell:"));
  return out;
}

function pyCanonical(exceptions: PyException[]): string {
  return exceptions
    .map((e) => {
      const syntax = /^(SyntaxError|IndentationError|TabError)\b/.test(e.error);
      // A SyntaxError is where the parser stopped: compared by its line, not by how it is drawn.
      const frames = syntax ? e.frames.slice(-1).map((f) => f.replace(/^[^:]+:/, "this cell:")) : e.frames;
      return `[traceback: ${frames.join(" > ")}]\n${e.error}`;
    })
    .join("\n[chained]\n");
}

const PY_TRACEBACK_START = [/^Traceback \(most recent call last\):$/m, /^ {2}File "<cell \d+>", line \d+$/m];
const JUPYTER_TRACEBACK_START = [
  /^-{75}$/m,
  /^ {2}(?:Cell|Input) In ?\[\d+\], line \d+$/m,
  /^ {2}File <tokenize>:\d+$/m,
  /^Traceback \(most recent call last\):$/m,
];

function splitAt(text: string, starts: RegExp[]): [string, string] | undefined {
  let at = -1;
  for (const re of starts) {
    const m = re.exec(text);
    if (m && (at < 0 || m.index < at)) at = m.index;
  }
  return at < 0 ? undefined : [text.slice(0, at), text.slice(at)];
}

/** Both sides' last text with its traceback (if each has one) rewritten by fn. */
function withTracebacks(s: Sides, fn: (mine: string, theirs: string) => [string, string] | undefined): Sides {
  const e = s.enclave.at(-1);
  const r = s.reference.at(-1);
  if (e?.kind !== "text" || r?.kind !== "text") return s;
  const mine = splitAt(e.text, PY_TRACEBACK_START);
  const theirs = splitAt(r.text, JUPYTER_TRACEBACK_START);
  if (!mine || !theirs) return s;
  const got = fn(mine[1], theirs[1]);
  if (!got) return s;
  return {
    enclave: [...s.enclave.slice(0, -1), { kind: "text", text: mine[0] + got[0] }],
    reference: [...s.reference.slice(0, -1), { kind: "text", text: theirs[0] + got[1] }],
  };
}

// -- Python: DataFrames ---------------------------------------------------------------------------

function decode(html: string): string {
  return html
    .replace(/<[^>]+>/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&")
    .trim();
}

/** pandas' HTML table as rows of cell texts, header rows apart, a spanned cell's text once (in its
 * first row and column) as the rendered table shows it; and how many index columns it has. */
function htmlTable(html: string): { head: string[][]; body: string[][]; footer: string; indexColumns: number } {
  const section = (tag: string): string => new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(html)?.[1] ?? "";
  const rows = (s: string): string[][] => {
    const out: string[][] = [];
    const covered = new Map<number, number>();
    for (const tr of s.match(/<tr[^>]*>[\s\S]*?<\/tr>/g) ?? []) {
      const cells: string[] = [];
      const skipCovered = (): void => {
        while ((covered.get(cells.length) ?? 0) > 0) {
          covered.set(cells.length, (covered.get(cells.length) ?? 0) - 1);
          cells.push("");
        }
      };
      for (const cell of tr.match(/<t[hd][^>]*>[\s\S]*?<\/t[hd]>/g) ?? []) {
        skipCovered();
        const rowspan = Number(/rowspan="(\d+)"/.exec(cell)?.[1] ?? 1);
        const colspan = Number(/colspan="(\d+)"/.exec(cell)?.[1] ?? 1);
        for (let i = 0; i < colspan; i++) {
          if (rowspan > 1) covered.set(cells.length, rowspan - 1);
          cells.push(i === 0 ? decode(cell) : "");
        }
      }
      skipCovered();
      out.push(cells);
    }
    return out;
  };
  const footer = /<p>(\d+) rows × (\d+) columns<\/p>/.exec(html);
  const firstRow = /<tbody>\s*<tr[^>]*>([\s\S]*?)<\/tr>/.exec(html)?.[1] ?? "";
  return {
    head: rows(section("thead")),
    body: rows(section("tbody")),
    footer: footer ? `[${footer[1]} rows x ${footer[2]} columns]` : "",
    indexColumns: (firstRow.match(/<th[^>]*>/g) ?? []).length,
  };
}

function markdownTable(md: string): { rows: string[][]; footer: string } | undefined {
  const lines = md.split("\n");
  const cells = (l: string): string[] =>
    l
      .slice(2, -2)
      .split(/(?<!\\) \| /)
      .map((c) => c.replace(/\\\|/g, "|"));
  const head = lines[0];
  if (!head?.startsWith("| ") || !/^\|(---\|)+$/.test(lines[1] ?? "")) return undefined;
  const rows: string[][] = [cells(head)];
  let i = 2;
  for (; i < lines.length && lines[i]?.startsWith("| "); i++) rows.push(cells(lines[i] as string));
  const footer = lines.slice(i).join("\n").trim();
  return { rows, footer };
}

/** Whether Enclave's markdown table has the structure of pandas' HTML: its header rows (the index
 * names' row joined to the last row of column labels when that row leaves the index columns blank,
 * as pandas' text does), its rows, each spanned label once, its cut and its dimensions. */
export function tableAgrees(md: string, html: string): boolean {
  const m = markdownTable(md);
  if (!m) return false;
  const h = htmlTable(html);
  let head = h.head;
  const index =
    h.indexColumns ||
    Math.max(
      1,
      (head[0] ?? []).findIndex((t) => t !== ""),
    );
  const names = head.at(-1) ?? [];
  const labels = head.at(-2);
  if (labels && names.slice(index).every((t) => t === "") && names.slice(0, index).some((t) => t !== "") && labels.slice(0, index).every((t) => t === ""))
    head = [...head.slice(0, -2), [...names.slice(0, index), ...labels.slice(index)]];
  const dots = (c: string): string => (c === "..." ? "…" : c.length > 200 ? `${c.slice(0, 199)}…` : c);
  const want = [...head, ...h.body].map((r) => r.map(dots));
  return JSON.stringify(m.rows) === JSON.stringify(want) && m.footer === h.footer;
}

// -- JavaScript: errors ---------------------------------------------------------------------------

/** Frames that are how the cell was run (the REPL's or the runner's machinery, the cell's own top
 * level), not where its code went wrong. */
const JS_MACHINERY =
  /^\s+at (?:async )?(?:<cell \d+>:\d+:\d+|REPL\d+:\d+:\d+)(?= \{$|$)|\((?:node:vm|node:repl|node:domain|node:events|node:internal\/vm|node:internal\/process\/task_queues|node:internal\/timers)[:)]|eval-node-peer\.mjs|REPLServer\.|ContextifyScript\.runInThisContext/;

function jsCanonicalError(text: string): string {
  const lines = text.split("\n");
  const syntax = lines.some((l) => /^(?:Uncaught:?\s*)?\[?SyntaxError: /.test(l));
  const kept: string[] = [];
  for (const line of lines) {
    const frame = /^\s+at /.test(line);
    if (frame && (syntax || JS_MACHINERY.test(line))) {
      // The `{` that opens the error's own properties stays.
      if (/ \{$/.test(line) && kept.length) kept[kept.length - 1] += " {";
      continue;
    }
    kept.push(line);
  }
  return kept
    .join("\n")
    .replace(/^Uncaught:?\s(?=\S)/gm, "")
    .replace(/^\[((?:[A-Z]\w*)?Error[^\]\n]*)\]/gm, "$1")
    .replace(/\s+/g, " ")
    .trim();
}

function topLevelNames(code: string): string[] {
  try {
    const program = parse(code, { ecmaVersion: "latest", sourceType: "script", allowAwaitOutsideFunction: true }) as unknown as {
      body: Array<{ type: string; kind?: string; declarations?: Array<{ id: { type: string; name?: string } }>; id?: { name: string } }>;
    };
    const names: string[] = [];
    for (const s of program.body) {
      if (s.type === "VariableDeclaration" && s.kind !== "var")
        for (const d of s.declarations ?? []) if (d.id.type === "Identifier" && d.id.name) names.push(d.id.name);
      if (s.type === "ClassDeclaration" && s.id) names.push(s.id.name);
    }
    return names;
  } catch {
    return [];
  }
}

function hasStaticImport(code: string): boolean {
  try {
    return (parse(code, { ecmaVersion: "latest", sourceType: "module" }) as unknown as { body: Array<{ type: string }> }).body.some(
      (s) => s.type === "ImportDeclaration",
    );
  } catch {
    return false;
  }
}

// -- the rules ------------------------------------------------------------------------------------

export const RULES: Rule[] = [
  {
    id: "stream-order",
    language: "python",
    description:
      "Jupyter sends stdout and stderr as two streams, each flushed on its own, so their lines can arrive in another order than the cell wrote them. " +
      "Enclave keeps the order they were written in.",
    apply(s) {
      const lines = (parts: Part[]): string => texts(parts).split("\n").sort().join("\n");
      return lines(s.enclave) === lines(s.reference) ? { ...s, reference: s.enclave } : s;
    },
  },
  {
    id: "display-redrawn",
    language: "python",
    description:
      "`clear_output()` and `display(..., display_id=True).update(...)` redraw a notebook's output area. A transcript is not redrawn: " +
      "Enclave keeps what was shown before and adds the update after it.",
    apply(s) {
      const marks = new RegExp(`(^|\\n)(?:${escapeRe(OUTPUT_CLEARED)}|${escapeRe(DISPLAY_UPDATED)})(?:\\n|$)`, "g");
      const drop = (t: string): string =>
        t
          .replace(marks, "$1")
          .replace(/\n{3,}/g, "\n\n")
          .replace(/\n+$/, "");
      const reference = mapText(s.reference, drop).filter((p) => p.kind !== "text" || p.text !== "");
      return { ...s, reference };
    },
  },
  {
    id: "dataframe-markdown",
    language: "python",
    description:
      "A DataFrame's text is a markdown table with the structure of pandas' HTML (each index level a named column, a MultiIndex's column levels as " +
      "header rows, an empty frame as its header alone) where Jupyter's text/plain is pandas' fixed-width text; its HTML, the same as Jupyter's, is " +
      "kept as a rich part. Checked cell by cell against that HTML.",
    apply(s) {
      const enclave = [...s.enclave];
      const reference = [...s.reference];
      let changed = false;
      for (let i = 1; i < enclave.length && i < reference.length; i++) {
        const e = enclave[i];
        const r = reference[i];
        const eText = enclave[i - 1];
        const rText = reference[i - 1];
        if (e?.kind !== "rich" || r?.kind !== "rich" || e.text !== r.text || !/class="dataframe"/.test(e.text)) continue;
        if (eText?.kind !== "text" || rText?.kind !== "text") continue;
        const start = eText.text.search(/(?:^|\n)\| [^\n]*\n\|(?:---\|)+(?:\n|$)/);
        if (start < 0) continue;
        const before = eText.text.slice(0, start).replace(/\n+$/, "");
        const table = eText.text.slice(start).replace(/^\n/, "");
        if (!tableAgrees(table, e.text)) continue;
        if (before !== "" && !rText.text.startsWith(`${before}\n`)) continue;
        enclave[i - 1] = { kind: "text", text: before === "" ? rText.text : `${before}\n${rText.text.slice(before.length + 1)}` };
        const next = enclave[i + 1];
        if (next?.kind === "text") enclave[i + 1] = { kind: "text", text: next.text.replace(/^\n/, "") };
        changed = true;
      }
      return changed ? { enclave, reference } : s;
    },
  },
  {
    id: "incomplete-input",
    language: "python",
    description:
      "IPython calls a cell that ends inside an open bracket or string `SyntaxError: incomplete input`, at its last line. Enclave reports what Python " +
      "reports for a file: `'(' was never closed`, at the bracket.",
    apply(s) {
      if (!/^SyntaxError: incomplete input$/m.test(texts(s.reference))) return s;
      const generic = (t: string): string => t.replace(/^(?:SyntaxError: .*)$/m, "SyntaxError: (incomplete cell)");
      return withTracebacks(s, (mine, _theirs) => {
        const m = /^ {2}File "<cell \d+>", line \d+\n[\s\S]*?^(SyntaxError: .*)$/m.exec(mine);
        if (!m) return undefined;
        return ["[syntax error]\n" + generic(m[1] as string), "[syntax error]\n" + generic("SyntaxError: incomplete input")];
      });
    },
  },
  {
    id: "traceback-format",
    language: "python",
    description:
      "Tracebacks are Python's own format (`File \"<cell 3>\", line 2, in f`, the source line, Python 3.11's carets), where Jupyter uses IPython's " +
      "(`Cell In [3], line 2`, numbered context lines, the exception's class without its module). The same frames and the same exception are compared; " +
      "a SyntaxError's caret and an IndentationError's position are Python's (IPython's tokenizer gives `File <tokenize>`).",
    apply(s, _code, ctx) {
      return withTracebacks(s, (mine, theirs) => {
        const a = parsePyTraceback(mine, ctx.enclaveCell);
        const b = parsePyTraceback(theirs, ctx.referenceCell);
        if (!a || !b) return undefined;
        return [pyCanonical(a), pyCanonical(b)];
      });
    },
  },
  {
    id: "warning-location",
    language: "python",
    description:
      "A warning raised by a cell's own line names the cell (`<cell 4>:2: UserWarning: …`), where ipykernel names a temporary file (`/tmp/ipykernel_…/….py:2`).",
    apply(s) {
      return {
        enclave: mapText(s.enclave, (t) => t.replace(/^<cell \d+>:(\d+): /gm, "<cell file>:$1: ")),
        reference: mapText(s.reference, (t) => t.replace(/^<ipykernel cell file>:(\d+): /gm, "<cell file>:$1: ")),
      };
    },
  },
  {
    id: "undefined-echo",
    language: "javascript",
    description:
      "Node's REPL writes `undefined` after a cell whose completion value is undefined (a declaration, a `console.log(…)` call, an `if`); " +
      "Enclave echoes only a last expression, and never `undefined`.",
    apply(s) {
      const r = onlyText(s.reference);
      if (r === undefined || !/(?:^|\n)undefined$/.test(r)) return s;
      return { ...s, reference: fromText(s.reference, r.replace(/(?:^|\n)undefined$/, "")) };
    },
  },
  {
    id: "statement-value",
    language: "javascript",
    description:
      "Node's REPL echoes the completion value of any last statement (`for (const x of xs) { x * 2 }` shows the last product); Enclave echoes a last expression only.",
    apply(s, code) {
      const e = onlyText(s.enclave);
      const r = onlyText(s.reference);
      if (e === undefined || r === undefined) return s;
      try {
        const body = (parse(code, { ecmaVersion: "latest", allowAwaitOutsideFunction: true }) as unknown as { body: Array<{ type: string }> }).body;
        if (body.at(-1)?.type === "ExpressionStatement") return s;
      } catch {
        return s;
      }
      const prefix = e === "(no output)" ? "" : `${e}\n`;
      return r.startsWith(prefix) && r !== e ? { ...s, reference: s.enclave } : s;
    },
  },
  {
    id: "redeclaration",
    language: "javascript",
    description:
      "A cell may declare again a `let`, `const` or `class` an earlier cell declared (as a notebook cell rebinds a Python name); Node's REPL refuses: `Identifier 'x' has already been declared`.",
    apply(s, code) {
      const m = /^Uncaught SyntaxError: Identifier '([\w$]+)' has already been declared$/m.exec(texts(s.reference));
      if (!m || !topLevelNames(code).includes(m[1] as string)) return s;
      if (/SyntaxError/.test(texts(s.enclave))) return s;
      return { ...s, reference: s.enclave };
    },
  },
  {
    id: "static-import",
    language: "javascript",
    description: 'A cell may use `import … from "…"` (Enclave turns it into a dynamic import); Node\'s REPL refuses it and suggests `await import(…)`.',
    apply(s, code) {
      if (!/Cannot use import statement inside the Node\.js REPL/.test(texts(s.reference)) || !hasStaticImport(code)) return s;
      return { ...s, reference: s.enclave };
    },
  },
  {
    id: "incomplete-cell",
    language: "javascript",
    description: "A cell that ends mid-statement is a SyntaxError (`Unexpected end of input`); Node's REPL waits for more lines.",
    apply(s) {
      const r = onlyText(s.reference);
      if (r === undefined || !r.endsWith("[the REPL waits for more input]")) return s;
      return /SyntaxError: /.test(texts(s.enclave)) ? { ...s, reference: s.enclave } : s;
    },
  },
  {
    id: "syntax-error-location",
    language: "javascript",
    description: "A SyntaxError starts with where it is (`<cell 4>:2`) above the source line and caret; Node's REPL leaves that line out.",
    apply(s) {
      return { ...s, enclave: mapText(s.enclave, (t) => (/SyntaxError: /.test(t) ? t.replace(/^<cell \d+>:\d+\n(?=[\s\S]*SyntaxError: )/m, "") : t)) };
    },
  },
  {
    id: "background-error",
    language: "javascript",
    description:
      "An error from work a cell left running says what it was (`Uncaught exception: Error: …` from a timer or callback, `Unhandled promise rejection: …`) " +
      "and keeps the callback's frame (`at Timeout._onTimeout (<cell 3>:1:26)`); Node's REPL prints `Uncaught Error: …` and, cutting the stack at the " +
      "anonymous callback, no frame.",
    apply(s) {
      const r = texts(s.reference).split("\n");
      // The errors the REPL printed without a frame (it cut the stack at an anonymous callback, or at all).
      const bare = new Set(r.filter((l, i) => /^Uncaught \S/.test(l) && !/^\s+at /.test(r[i + 1] ?? "")));
      const enclave = mapText(s.enclave, (t) => {
        const lines = t.replace(/^(?:Uncaught exception|Unhandled promise rejection): /gm, "Uncaught ").split("\n");
        const out: string[] = [];
        let dropping = false;
        for (const line of lines) {
          if (/^\s+at /.test(line) && dropping) continue;
          dropping = bare.has(line);
          out.push(line);
        }
        return out.join("\n");
      });
      return { ...s, enclave };
    },
  },
  {
    id: "require-stack",
    language: "javascript",
    description:
      "`require` in a cell resolves from the working directory as a file there would (`Require stack: - /workspace/[cell].js`); the REPL's says `<repl>`.",
    apply(s) {
      return { ...s, enclave: mapText(s.enclave, (t) => t.replace(/<ws>\/\[cell\]\.js/g, "<repl>")) };
    },
  },
  {
    id: "error-frames",
    language: "javascript",
    description:
      "An error shows its stack with the frames of the user's code, including the cell's own top-level line (`at <cell 4>:1:1`), and no `Uncaught ` " +
      "prefix (the result is marked as an error). Node's REPL prefixes `Uncaught`, cuts the stack at the cell's top level (a SyntaxError's entirely, " +
      "so an error with no other frame prints as `[Error: …] { … }`), shifts the columns of a cell with top-level `await`, and shows its own machinery " +
      "in stacks it did not throw (an echoed rejected promise's).",
    apply(s, _code, ctx) {
      const cells = (t: string, current: number, re: RegExp): string => t.replace(re, (_m, n: string) => `<${relCell(Number(n), current)}>`);
      const mine = cells(jsCanonicalError(texts(s.enclave)), ctx.enclaveCell, /<cell (\d+)>/g);
      const theirs = cells(jsCanonicalError(texts(s.reference)), ctx.referenceCell, /REPL(\d+)/g);
      return mine === theirs ? { ...s, reference: s.enclave } : s;
    },
  },
  {
    id: "deeper-echo",
    language: "javascript",
    description:
      "An echoed value is shown nested four levels deep where Node's REPL stops at two (`{ a: { b: { c: [Object] } } }`), so its lines can break differently.",
    apply(s) {
      const e = onlyText(s.enclave);
      const r = onlyText(s.reference);
      if (e === undefined || r === undefined || !/\[(?:Object|Array)\]/.test(r)) return s;
      const flat = (t: string): string =>
        t
          .replace(/\s+/g, " ")
          .replace(/([[{(]) /g, "$1")
          .replace(/ ([\]})])/g, "$1");
      const pattern = flat(r)
        .split(/(\[Object\]|\[Array\])/)
        .map((piece) => (piece === "[Object]" ? "\\{.*?\\}" : piece === "[Array]" ? "\\[.*?\\]" : escapeRe(piece)))
        .join("");
      return new RegExp(`^${pattern}$`).test(flat(e)) ? { ...s, reference: s.enclave } : s;
    },
  },
];

export function classify(language: Language, code: string, enclave: Part[], reference: Part[], ctx: CompareContext): CellVerdict {
  const workspaces = [ctx.enclaveWorkspace, ctx.referenceWorkspace];
  let sides: Sides = { enclave: normalize(enclave, workspaces), reference: normalize(reference, workspaces) };
  if (same(sides)) return { verdict: "identical", rules: [], ...sides };
  const used: string[] = [];
  for (const rule of RULES) {
    if (rule.language !== language) continue;
    const next = rule.apply(sides, code, ctx);
    if (JSON.stringify(next) !== JSON.stringify(sides)) used.push(rule.id);
    sides = next;
    if (same(sides)) return { verdict: "deliberate", rules: used, ...sides };
  }
  return { verdict: "unknown", rules: used, ...sides };
}
