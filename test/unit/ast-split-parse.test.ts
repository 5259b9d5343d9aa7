// A large file parsed in top-level pieces by several workers at once gives exactly the matches of
// the whole-file parse (path, range, rows, columns, captured text), on real large files and on
// files built to put the would-be cut inside a template, a comment, a block, a JSX element, a
// triple-quoted string, a bracket or a continued line: those are never used in pieces (the plan
// skips the cut, or a piece's parse has an error and the file is parsed whole). The engine counts
// the files it parsed in pieces, so splitting silently switched off fails here.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentBundleDir, repoRoot } from "@enclave/control-plane/repo-paths.js";
import { AstEngine, astCacheComponent } from "@enclave/agent/ast/ast-engine.js";
import { cutCandidates, isCut, planChunks } from "@enclave/agent/ast/chunk-plan.js";
import { grammarById } from "@enclave/agent/ast/grammar-registry.js";
import { WorkspacePaths } from "@enclave/agent/fs/workspace-paths.js";
import { until } from "../helpers/wait.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";

const TSC = join(repoRoot, "node_modules", "typescript", "lib", "_tsc.js");
const TYPESHED = join(repoRoot, ".enclave", "host-tools", "node_modules", "pyright", "dist", "typeshed-fallback", "stdlib");
/** Low enough that the stubs and the built files (tens of KB) are split too. */
const SPLIT_MIN_CHARS = 20_000;

let root: string;
let pooled: AstEngine;
let whole: AstEngine;

function put(rel: string, content: string): void {
  mkdirSync(join(root, rel, ".."), { recursive: true });
  writeFileSync(join(root, rel), content);
}

/** Column-0 statements that are no place to cut (an `if` is not a declaration), around a hazard. */
function jsAround(hazard: string): string {
  const lines = (from: number): string => Array.from({ length: 600 }, (_, i) => `if (a${from + i}) { x = b${from + i} }\n`).join("");
  return `${lines(0)}${hazard}// after the hazard\n${lines(600)}`;
}

function pyAround(hazard: string): string {
  const lines = (from: number): string => Array.from({ length: 600 }, (_, i) => `if a${from + i}:\n    x = b${from + i}\n`).join("");
  return `${lines(0)}${hazard}${lines(600)}`;
}

/** Each hazard has a line that the cut rule alone would accept (or nearly), in the middle of the file. */
const JS_HAZARDS: Record<string, string> = {
  // The piece before the cut ends inside an unclosed template: an error there.
  "template.js": "const t = `\nx;\nfunction f() { if (x) { return y } }\n`;\n",
  // Inside a template's substitution, inside an arrow function's block.
  "template-block.js": "const t2 = `a${(() => {\nx;\nfunction f() { if (x) { return y } }\nreturn 1;\n})()}`;\n",
  // A block comment: the plan does not cut inside one.
  "comment.js": "/*\nx;\nfunction f() { if (x) { return y } }\n*/\n",
  // Cut off from its end, `/*/;` reads as a regular expression and a `;`: both pieces would parse
  // cleanly, and the function in the comment would be found. The plan must not cut there.
  "comment-regex.js": "/*/;\nfunction f() { if (x) { return y } }\n/*/\n",
  // A function declared inside a block, at column 0.
  "nested.js": "if (cond) {\nx();\nfunction f() { if (x) { return y } }\n}\n",
  // An operator at the end of the line before: the function is an operand.
  "operator.js": "x = a +\nfunction f() { if (x) { return y } }\n",
  // JSX text spanning lines.
  "jsx.jsx": "const el = <div>\nx;\nfunction f() {'{'} if (x) {'{'} return y {'}'} {'}'}\n</div>;\n",
};

const TS_HAZARDS: Record<string, string> = {
  // Decorators belong to the class after them.
  "decorated.ts": "@dec({ a: {} })\nclass A { m() { if (x) { return y } } }\n@dec\nexport class B {}\n",
};

const PY_HAZARDS: Record<string, string> = {
  // A triple-quoted string holding a column-0 def.
  "triple.py": 's = """\nx = 1\ndef f():\n    return 1\n"""\n',
  // A matrix product whose `@` starts a line inside brackets (a decorator line to the cut rule).
  "bracket.py": "z = (a\n@ b)\n",
  // The same after a line continued with a backslash.
  "continued.py": "z = a \\\n@ b\n",
};

