// A small multi-language project for the lsp tests, and the host's language servers on PATH.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";

/** Installs the host's language servers when absent (scripts/ensure-host-servers.sh) and puts them on PATH. */
export function ensureHostServers(): void {
  const bin = execFileSync("bash", [join(repoRoot, "scripts", "ensure-host-servers.sh")], {
    encoding: "utf8",
    timeout: 600_000,
    stdio: ["ignore", "pipe", "inherit"],
  }).trim();
  const path = process.env.PATH ?? "";
  if (!path.split(delimiter).includes(bin)) process.env.PATH = `${bin}${delimiter}${path}`;
}

export const FILES: Record<string, string> = {
  // Python (pyright): non-ASCII text, an astral-plane emoji (two UTF-16 units) before the symbol.
  "py/pyproject.toml": '[project]\nname = "demo"\nversion = "0.1.0"\n',
  "py/util.py":
    'def greet(name: str) -> str:\n    """Says hello to someone."""\n    return "hello " + name\n\n\nclass Counter:\n    def __init__(self) -> None:\n        self.total = 0\n',
  "py/app.py": 'from util import Counter, greet\n\ns = "héllo 🎉 wörld"; print(greet(s))\nc = Counter()\nprint(greet("again"), c.total)\n',
  // TypeScript: an interface with an implementation, across files.
  "ts/tsconfig.json": '{ "compilerOptions": { "strict": true, "target": "es2020", "module": "commonjs", "noEmit": true }, "include": ["*.ts"] }\n',
  "ts/shapes.ts":
    "export interface Shape {\n  area(): number;\n}\n\nexport class Circle implements Shape {\n  constructor(private readonly r: number) {}\n  area(): number {\n    return Math.PI * this.r * this.r;\n  }\n}\n",
  "ts/main.ts":
    'import { Circle, Shape } from "./shapes";\n\nconst label = "ünïcode 🎉"; const shape: Shape = new Circle(2);\nexport function describe(s: Shape): string {\n  return `${label}: ${s.area()}`;\n}\nconsole.log(describe(shape));\n',
  // C (clangd).
  "c/compile_flags.txt": "-std=c11\n-Wall\n",
  "c/util.h": "#ifndef UTIL_H\n#define UTIL_H\nint add(int a, int b);\n#endif\n",
  "c/util.c": '#include "util.h"\n\nint add(int a, int b) { return a + b; }\n',
  "c/main.c":
    '#include <stdio.h>\n#include "util.h"\n\nint main(void) {\n  const char *s = "ç 🎉"; int total = add(1, 2);\n  printf("%s %d\\n", s, total);\n  return 0;\n}\n',
  // No marker anywhere above this file.
  "loose/orphan.py": "x = 1\n",
};

export function writeProject(root: string): void {
  for (const [rel, content] of Object.entries(FILES)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), content);
  }
}

/** A TypeScript root whose project-local server dies at once, for the broken set. */
export function writeBrokenServer(root: string): void {
  const bin = join(root, "broken", "node_modules", ".bin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(root, "broken", "tsconfig.json"), "{}\n");
  writeFileSync(join(root, "broken", "x.ts"), "export const x = 1;\n");
  writeFileSync(join(bin, "typescript-language-server"), "#!/bin/sh\necho 'boom: cannot start' >&2\nexit 3\n");
  chmodSync(join(bin, "typescript-language-server"), 0o755);
}
