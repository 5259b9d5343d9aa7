// The tree-sitter grammars structural search bundles, as data: language id, file extensions, and the
// .wasm file inside the agent's grammar folder (built by the ast issue's grammar step).
export interface GrammarSpec {
  id: string;
  extensions: string[];
  wasm: string;
}

export const GRAMMARS: readonly GrammarSpec[] = [
  { id: "dart", extensions: [".dart"], wasm: "tree-sitter-dart.wasm" },
  { id: "python", extensions: [".py", ".pyi"], wasm: "tree-sitter-python.wasm" },
  { id: "javascript", extensions: [".js", ".mjs", ".cjs", ".jsx"], wasm: "tree-sitter-javascript.wasm" },
  { id: "typescript", extensions: [".ts", ".mts", ".cts"], wasm: "tree-sitter-typescript.wasm" },
  { id: "tsx", extensions: [".tsx"], wasm: "tree-sitter-tsx.wasm" },
  { id: "rust", extensions: [".rs"], wasm: "tree-sitter-rust.wasm" },
  { id: "c", extensions: [".c", ".h"], wasm: "tree-sitter-c.wasm" },
  { id: "cpp", extensions: [".cc", ".cpp", ".cxx", ".hpp", ".hh"], wasm: "tree-sitter-cpp.wasm" },
  { id: "go", extensions: [".go"], wasm: "tree-sitter-go.wasm" },
  { id: "java", extensions: [".java"], wasm: "tree-sitter-java.wasm" },
  { id: "bash", extensions: [".sh", ".bash"], wasm: "tree-sitter-bash.wasm" },
  { id: "json", extensions: [".json"], wasm: "tree-sitter-json.wasm" },
];