/** A cut that is sound: before the first decorator of a def (never between it and the def). */
const PY_DECORATED = "@dec\n@dec2\ndef g(x):\n    return x\n";

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "ast-split-"));
  mkdirSync(join(root, "big"));
  copyFileSync(TSC, join(root, "big", "_tsc.js"));
  if (existsSync(TYPESHED)) {
    copyFileSync(join(TYPESHED, "builtins.pyi"), join(root, "big", "builtins.pyi"));
    copyFileSync(join(TYPESHED, "tkinter", "__init__.pyi"), join(root, "big", "tkinter.pyi"));
    // Real stubs one after another: a module of about 1.5 MB.
    const names = readdirSync(TYPESHED)
      .filter((n) => n.endsWith(".pyi"))
      .sort();
    let all = "";
    for (const n of names) {
      if (all.length > 1_500_000) break;
      all += readFileSync(join(TYPESHED, n), "utf8");
      if (!all.endsWith("\n")) all += "\n";
    }
    put("big/stdlib.pyi", all);
  }
  for (const [name, hazard] of Object.entries(JS_HAZARDS)) put(`adv/${name}`, jsAround(hazard));
  for (const [name, hazard] of Object.entries(TS_HAZARDS)) put(`adv/${name}`, jsAround(hazard));
  for (const [name, hazard] of Object.entries(PY_HAZARDS)) put(`adv/${name}`, pyAround(hazard));
  put("adv/decorated.py", pyAround(PY_DECORATED));
  const paths = new WorkspacePaths(root);
  const grammars = join(agentBundleDir, "grammars");
  pooled = new AstEngine(paths, grammars, { workerEntry: join(agentBundleDir, "ast-worker.mjs"), splitMinChars: SPLIT_MIN_CHARS });
  // The reference: every file parsed whole, in this thread.
  whole = new AstEngine(paths, grammars, { workers: false });
});

afterAll(() => {
  pooled.close();
  rmSync(root, { recursive: true, force: true });
});

const view = (r: Awaited<ReturnType<AstEngine["search"]>>) => ({
  truncated: r.truncated,
  matches: r.matches.map((m) => [
    m.path,
    m.match.start,
    m.match.end,
    m.match.startRow,
    m.match.endRow,
    m.match.startColumn,
    m.match.endColumn,
    m.text,
    [...m.match.bindings].map(([k, v]) => [k, v.text, v.start, v.end]),
  ]),
});

async function both(path: string, pattern: string, language = "") {
  const req = { pattern, path, language, maxResults: 10_000 };
  return { split: view(await pooled.search(req)), whole: view(await whole.search(req)) };
}

const JS_PATTERNS = ["if ($X) { return $Y }", "function $F($$$P) { $$$B }", "if ($X) { $Y = $Z }", "new $C($$$A)"];
const PY_PATTERNS = ["def $F($$$P) -> $R: ...", "class $C($$$B): $$$X", "$A | None", "@overload\ndef $F($$$P) -> $R: ..."];
/** For the built files: each pattern's words are in each file, so each search parses it. */
const PY_BUILT_PATTERNS = ["$X = $Y", "$A @ $B", "def $F($$$P): $$$B"];

