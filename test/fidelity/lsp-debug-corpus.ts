// The real code the lsp/debug differential suite runs on, all of it already on this machine: a Python
// package from Debian's dist-packages (attrs), a TypeScript library from node_modules (grpc-js's
// sources), Go packages from the Go standard library (container/*, text/tabwriter) as a module, and C
// sources (the Go runtime's cgo support, Linux files) with only a compile_flags.txt — plus small
// programs for the debuggers.
import { copyFileSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";

export type Language = "python" | "typescript" | "go" | "c";

export interface CorpusProject {
  language: Language;
  /** Workspace-relative root folder (where the root marker is). */
  root: string;
  /** Workspace-relative source files to probe, sorted. */
  files: string[];
  /** Where it came from, for the report. */
  origin: string;
}

function goRoot(): string {
  for (const v of ["1.19", "1.21", "1.22"]) if (existsSync(`/usr/lib/go-${v}/src`)) return `/usr/lib/go-${v}`;
  return "/usr/lib/go";
}

function copyInto(workspace: string, rel: string, from: string): void {
  const to = join(workspace, rel);
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(from, to);
}

const list = (dir: string, keep: (name: string) => boolean): string[] => (existsSync(dir) ? readdirSync(dir).filter(keep).sort() : []);

/**
 * The files `make test`'s bounded run copies of each project (a few related ones, so servers load in
 * seconds); the full run copies every file.
 */
const SUBSET: Record<Language, ReadonlySet<string>> = {
  python: new Set(["_config.py", "converters.py", "exceptions.py", "filters.py", "setters.py"]),
  typescript: new Set(["constants.ts", "error.ts", "logging.ts", "metadata.ts", "duration.ts", "uri-parser.ts"]),
  go: new Set(["list.go", "ring.go"]),
  c: new Set(["gcc_fatalf.c", "gcc_util.c", "gcc_libinit.c", "gcc_setenv.c", "gcc_context.c"]),
};

export type CorpusScale = "subset" | "full";

/** Copies every project into the workspace and says what each holds. */
export function writeCorpus(workspace: string, scale: CorpusScale = "full"): CorpusProject[] {
  const out: CorpusProject[] = [];
  const keep = (language: Language, name: string): boolean => scale === "full" || SUBSET[language].has(name);

  const attrs = "/usr/lib/python3/dist-packages/attr";
  const pyFiles = list(attrs, (n) => n.endsWith(".py") && keep("python", n));
  for (const f of pyFiles) copyInto(workspace, `py/attr/${f}`, join(attrs, f));
  mkdirSync(join(workspace, "py"), { recursive: true });
  writeFileSync(join(workspace, "py/pyproject.toml"), '[project]\nname = "attrs-copy"\nversion = "0"\n');
  out.push({ language: "python", root: "py", files: pyFiles.map((f) => `py/attr/${f}`), origin: `${attrs} (attrs, ${pyFiles.length} modules)` });

  const grpc = join(repoRoot, "node_modules", "@grpc", "grpc-js", "src");
  const tsFiles = list(grpc, (n) => n.endsWith(".ts") && !n.endsWith(".d.ts") && keep("typescript", n));
  for (const f of tsFiles) copyInto(workspace, `ts/src/${f}`, join(grpc, f));
  writeFileSync(
    join(workspace, "ts/tsconfig.json"),
    '{ "compilerOptions": { "target": "es2020", "module": "commonjs", "strict": true, "noEmit": true, "skipLibCheck": true }, "include": ["src/*.ts"] }\n',
  );
  out.push({
    language: "typescript",
    root: "ts",
    files: tsFiles.map((f) => `ts/src/${f}`),
    origin: `node_modules/@grpc/grpc-js/src (${tsFiles.length} files)`,
  });

  const go = join(goRoot(), "src");
  mkdirSync(join(workspace, "go"), { recursive: true });
  writeFileSync(join(workspace, "go/go.mod"), "module example.com/stdcopy\n\ngo 1.19\n");
  const goFiles: string[] = [];
  for (const pkg of ["container/list", "container/ring", "container/heap", "text/tabwriter"]) {
    for (const f of list(join(go, pkg), (n) => n.endsWith(".go") && !n.endsWith("_test.go") && keep("go", n))) {
      copyInto(workspace, `go/${pkg}/${f}`, join(go, pkg, f));
      goFiles.push(`go/${pkg}/${f}`);
    }
  }
  out.push({ language: "go", root: "go", files: goFiles.sort(), origin: `${go} (container/*, text/tabwriter: ${goFiles.length} files)` });

  const cgo = join(go, "runtime", "cgo");
  const other = /(aix|android|darwin|dragonfly|freebsd|illumos|netbsd|openbsd|solaris|windows|_386|_arm|_loong|_mips|_ppc|_riscv|_s390|_wasm)/;
  const cFiles = list(cgo, (n) => n.endsWith(".c") && !other.test(n) && keep("c", n));
  const headers = list(cgo, (n) => n.endsWith(".h"));
  for (const f of [...cFiles, ...headers]) copyInto(workspace, `c/${f}`, join(cgo, f));
  writeFileSync(join(workspace, "c/compile_flags.txt"), "-std=gnu11\n-D_GNU_SOURCE\n");
  out.push({ language: "c", root: "c", files: cFiles.map((f) => `c/${f}`), origin: `${cgo} (${cFiles.length} Linux sources, ${headers.length} headers)` });
  return out;
}

/** Programs for the debuggers: each with the lines its breakpoints go on. */
export interface DebugProgram {
  adapter: "debugpy" | "lldb" | "delve";
  /** Workspace-relative program to launch. */
  program: string;
  /** Workspace-relative source file the breakpoints are in. */
  source: string;
  lines: number[];
  files: Record<string, string>;
  /** A shell command that builds it, run in the workspace, if any. */
  build?: string;
}

export const DEBUG_PROGRAMS: readonly DebugProgram[] = [
  {
    adapter: "debugpy",
    program: "dbg/py/prog.py",
    source: "dbg/py/prog.py",
    lines: [10, 17],
    files: {
      "dbg/py/pyproject.toml": '[project]\nname = "dbg"\n',
      "dbg/py/prog.py":
        "import collections\n\nclass Point:\n    def __init__(self, x, y):\n        self.x, self.y = x, y\n\n" +
        "def area(points):\n    total = 0\n    for p in points:\n        total += p.x * p.y\n    return total\n\n" +
        "def main():\n    pts = [Point(i, i + 1) for i in range(5)]\n    counts = collections.Counter(p.x % 2 for p in pts)\n" +
        '    text = "é" * 600\n    return area(pts), counts, len(text)\n\nprint(main())\n',
    },
  },
  {
    adapter: "lldb",
    program: "dbg/c/prog",
    source: "dbg/c/prog.c",
    lines: [9, 18],
    build: "gcc -g -O0 -o dbg/c/prog dbg/c/prog.c",
    files: {
      "dbg/c/CMakeLists.txt": "cmake_minimum_required(VERSION 3.10)\nproject(prog C)\nadd_executable(prog prog.c)\n",
      "dbg/c/prog.c":
        "#include <stdio.h>\n#include <string.h>\nstruct point { int x; int y; };\n\n" +
        "static int area(const struct point *ps, int n) {\n  int total = 0;\n  int i;\n  for (i = 0; i < n; i++) {\n" +
        "    total += ps[i].x * ps[i].y;\n  }\n  return total;\n}\n\nint main(void) {\n  struct point ps[4] = {{1, 2}, {3, 4}, {5, 6}, {7, 8}};\n" +
        '  char name[16];\n  strcpy(name, "fidelity");\n  printf("%s %d\\n", name, area(ps, 4));\n  return 0;\n}\n',
    },
  },
  {
    adapter: "delve",
    program: "dbg/go",
    source: "dbg/go/main.go",
    lines: [11, 20],
    files: {
      "dbg/go/go.mod": "module example.com/dbg\n\ngo 1.19\n",
      "dbg/go/main.go":
        'package main\n\nimport "fmt"\n\ntype point struct{ x, y int }\n\nfunc area(ps []point) int {\n\ttotal := 0\n\tfor _, p := range ps {\n' +
        "\t\tv := p.x * p.y\n\t\ttotal += v\n\t\t_ = total\n\t}\n\treturn total\n}\n\nfunc main() {\n\tps := []point{{1, 2}, {3, 4}, {5, 6}}\n" +
        '\tnames := map[string]int{"a": 1}\n\tfmt.Println(area(ps), len(names))\n}\n',
    },
  },
];

export function writeDebugPrograms(workspace: string, programs: readonly DebugProgram[]): void {
  for (const p of programs) {
    for (const [rel, content] of Object.entries(p.files)) {
      mkdirSync(dirname(join(workspace, rel)), { recursive: true });
      writeFileSync(join(workspace, rel), content);
    }
  }
}

export const corpusName = (p: CorpusProject): string => `${p.language} (${basename(p.root)})`;
