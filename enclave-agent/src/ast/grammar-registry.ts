// The tree-sitter grammars structural search bundles, as data: language id, file extensions, the
// .wasm file inside the agent's grammar folder, and where the build gets it (scripts/build-grammars.mjs):
// copied from an official grammar package, or compiled from the package's C sources with emscripten
// when its prebuilt wasm does not load in web-tree-sitter 0.27 (Dart).
export interface GrammarSpec {
  id: string;
  extensions: string[];
  wasm: string;
  /** npm package in enclave-agent/grammars/package.json that provides the grammar. */
  package: string;
  /** "copy": the package's wasm at `file`; "compile": its C sources (`src/parser.c`, `src/scanner.c`). */
  build: { kind: "copy"; file: string } | { kind: "compile"; symbol: string; sources: string[] };
  /** How a large file of this language may be cut into top-level pieces parsed in parallel (none: parsed whole). */
  chunking?: ChunkRule;
}

/**
 * Where a file may be cut so that each piece parses on its own exactly as it does inside the whole
 * file: at the start of a line that begins a top-level declaration, after a line that ends a
 * statement. A cut this rule lets through can still land inside a bracket, a string, a template or a
 * triple-quoted string that spans lines; then the piece before it ends unclosed and its parse has an
 * error, and the file is parsed whole instead (chunk-plan.ts). What an unclosed construct would not
 * reveal is ruled out here: a block comment (`/*` re-reads as a regular expression when its end is
 * cut off) and a line continued with `\`.
 */
export interface ChunkRule {
  /** The type of the tree's root node: a pattern of that type spans the pieces, so it is not split. */
  rootType: string;
  /** A line a cut may come before (tested at the line's start). */
  declarationStart: RegExp;
  /** The last non-blank line before such a cut must pass this. */
  previousLineEnds: (line: string) => boolean;
  /** No cut inside what could be a `/* … *\/` comment (found from every `/*` in the text, wherever it is). */
  blockComments: boolean;
}

/** JavaScript and TypeScript: a declaration keyword at column 0 (`let` only before a name or a
 * destructuring, as it is also an identifier), after a line ending in `;` or `}`. None of these
 * keywords can continue the statement before it. */
const JS_DECLARATION = /^(?:(?:async[ \t]+)?function[ \t*]|class[ \t]|var[ \t]|const[ \t]|let[ \t]+[A-Za-z_$[{]|export[ \t{*]|import[ \t{*"'])/;
const TS_DECLARATION = new RegExp(
  `${JS_DECLARATION.source}|^(?:interface[ \\t]|enum[ \\t]|declare[ \\t]|namespace[ \\t]|abstract[ \\t]+class[ \\t]|type[ \\t]+[A-Za-z_$])`,
);
const endsStatement = (line: string): boolean => /[;}]$/.test(line.trimEnd());
const JS_CHUNKING: ChunkRule = { rootType: "program", declarationStart: JS_DECLARATION, previousLineEnds: endsStatement, blockComments: true };
const TS_CHUNKING: ChunkRule = { ...JS_CHUNKING, declarationStart: TS_DECLARATION };
/** Python: `def`, `class`, `async def` or a decorator at column 0; the line before is not itself a
 * decorator and does not continue onto the next with `\`. */
const PY_CHUNKING: ChunkRule = {
  rootType: "module",
  declarationStart: /^(?:def[ \t]|class[ \t]|async[ \t]+def[ \t]|@)/,
  previousLineEnds: (line) => !line.startsWith("@") && !line.trimEnd().endsWith("\\"),
  blockComments: false,
};

export const GRAMMARS: readonly GrammarSpec[] = [
  {
    id: "dart",
    extensions: [".dart"],
    wasm: "tree-sitter-dart.wasm",
    package: "tree-sitter-dart",
    build: { kind: "compile", symbol: "tree_sitter_dart", sources: ["src/parser.c", "src/scanner.c"] },
  },
  {
    id: "python",
    extensions: [".py", ".pyi"],
    wasm: "tree-sitter-python.wasm",
    package: "tree-sitter-python",
    build: { kind: "copy", file: "tree-sitter-python.wasm" },
    chunking: PY_CHUNKING,
  },
  {
    id: "javascript",
    extensions: [".js", ".mjs", ".cjs", ".jsx"],
    wasm: "tree-sitter-javascript.wasm",
    package: "tree-sitter-javascript",
    build: { kind: "copy", file: "tree-sitter-javascript.wasm" },
    chunking: JS_CHUNKING,
  },
  {
    id: "typescript",
    extensions: [".ts", ".mts", ".cts"],
    wasm: "tree-sitter-typescript.wasm",
    package: "tree-sitter-typescript",
    build: { kind: "copy", file: "tree-sitter-typescript.wasm" },
    chunking: TS_CHUNKING,
  },
  {
    id: "tsx",
    extensions: [".tsx"],
    wasm: "tree-sitter-tsx.wasm",
    package: "tree-sitter-typescript",
    build: { kind: "copy", file: "tree-sitter-tsx.wasm" },
    chunking: TS_CHUNKING,
  },
  { id: "rust", extensions: [".rs"], wasm: "tree-sitter-rust.wasm", package: "tree-sitter-rust", build: { kind: "copy", file: "tree-sitter-rust.wasm" } },
  { id: "c", extensions: [".c", ".h"], wasm: "tree-sitter-c.wasm", package: "tree-sitter-c", build: { kind: "copy", file: "tree-sitter-c.wasm" } },
  {
    id: "cpp",
    extensions: [".cc", ".cpp", ".cxx", ".hpp", ".hh"],
    wasm: "tree-sitter-cpp.wasm",
    package: "tree-sitter-cpp",
    build: { kind: "copy", file: "tree-sitter-cpp.wasm" },
  },
  { id: "go", extensions: [".go"], wasm: "tree-sitter-go.wasm", package: "tree-sitter-go", build: { kind: "copy", file: "tree-sitter-go.wasm" } },
  { id: "java", extensions: [".java"], wasm: "tree-sitter-java.wasm", package: "tree-sitter-java", build: { kind: "copy", file: "tree-sitter-java.wasm" } },
  {
    id: "bash",
    extensions: [".sh", ".bash"],
    wasm: "tree-sitter-bash.wasm",
    package: "tree-sitter-bash",
    build: { kind: "copy", file: "tree-sitter-bash.wasm" },
  },
  { id: "json", extensions: [".json"], wasm: "tree-sitter-json.wasm", package: "tree-sitter-json", build: { kind: "copy", file: "tree-sitter-json.wasm" } },
];

/** The web-tree-sitter runtime's own wasm, shipped beside the agent bundle. */
export const RUNTIME_WASM = "web-tree-sitter.wasm";

export function grammarById(id: string): GrammarSpec | undefined {
  return GRAMMARS.find((g) => g.id === id);
}

export function grammarForPath(path: string): GrammarSpec | undefined {
  const lower = path.toLowerCase();
  return GRAMMARS.find((g) => g.extensions.some((e) => lower.endsWith(e)));
}
