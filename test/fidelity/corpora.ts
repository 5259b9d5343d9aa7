// The real code on this machine the differential suite searches: typescript@5.9.3's JavaScript and
// declaration files, the other packages in node_modules, Python's and Go's standard libraries, musl's
// C sources (shipped with Debian's emscripten, which `make build` uses) and the system's C headers.
// A corpus whose folder is missing is left out and the run says so. Files are picked in a fixed
// order, so two runs on one machine search the same files.
import { lstatSync, readdirSync, realpathSync } from "node:fs";
import { join, relative } from "node:path";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";

export interface CorpusSpec {
  id: string;
  /** Our grammar id. */
  language: string;
  /** ast-grep's name for the language. */
  sgLang: string;
  /** The first of these that exists is the corpus root. */
  roots: string[];
  /** File name endings to take. */
  endings: string[];
  /** Relative paths (from the root) to leave out. */
  exclude?: RegExp;
  /** Bytes the full run takes from this corpus (files spread evenly over it). */
  fullBytes: number;
  /** Bytes the `make test` subset takes (files spread evenly over the corpus). */
  subsetBytes: number;
}

export interface Corpus {
  id: string;
  language: string;
  sgLang: string;
  root: string;
  files: string[];
  bytes: number;
}

const nm = join(repoRoot, "node_modules");
const MB = 1024 * 1024;
/** Larger files are left out: ast-grep 0.51.1 silently finds nothing in files over about 9 MB. */
const MAX_FILE_BYTES = 8 * MB;

function pythonRoots(): string[] {
  const out: string[] = [];
  for (const v of ["3.13", "3.12", "3.11", "3.10"]) out.push(`/usr/lib/python${v}`);
  return out;
}

export const CORPORA: CorpusSpec[] = [
  {
    id: "typescript-lib-js",
    language: "javascript",
    sgLang: "javascript",
    roots: [join(nm, "typescript", "lib")],
    endings: [".js"],
    exclude: /^typescript\.js$/,
    fullBytes: 8 * MB,
    subsetBytes: 0.25 * MB,
  },
  {
    id: "node-modules-js",
    language: "javascript",
    sgLang: "javascript",
    roots: [nm],
    endings: [".js", ".mjs", ".cjs"],
    exclude: /^(typescript|\.bin|\.cache)\/|\.min\.js$/,
    fullBytes: 6 * MB,
    subsetBytes: 0.25 * MB,
  },
  {
    id: "typescript-lib-dts",
    language: "typescript",
    sgLang: "typescript",
    roots: [join(nm, "typescript", "lib")],
    endings: [".d.ts"],
    fullBytes: 8 * MB,
    subsetBytes: 0.2 * MB,
  },
  {
    id: "node-modules-ts",
    language: "typescript",
    sgLang: "typescript",
    roots: [nm],
    endings: [".ts", ".mts", ".cts"],
    exclude: /^(typescript|\.bin|\.cache)\//,
    fullBytes: 6 * MB,
    subsetBytes: 0.2 * MB,
  },
  {
    id: "python-stdlib",
    language: "python",
    sgLang: "python",
    roots: pythonRoots(),
    endings: [".py"],
    exclude: /(^|\/)(site-packages|dist-packages|lib2to3\/tests\/data|test\/(bad|badsyntax|tokenizedata))/,
    fullBytes: 40 * MB,
    subsetBytes: 0.4 * MB,
  },
  {
    id: "go-stdlib",
    language: "go",
    sgLang: "go",
    roots: ["/usr/lib/go/src", "/usr/local/go/src"],
    endings: [".go"],
    // testdata holds deliberately broken programs.
    exclude: /(^|\/)testdata\//,
    fullBytes: 12 * MB,
    subsetBytes: 0.5 * MB,
  },
  {
    id: "musl-c",
    language: "c",
    sgLang: "c",
    roots: ["/usr/share/emscripten/system/lib/libc/musl/src"],
    endings: [".c"],
    fullBytes: 20 * MB,
    subsetBytes: 0.3 * MB,
  },
  {
    id: "system-headers",
    language: "c",
    sgLang: "c",
    roots: ["/usr/include"],
    endings: [".h"],
    // C++ header trees are not C: the C++ library's, ICU's, Node's (V8), LLVM's, Boost's.
    exclude: /^(c\+\+|boost|llvm|clang|unicode|node|layout|v8|c10|torch|qt|Qt)|\/c\+\+\//,
    fullBytes: 8 * MB,
    subsetBytes: 0.3 * MB,
  },
];

function walk(root: string, spec: CorpusSpec): { rel: string; size: number }[] {
  const out: { rel: string; size: number }[] = [];
  const visit = (dir: string): void => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (name.startsWith(".") && name !== ".cache") continue;
      const abs = join(dir, name);
      const rel = relative(root, abs);
      if (spec.exclude?.test(rel)) continue;
      let st;
      try {
        st = lstatSync(abs);
      } catch {
        continue;
      }
      if (st.isDirectory()) visit(abs);
      // Links are left out: the engine refuses to read through them (hard links may lead outside).
      else if (st.isFile() && st.nlink === 1 && st.size > 0 && st.size <= MAX_FILE_BYTES && spec.endings.some((e) => name.endsWith(e))) {
        out.push({ rel, size: st.size });
      }
    }
  };
  visit(root);
  return out;
}

/** The corpus as the full run or the subset takes it; null when its folder is not on this machine. */
export function corpus(spec: CorpusSpec, mode: "full" | "subset"): Corpus | null {
  const found = spec.roots.find((r) => {
    try {
      return lstatSync(realpathSync(r)).isDirectory();
    } catch {
      return false;
    }
  });
  if (!found) return null;
  const root = realpathSync(found);
  const all = walk(root, spec);
  if (all.length === 0) return null;
  const budget = mode === "full" ? spec.fullBytes : spec.subsetBytes;
  const picked: { rel: string; size: number }[] = [];
  let bytes = 0;
  // Spread over the whole corpus: every k-th of the files small enough to leave room for others.
  const small = all.filter((f) => f.size <= Math.max(budget / 4, MAX_FILE_BYTES * (mode === "full" ? 1 : 0)));
  const total = small.reduce((n, f) => n + f.size, 0);
  const step = total <= budget ? 1 : Math.max(1, Math.floor(small.length / Math.ceil((small.length * budget) / total)));
  for (let i = 0; i < small.length && bytes < budget; i += step) {
    const f = small[i] as { rel: string; size: number };
    if (bytes + f.size > budget) continue;
    picked.push(f);
    bytes += f.size;
  }
  return { id: spec.id, language: spec.language, sgLang: spec.sgLang, root, files: picked.map((f) => f.rel), bytes };
}
