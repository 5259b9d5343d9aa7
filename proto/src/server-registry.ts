// The language servers Enclave knows, as data. A server is usable for a checkout only when one of
// its root markers exists there and its binary resolves; the supervisor reads this table.
export interface LanguageServerSpec {
  id: string;
  languages: string[];
  extensions: string[];
  rootMarkers: string[];
  /** argv; the first element is resolved as a binary. */
  command: string[];
  /** How to get the binary when it is missing. */
  install: string;
  /**
   * When answers are complete: "initialize" once the initialize handshake is done; "progress" when,
   * beyond that, the server announces its indexing with workDoneProgress, and answers given while a
   * progress is open may be incomplete.
   */
  readiness: { strategy: "initialize" | "progress" };
  /** Answers to workspace/configuration (by section) and the didChangeConfiguration payload. */
  settings?: Record<string, unknown>;
  initializationOptions?: Record<string, unknown>;
  /**
   * Arguments that make the binary prove it runs (exit 0), for binaries that may be stand-ins: a
   * rustup proxy resolves as `rust-analyzer` whether or not the component is installed.
   */
  probe?: string[];
  /**
   * How fresh diagnostics are had: "lsp" pulls with textDocument/diagnostic when the server offers
   * it and otherwise waits for a push newer than the edit; "tsserver" asks typescript-language-server's
   * tsserver directly (its pushes come in versionless stages).
   */
  diagnostics?: "lsp" | "tsserver";
  /**
   * How its pushed diagnostics are told fresh. "versioned": the server puts the open document's
   * version on its pushes, so only a push carrying the version just synced counts; one without a
   * version is about something else. "startup-unversioned" (gopls): versioned too, except the reports
   * of its start-up pass over the workspace, which describe the files as it first saw them and come a
   * second or so after start without a version (a write that lands first must not take them for its
   * own), and which it may not repeat with a version. So an unversioned report counts only for a
   * document not edited since it was opened whose file has not changed since the server started;
   * otherwise a versioned one is waited for (or the answer is late). "arrival": pushes carry no
   * version, so the first one after the edit counts.
   */
  pushVersions: "versioned" | "startup-unversioned" | "arrival";
  /**
   * Project-wide answers (rename, references) come from an index built from a compilation database
   * (clangd): without one the server sees only the files open in it.
   */
  compilationDatabase?: boolean;
}

/** What marks a C/C++ project: clangd's root markers, which the debugger (lldb) shares. */
export const C_FAMILY_ROOT_MARKERS: readonly string[] = ["compile_commands.json", "compile_flags.txt", ".clangd", "CMakeLists.txt", "Makefile"];

export const LANGUAGE_SERVERS: readonly LanguageServerSpec[] = [
  {
    id: "pyright",
    languages: ["python"],
    extensions: [".py", ".pyi"],
    rootMarkers: ["pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "pyrightconfig.json"],
    command: ["pyright-langserver", "--stdio"],
    readiness: { strategy: "progress" },
    settings: { python: { analysis: { diagnosticMode: "openFilesOnly", typeCheckingMode: "standard" } } },
    pushVersions: "versioned",
    install: "npm install -g pyright (or add it to the project's node_modules)",
  },
  {
    id: "pylsp",
    languages: ["python"],
    extensions: [".py", ".pyi"],
    rootMarkers: ["pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"],
    command: ["pylsp"],
    readiness: { strategy: "initialize" },
    pushVersions: "arrival",
    install: "apt-get install python3-pylsp, or pip install python-lsp-server in the project's .venv",
  },
  {
    id: "typescript",
    languages: ["typescript", "javascript", "typescriptreact", "javascriptreact"],
    extensions: [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"],
    rootMarkers: ["tsconfig.json", "jsconfig.json", "package.json"],
    command: ["typescript-language-server", "--stdio"],
    diagnostics: "tsserver",
    readiness: { strategy: "progress" },
    pushVersions: "arrival",
    install: "npm install -g typescript typescript-language-server",
  },
  {
    id: "clangd",
    languages: ["c", "cpp"],
    extensions: [".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh"],
    rootMarkers: [...C_FAMILY_ROOT_MARKERS],
    command: ["clangd", "--log=error"],
    readiness: { strategy: "progress" },
    pushVersions: "versioned",
    compilationDatabase: true,
    install: "apt-get install clangd",
  },
  {
    id: "gopls",
    languages: ["go"],
    extensions: [".go"],
    rootMarkers: ["go.mod", "go.work"],
    command: ["gopls"],
    readiness: { strategy: "progress" },
    pushVersions: "startup-unversioned",
    install: "apt-get install gopls",
  },
  {
    id: "bash",
    languages: ["shellscript"],
    extensions: [".sh", ".bash"],
    rootMarkers: [".git", "Makefile", "package.json"],
    command: ["bash-language-server", "start"],
    readiness: { strategy: "initialize" },
    pushVersions: "arrival",
    install: "npm install -g bash-language-server",
  },
  {
    id: "rust-analyzer",
    languages: ["rust"],
    extensions: [".rs"],
    rootMarkers: ["Cargo.toml"],
    command: ["rust-analyzer"],
    probe: ["--version"],
    readiness: { strategy: "progress" },
    pushVersions: "versioned",
    install: "install rust-analyzer from the Rust toolchain (rustup component add rust-analyzer); no Debian package provides it here",
  },
  {
    id: "dart",
    languages: ["dart"],
    extensions: [".dart"],
    rootMarkers: ["pubspec.yaml"],
    command: ["dart", "language-server", "--protocol=lsp"],
    probe: ["--version"],
    readiness: { strategy: "progress" },
    pushVersions: "arrival",
    install: "install the Dart SDK and put `dart` on PATH; no Debian package provides it here",
  },
];

/** LSP language ids by file extension (didOpen needs one). */
export const LANGUAGE_IDS: Readonly<Record<string, string>> = {
  ".py": "python",
  ".pyi": "python",
  ".ts": "typescript",
  ".mts": "typescript",
  ".cts": "typescript",
  ".tsx": "typescriptreact",
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".jsx": "javascriptreact",
  ".c": "c",
  ".h": "c",
  ".cc": "cpp",
  ".cpp": "cpp",
  ".cxx": "cpp",
  ".hpp": "cpp",
  ".hh": "cpp",
  ".go": "go",
  ".sh": "shellscript",
  ".bash": "shellscript",
  ".rs": "rust",
  ".dart": "dart",
};
