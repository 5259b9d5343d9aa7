// The project's own checkers, as data, for `lsp diagnostics "*"`: the first whose marker is at the
// workspace root and whose binary resolves (project-local bins first) runs there.
export interface ProjectChecker {
  id: string;
  markers: string[];
  command: string[];
  install: string;
}

export const PROJECT_CHECKERS: readonly ProjectChecker[] = [
  { id: "tsc", markers: ["tsconfig.json"], command: ["tsc", "--noEmit", "--pretty", "false"], install: "npm install --save-dev typescript" },
  {
    id: "pyright",
    markers: ["pyrightconfig.json", "pyproject.toml", "setup.py", "setup.cfg", "requirements.txt"],
    command: ["pyright"],
    install: "npm install -g pyright",
  },
  { id: "go vet", markers: ["go.mod"], command: ["go", "vet", "./..."], install: "apt-get install golang-go" },
  { id: "cargo check", markers: ["Cargo.toml"], command: ["cargo", "check", "--message-format=short"], install: "install the Rust toolchain" },
  { id: "dart analyze", markers: ["pubspec.yaml"], command: ["dart", "analyze"], install: "install the Dart SDK" },
];