describe("large files parsed in pieces", () => {
  it("several workers run here (else nothing is split)", async () => {
    await pooled.search({ pattern: "f($X)", path: "adv/operator.js", language: "", maxResults: 1 });
    expect(pooled.cacheUsage().workers).toBeGreaterThan(1);
  });

  it("_tsc.js (6.2 MB): parsed in pieces, the same matches as the whole parse, first and from kept trees", async () => {
    const before = pooled.cacheUsage().splitSearches;
    for (const pass of ["first", "repeat"]) {
      for (const p of JS_PATTERNS) {
        const r = await both("big/_tsc.js", p);
        expect(r.split.matches.length, `${pass}: ${p}`).toBeGreaterThan(0);
        expect(r.split, `${pass}: ${p}`).toEqual(r.whole);
      }
    }
    const used = pooled.cacheUsage();
    // Every pattern of both passes was answered in pieces (a fallback would not count).
    expect(used.splitSearches - before).toBe(2 * JS_PATTERNS.length);
    expect(used.splitFallbacks).toBe(0);
    expect(used.bytes).toBeLessThanOrEqual(used.budgetBytes);
    // What placement shows says so.
    await expectTranscript(astCacheComponent(used).detail, "transcripts/ast-split-parse/placement-detail.txt", [[/\b\d+\b/g, "<n>"]]);
  });

  it.skipIf(!existsSync(TYPESHED))("real Python stubs (typeshed's builtins, tkinter, ~1.5 MB of the stdlib's): the same matches", async () => {
    const before = pooled.cacheUsage().splitSearches;
    for (const f of ["builtins.pyi", "tkinter.pyi", "stdlib.pyi"]) {
      let found = 0;
      for (const p of PY_PATTERNS) {
        const r = await both(`big/${f}`, p, "python");
        found += r.split.matches.length;
        expect(r.split, `${f}: ${p}`).toEqual(r.whole);
      }
      expect(found, f).toBeGreaterThan(0);
    }
    expect(pooled.cacheUsage().splitSearches - before).toBe(3 * PY_PATTERNS.length);
  });

  it("a pattern that can match the root or any node, or a run of statements, is not split", async () => {
    const before = pooled.cacheUsage().splitSearches;
    for (const p of ["$X", "x = 1; $A;"]) {
      const r = await both("adv/operator.js", p, "javascript");
      expect(r.split, p).toEqual(r.whole);
    }
    expect(pooled.cacheUsage().splitSearches).toBe(before);
  });

  it("cuts in a template, comment, block, JSX, triple-quoted string, bracket or continued line are never used", async () => {
    const start = pooled.cacheUsage();
    const all = { ...JS_HAZARDS, ...TS_HAZARDS, ...PY_HAZARDS };
    for (const name of Object.keys(all)) {
      const patterns = name.endsWith(".py") ? PY_BUILT_PATTERNS : JS_PATTERNS;
      for (const p of patterns) {
        const r = await both(`adv/${name}`, p);
        expect(r.split, `${name}: ${p}`).toEqual(r.whole);
      }
    }
    const end = pooled.cacheUsage();
    expect(end.splitSearches).toBe(start.splitSearches);
    // The plans that relied on a piece's parse error did try, and fell back (once per file: the
    // fallback is remembered).
    expect(end.splitFallbacks - start.splitFallbacks).toBe(["template.js", "template-block.js", "nested.js", "jsx.jsx", "triple.py", "bracket.py"].length);
  });

  it("the plan never cuts inside a block comment, nor after a continued Python line or a decorator", () => {
    const js = grammarById("javascript")?.chunking;
    const py = grammarById("python")?.chunking;
    if (!js || !py) throw new Error("no chunking rule");
    const commentRegex = jsAround(JS_HAZARDS["comment-regex.js"] as string);
    expect(cutCandidates(commentRegex, js)).toEqual([]);
    expect(planChunks(commentRegex, js, 2)).toBeNull();
    expect(cutCandidates(jsAround(JS_HAZARDS["comment.js"] as string), js)).toEqual([]);
    expect(cutCandidates(jsAround(JS_HAZARDS["operator.js"] as string), js)).toEqual([]);
    expect(cutCandidates(pyAround(PY_HAZARDS["continued.py"] as string), py)).toEqual([]);
    const decorated = pyAround(PY_DECORATED);
    expect(cutCandidates(decorated, py)).toEqual([decorated.indexOf("@dec\n")]);
  });

  it("the plan's local test of a cut agrees with the scan of every line, and its pieces cover the file", () => {
    const js = grammarById("javascript")?.chunking;
    if (!js) throw new Error("no chunking rule");
    const files = [readFileSync(TSC, "utf8"), ...Object.values(JS_HAZARDS).map(jsAround)];
    for (const src of files) {
      const all = new Set(cutCandidates(src, js));
      for (let at = 0; at < src.length; at = src.indexOf("\n", at) + 1 || src.length) expect(isCut(src, js, at), `line at ${at}`).toBe(all.has(at));
      for (const k of [2, 3, 4]) {
        const plan = planChunks(src, js, k);
        if (!plan) continue;
        expect(plan[0]?.startIndex).toBe(0);
        expect(plan[plan.length - 1]?.endIndex).toBe(src.length);
        for (let j = 1; j < plan.length; j++) {
          expect(plan[j]?.startIndex).toBe(plan[j - 1]?.endIndex);
          expect(all.has(plan[j]?.startIndex as number)).toBe(true);
          expect(plan[j]?.startPosition).toEqual({ row: src.slice(0, plan[j]?.startIndex).split("\n").length - 1, column: 0 });
        }
      }
    }
  });

  it("a cut before a decorated def keeps its decorators with it: split, and the same matches", async () => {
    const before = pooled.cacheUsage().splitSearches;
    const patterns = ["def $F($$$P): $$$B", "return $X", "@dec\n@dec2\ndef $F($$$P): $$$B"];
    for (const p of patterns) {
      const r = await both("adv/decorated.py", p);
      expect(r.split.matches, p).toHaveLength(1);
      expect(r.split, p).toEqual(r.whole);
    }
    expect(pooled.cacheUsage().splitSearches - before).toBe(patterns.length);
  });

  it("the pieces' trees are kept and dropped like whole trees", async () => {
    await both("big/_tsc.js", "if ($X) { return $Y }");
    const before = pooled.cacheUsage();
    pooled.forget(["big/_tsc.js"]);
    // Both of _tsc.js's pieces go (one tree per worker), and their memory with them.
    const after = await until(() => {
      const u = pooled.cacheUsage();
      return u.trees <= before.trees - 2 && u;
    }, "the workers to drop _tsc.js's pieces");
    expect(before.bytes - after.bytes).toBeGreaterThan(6_000_000 * 32 * 0.9);
    expect(statSync(join(root, "big", "_tsc.js")).size).toBeGreaterThan(SPLIT_MIN_CHARS);
    const r = await both("big/_tsc.js", "if ($X) { return $Y }");
    expect(r.split).toEqual(r.whole);
  });
});
