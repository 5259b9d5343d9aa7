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
}

export const GRAMMARS: readonly GrammarSpec[] = [
  {
    id: "dart",
    extensions: [".dart"],
    wasm: "tree-sitter-dart.wasm",
    package: "tree-sitter-dart",
    build: { kind: "compile", symbol: "tree_sitter_dart", sources: ["src/parser.c", "src/scanner.c"] },
  },
  { id: "python", extensions: [".py", ".pyi"], wasm: "tree-sitter-python.wasm", package: "tree-sitter-python", build: { kind: "copy", file: "tree-sitter-python.wasm" } },
  { id: "javascript", extensions: [".js", ".mjs", ".cjs", ".jsx"], wasm: "tree-sitter-javascript.wasm", package: "tree-sitter-javascript", build: { kind: "copy", file: "tree-sitter-javascript.wasm" } },
  { id: "typescript", extensions: [".ts", ".mts", ".cts"], wasm: "tree-sitter-typescript.wasm", package: "tree-sitter-typescript", build: { kind: "copy", file: "tree-sitter-typescript.wasm" } },
  { id: "tsx", extensions: [".tsx"], wasm: "tree-sitter-tsx.wasm", package: "tree-sitter-typescript", build: { kind: "copy", file: "tree-sitter-tsx.wasm" } },
  { id: "rust", extensions: [".rs"], wasm: "tree-sitter-rust.wasm", package: "tree-sitter-rust", build: { kind: "copy", file: "tree-sitter-rust.wasm" } },
  { id: "c", extensions: [".c", ".h"], wasm: "tree-sitter-c.wasm", package: "tree-sitter-c", build: { kind: "copy", file: "tree-sitter-c.wasm" } },
  { id: "cpp", extensions: [".cc", ".cpp", ".cxx", ".hpp", ".hh"], wasm: "tree-sitter-cpp.wasm", package: "tree-sitter-cpp", build: { kind: "copy", file: "tree-sitter-cpp.wasm" } },
  { id: "go", extensions: [".go"], wasm: "tree-sitter-go.wasm", package: "tree-sitter-go", build: { kind: "copy", file: "tree-sitter-go.wasm" } },
  { id: "java", extensions: [".java"], wasm: "tree-sitter-java.wasm", package: "tree-sitter-java", build: { kind: "copy", file: "tree-sitter-java.wasm" } },
  { id: "bash", extensions: [".sh", ".bash"], wasm: "tree-sitter-bash.wasm", package: "tree-sitter-bash", build: { kind: "copy", file: "tree-sitter-bash.wasm" } },
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
