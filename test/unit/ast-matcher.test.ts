// The matcher and pattern compiler on real grammars (the wasm files `make build` puts in
// dist/agent/grammars), through the engine the agent serves.
import { linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AstEngine } from "@enclave/agent/ast/ast-engine.js";
import { grammarById, grammarForPath } from "@enclave/agent/ast/grammar-registry.js";
import { type Match, Matcher, type Permissive } from "@enclave/agent/ast/matcher.js";
import type { CompiledPattern } from "@enclave/agent/ast/pattern-compiler.js";
import { WorkspacePaths } from "@enclave/agent/fs/workspace-paths.js";
import { agentBundleDir } from "@enclave/control-plane/repo-paths.js";
import { CORPORA, corpus } from "../fidelity/corpora.js";
import { PATTERNS } from "../fidelity/patterns.js";
import { rejected } from "@enclave/test-kit/transcript-log.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";

let root: string;
let engine: AstEngine;

function put(rel: string, content: string): void {
  mkdirSync(join(root, rel, ".."), { recursive: true });
  writeFileSync(join(root, rel), content);
}

async function find(path: string, pattern: string, language = "", maxResults = 50) {
  return engine.search({ pattern, path, language, maxResults });
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "ast-unit-"));
  engine = new AstEngine(new WorkspacePaths(root), join(agentBundleDir, "grammars"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("pattern matching", () => {
  it("Dart: a repeated metavariable must capture the same text (a repeated name is a guard)", async () => {
    put(
      "guard.dart",
      `class W {
  void close() {
    if (controller != null) controller.dispose();
    if (controller != null) other.dispose();
    if (controller   !=null)   controller
        .dispose(); // a comment
    if (controller != null) controller.disposeLater();
  }
}
`,
    );
    const r = await find("guard.dart", "if ($X != null) $X.dispose()");
    expect(r.matches.map((m) => m.match.startRow + 1)).toEqual([3, 5]);
    expect(r.matches[0]?.match.bindings.get("X")?.text).toBe("controller");
    expect(r.matches[1]?.text).toBe("if (controller   !=null)   controller\n        .dispose();");
  });

  it("Dart: the context ladder reads dispose(x) as a call, however spaced, wrapped or commented", async () => {
    put(
      "calls.dart",
      `void main() {
  dispose(x);
  var y = dispose( x );
  foo(dispose(
      x /* why */));
  dispose(z);
  print("dispose(x)"); // dispose(x)
  /* dispose(x) */
}
`,
    );
    const r = await find("calls.dart", "dispose(x)");
    expect(r.context).toBe("expression");
    expect(r.matches.map((m) => m.match.startRow + 1)).toEqual([2, 3, 4]);
  });

  it("never matches inside string literals or comments (JavaScript)", async () => {
    put("s.js", `const a = "foo(1)";\n// foo(1)\n/* foo(1) */\nfoo(1);\nconst t = \`foo(1)\`;\n`);
    const r = await find("s.js", "foo(1)");
    expect(r.matches.map((m) => m.match.startRow + 1)).toEqual([4]);
  });

  it("$$$ matches a run of arguments, zero or more, keeping separators", async () => {
    put("args.py", `log("a")\nlog()\nlog("a", b, c=1)\nlog(\n  x,\n  y,\n)\n`);
    const r = await find("args.py", "log($$$ARGS)");
    expect(r.matches.map((m) => m.match.bindings.get("ARGS")?.text)).toEqual([`"a"`, "", `"a", b, c=1`, "x,\n  y"]);
    const last = await find("args.py", "log($$$REST, $LAST)");
    expect(last.matches.map((m) => m.match.bindings.get("LAST")?.text)).toEqual([`"a"`, "c=1", "y"]);
  });

  it("$_ binds nothing, so two $_ need not be equal", async () => {
    put("w.go", `package p\nfunc f() { g(1, 2); g(3, 3) }\n`);
    expect((await find("w.go", "g($_, $_)")).matches).toHaveLength(2);
    expect((await find("w.go", "g($A, $A)")).matches.map((m) => m.text)).toEqual(["g(3, 3)"]);
  });

  it("reports an unparseable pattern with the parser's complaint instead of searching", async () => {
    put("x.rs", `fn main() { let a = 1; }\n`);
    await expectTranscript(await rejected(find("x.rs", "fn (((")), "transcripts/ast-matcher/not-valid-rust-in-any-context.txt");
  });

  it("matches in every bundled language", async () => {
    const cases: Array<[string, string, string, number]> = [
      ["a.ts", "let v: number = f(1);\nf(2)\n", "f($N)", 2],
      ["a.tsx", "const e = <div>{f(1)}</div>;\n", "f($N)", 1],
      ["a.rs", "fn main() { f(1); let x = f(2); }\n", "f($N)", 2],
      ["a.c", "int main(void) { f(1); return f(2); }\n", "f($N)", 2],
      ["a.cpp", "int main() { f(1); std::string s; }\n", "f($N)", 1],
      ["A.java", "class A { void m() { f(1); } }\n", "f($N)", 1],
      ["a.sh", "echo hi\nf 1\necho bye\n", "echo $X", 2],
      ["a.json", `{"a": 1, "b": {"a": 2}}\n`, `"a": $V`, 2],
      ["a.go", "package p\nfunc m() { f(1) }\n", "f($N)", 1],
    ];
    for (const [file, src, pattern, n] of cases) {
      put(file, src);
      expect((await find(file, pattern)).matches, `${file}: ${pattern}`).toHaveLength(n);
    }
  });

  it("matches sibling sequences", async () => {
    put("seq.js", "function f() {\n  a();\n  b();\n  c();\n}\nfunction g() {\n  a();\n  c();\n}\n");
    const two = await find("seq.js", "a(); b();");
    expect(two.matches.map((m) => m.text)).toEqual(["a();\n  b();"]);
    const rest = await find("seq.js", "a(); $$$REST");
    expect(rest.matches.map((m) => m.match.bindings.get("REST")?.text)).toEqual(["b();\n  c();", "c();"]);
  });

  it("handles the patterns people write first", async () => {
    const cases: Array<[string, string, string, string[]]> = [
      ["p1.js", "function foo(a, b) {\n  return a + b;\n}\nfunction bar() {}\n", "function $F($$$P) { $$$B }", ["foo", "bar"]],
      ["p2.js", "console.log('a', 1);\nconsole.error(2);\nconsole.log();\n", "console.log($$$)", ["console.log('a', 1)", "console.log()"]],
      ["p3.py", "def f(a, b=1):\n    return a\n\nclass K:\n    def g(self):\n        pass\n", "def $F($$$P): $$$B", ["f", "g"]],
      ["p4.go", "package p\nfunc f() error {\n\tif err != nil {\n\t\treturn nil, err\n\t}\n\treturn nil\n}\n", "if err != nil { return $$$R }", ["nil, err"]],
      ["p5.rs", "fn main() { let a = x.unwrap(); let b = y.unwrap_or(1); opt().unwrap(); }\n", "$X.unwrap()", ["x", "opt()"]],
      ["p6.ts", "const a: number = 1;\nlet b: string = 's';\nconst c = 2;\n", "const $X: $T = $V", ["a"]],
      ["P7.java", 'class A { void m() { System.out.println("hi"); System.err.println(1); } }\n', "System.out.println($A)", ['"hi"']],
      ["p8.c", "void f(void) { char *p = malloc(10); free(p); q = malloc(n * 2); }\n", "malloc($N)", ["10", "n * 2"]],
    ];
    for (const [file, src, pattern, want] of cases) {
      put(file, src);
      const r = await find(file, pattern);
      const first = (m: (typeof r.matches)[number]) => [...m.match.bindings.values()][0]?.text ?? m.text;
      expect(r.matches.map(first), `${file}: ${pattern}`).toEqual(want);
    }
  });

  it("searches a folder honouring .gitignore, skipping vendored and binary files, and says when the cap cut the list", async () => {
    put("tree/.gitignore", "ignored/\n*.gen.py\n");
    put("tree/a.py", "f(1)\nf(2)\n");
    put("tree/sub/b.py", "f(3)\n");
    put("tree/ignored/c.py", "f(4)\n");
    put("tree/d.gen.py", "f(5)\n");
    put("tree/node_modules/e.py", "f(6)\n");
    put("tree/venv/g.py", "f(7)\n");
    writeFileSync(join(root, "tree/bin.py"), Buffer.from([0x66, 0x28, 0x38, 0x29, 0, 1, 2]));
    put("tree/linked.py", "f(9)\n");
    linkSync(join(root, "tree/linked.py"), join(root, "tree/hard.py"));
    const r = await find("tree", "f($N)", "python");
    expect(r.matches.map((m) => `${m.path}:${m.match.bindings.get("N")?.text}`)).toEqual(["tree/a.py:1", "tree/a.py:2", "tree/sub/b.py:3"]);
    expect(r.truncated).toBe(false);
    expect(r.skipped).toMatchObject({ binary: 1, vendored: 2, hardLinked: 2 });
    const capped = await find("tree", "f($N)", "python", 2);
    expect(capped.matches).toHaveLength(2);
    expect(capped.truncated).toBe(true);
  });

  it("rewrites with bindings substituted, $$$ keeping its separators", async () => {
    put("rw.js", "old(a, b,\n  c);\nold();\nkeep(a);\n");
    const r = await engine.rewrite({ pattern: "old($$$A)", rewrite: "fresh($$$A, extra)", path: "rw.js", language: "" });
    expect(r.files).toHaveLength(1);
    expect(r.files[0]?.after).toBe("fresh(a, b,\n  c, extra);\nfresh(, extra);\nkeep(a);\n");
    expect(r.files[0]?.replacements).toBe(2);
  });
});

describe("rewrites leave code that still compiles", () => {
  it("Python: a multi-line $$$ body keeps its depth (re-indented once, relative to where it lands)", async () => {
    put("indent/keys.py", "def f(d):\n    for k in d.keys():\n        a = k\n        b = k\n    return d\n");
    const r = await engine.rewrite({
      pattern: "for $K in $D.keys():\n    $$$BODY",
      rewrite: "for $K in $D:\n    $$$BODY",
      path: "indent/keys.py",
      language: "",
    });
    expect(r.files[0]?.after).toBe("def f(d):\n    for k in d:\n        a = k\n        b = k\n    return d\n");
    expect(r.files[0]?.parseError).toBeUndefined();
  });

  it("re-indents a captured block to the template line it lands on, deeper or shallower", async () => {
    put("indent/wrap.py", "class K:\n    def m(self):\n        if ok:\n            x = 1\n            y = 2\n");
    const deeper = await engine.rewrite({
      pattern: "if ok:\n    $$$B",
      rewrite: "try:\n    if ok:\n        $$$B\nexcept E:\n    pass",
      path: "indent/wrap.py",
      language: "",
    });
    expect(deeper.files[0]?.after).toBe(
      "class K:\n    def m(self):\n        try:\n            if ok:\n                x = 1\n                y = 2\n        except E:\n            pass\n",
    );
    put("indent/unwrap.js", "function f() {\n  if (ok) {\n    a();\n    if (b) {\n      c();\n    }\n  }\n}\n");
    const shallower = await engine.rewrite({ pattern: "if (ok) { $$$B }", rewrite: "$$$B", path: "indent/unwrap.js", language: "" });
    expect(shallower.files[0]?.after).toBe("function f() {\n  a();\n  if (b) {\n    c();\n  }\n}\n");
  });

  it("keeps a comment before the first statement of a $$$ body (Python and JavaScript)", async () => {
    put("comments/c.py", "for k in d.keys():\n    # why\n    use(k)\n");
    const py = await engine.rewrite({
      pattern: "for $K in $D.keys():\n    $$$BODY",
      rewrite: "for $K in $D:\n    $$$BODY",
      path: "comments/c.py",
      language: "",
    });
    expect(py.files[0]?.after).toBe("for k in d:\n    # why\n    use(k)\n");
    put("comments/c.js", "function f() {\n  // first\n  a();\n  /* last */\n}\n");
    const js = await engine.rewrite({ pattern: "function $F() { $$$B }", rewrite: "async function $F() {\n  $$$B\n}", path: "comments/c.js", language: "" });
    expect(js.files[0]?.after).toBe("async function f() {\n  // first\n  a();\n  /* last */\n}\n");
    put("comments/mid.js", "g(/* a */ x, /* b */ y);\n");
    const mid = await engine.rewrite({ pattern: "g($$$A, $B)", rewrite: "h($B, $$$A)", path: "comments/mid.js", language: "" });
    expect(mid.files[0]?.after).toBe("h(y, /* a */ x);\n");
  });

  it("says which file and line no longer parse after a rewrite, and only when the file parsed before", async () => {
    put("broken/ok.js", "const a = 1;\nfoo(a);\n");
    put("broken/already.js", "const = ;\nfoo(a);\n");
    const r = await engine.rewrite({ pattern: "foo($A)", rewrite: "foo($A", path: "broken", language: "javascript" });
    const byPath = Object.fromEntries(r.files.map((f) => [f.path, f]));
    expect(byPath["broken/ok.js"]?.parseError).toMatchObject({ line: 2 });
    expect(byPath["broken/ok.js"]?.parseError?.message).toMatch(/missing|unexpected/);
    expect(byPath["broken/already.js"]?.parseError).toBeUndefined();
  });

  it("Python: an indentation the grammar accepts but Python refuses counts as a parse error", async () => {
    put("broken/indent.py", "def f():\n    x = 1\n    return x\n");
    const r = await engine.rewrite({ pattern: "x = $V", rewrite: "x = $V\n  y = $V", path: "broken/indent.py", language: "" });
    expect(r.files[0]?.parseError).toMatchObject({ line: 3, column: 7, message: "unexpected indent (IndentationError)" });
  });
});

describe("the pattern language as ast-grep documents it", () => {
  it('"$M" inside a string literal matches only a string, and binds its content without quotes', async () => {
    put("str/req.js", 'const a = require("fs");\nconst b = require(name);\nconst c = require(`tpl`);\n');
    const r = await find("str/req.js", 'require("$M")');
    expect(r.matches.map((m) => [m.text, m.match.bindings.get("M")?.text])).toEqual([['require("fs")', "fs"]]);
    const w = await engine.rewrite({ pattern: 'require("$M")', rewrite: 'import("$M")', path: "str/req.js", language: "" });
    expect(w.files[0]?.after).toBe('const a = import("fs");\nconst b = require(name);\nconst c = require(`tpl`);\n');
    put("str/fmt.py", 'x = "%s" % y\nz = name % y\n');
    expect((await find("str/fmt.py", '"$S" % $X')).matches.map((m) => m.match.bindings.get("S")?.text)).toEqual(["%s"]);
  });

  it("$_NAME binds nothing: $_F($_F) matches test(a)", async () => {
    put("wild/w.js", "test(a);\nsame(same);\n");
    const r = await find("wild/w.js", "$_F($_F)");
    expect(r.matches.map((m) => m.text)).toEqual(["test(a)", "same(same)"]);
    expect(r.matches[0]?.match.bindings.size).toBe(0);
  });

  it("an empty $$$ before a comma: f($$$A, $B) matches f(a)", async () => {
    put("empty/e.js", "f(a);\nf();\n");
    const r = await find("empty/e.js", "f($$$A, $B)");
    expect(r.matches.map((m) => [m.text, m.match.bindings.get("A")?.text, m.match.bindings.get("B")?.text])).toEqual([["f(a)", "", "a"]]);
  });

  it("reads patterns that need the grammar's filler, and says how it read them", async () => {
    const cases: Array<[string, string, string, string, string[]]> = [
      [
        "fill/s.js",
        "function f(a) {\n  switch (a) { case 1: break; }\n}\n",
        "switch ($X) { $$$ }",
        "switch (a) { case 1: break; }",
        ["`$$$` standing for whatever the code has where the grammar expects cases"],
      ],
      ["fill/w.c", "int f(int x) { while (x) { x--; } return x; }\n", "while ($C) { $$$ }", "while (x) { x--; }", ["a `;` supplied after `$$$`"]],
      [
        "fill/d.c",
        "static int g(int a) { return a; }\nint h(void) { return 1; }\n",
        "static int $F($$$P) { $$$B }",
        "static int g(int a) { return a; }",
        ["a `;` supplied after `$$$B`"],
      ],
      [
        "fill/t.go",
        "package p\nfunc f(v any) {\n\tswitch t := v.(type) {\n\tcase int:\n\t\t_ = t\n\t}\n}\n",
        "switch $X := $Y.(type) { $$$ }",
        "switch t := v.(type) {\n\tcase int:\n\t\t_ = t\n\t}",
        ["`$$$` standing for whatever the code has where the grammar expects cases"],
      ],
      [
        "fill/i.ts",
        'import { a, b } from "x";\nimport c from "y";\n',
        "import { $$$N } from $S",
        'import { a, b } from "x";',
        ["`$S` taken as a string literal"],
      ],
    ];
    for (const [file, src, pattern, want, fillers] of cases) {
      put(file, src);
      const r = await find(file, pattern);
      expect(r.context, pattern).toBe("statement");
      expect(r.fillers, pattern).toEqual(fillers);
      expect(
        r.matches.map((m) => m.text),
        pattern,
      ).toEqual([want]);
    }
  });

  it("prefers the statement reading for a pattern that starts with a statement keyword", async () => {
    put("kw/k.js", "class A { switch(x) { go(); } }\nfunction f(x) { switch (x) { default: go(); } }\n");
    const r = await find("kw/k.js", "switch ($X) { $$$ }");
    expect(r.matches.map((m) => m.match.startRow + 1)).toEqual([2]);
  });

  it("gives each match's column (1-based, in characters) as well as its line", async () => {
    put("col/c.js", 'const s = "é😀"; f(1);\n  f(2);\n');
    const r = await find("col/c.js", "f($N)");
    expect(r.matches.map((m) => [m.match.startRow + 1, m.match.startColumn, m.match.endColumn])).toEqual([
      [1, 17, 21],
      [2, 3, 7],
    ]);
  });

  it("compares an unnamed token by its kind: `# define` is the `#define` token", async () => {
    put("tok/t.h", "#define A 1\n# define B 2\n");
    expect((await find("tok/t.h", "#define $N $V")).matches.map((m) => m.match.bindings.get("N")?.text)).toEqual(["A", "B"]);
  });
});

describe("deliberate differences from ast-grep, each switchable to ast-grep's behaviour", () => {
  async function both(file: string, src: string, pattern: string, difference: Permissive): Promise<{ ours: string[]; astGrep: string[] }> {
    put(file, src);
    const grammar = grammarForPath(file);
    if (!grammar) throw new Error(file);
    const compiled = await engine.compile(grammar, pattern);
    const tree = (await engine.runtime.parser(grammar)).parse(src);
    if (!tree) throw new Error("no tree");
    try {
      const texts = (set?: ReadonlySet<Permissive>) =>
        new Matcher(compiled, src, set ? { asAstGrep: set } : {}).findAll(tree).map((m) => src.slice(m.start, m.end));
      return { ours: texts(), astGrep: texts(new Set([difference])) };
    } finally {
      tree.delete();
    }
  }

  it("comments: a comment before the body is skipped", async () => {
    const r = await both("dd/c.py", "if a:\n    # note\n    return b\n", "if $A: return $B", "comments");
    expect(r).toEqual({ ours: ["if a:\n    # note\n    return b"], astGrep: [] });
  });

  it("unnamed tokens: `async` before the parameters is skipped", async () => {
    const r = await both("dd/u.js", "const f = async () => 1;\n", "($$$P) => $E", "unnamed");
    expect(r).toEqual({ ours: ["async () => 1"], astGrep: [] });
  });

  it("a trailing $$$ matches nothing: a bare `return`, and `f($A, $$$)` on `f(a)`", async () => {
    const go = await both("dd/t.go", "package p\nfunc f() {\n\tif err != nil {\n\t\treturn\n\t}\n}\n", "if err != nil { return $$$R }", "empty-trailing-run");
    expect(go).toEqual({ ours: ["if err != nil {\n\t\treturn\n\t}"], astGrep: [] });
    const js = await both("dd/t.js", "f(a);\nf(a, b);\n", "f($A, $$$)", "empty-trailing-run");
    expect(js).toEqual({ ours: ["f(a)", "f(a, b)"], astGrep: ["f(a, b)"] });
  });

  it("backtracking: $$$A, $B gives $B the last argument", async () => {
    const r = await both("dd/b.js", "f(a);\nf(a, b, c);\n", "f($$$A, $B)", "backtracking");
    expect(r).toEqual({ ours: ["f(a)", "f(a, b, c)"], astGrep: ["f(a)"] });
  });
});

describe("candidates found from the pattern's words", () => {
  // The matcher finds where a one-node pattern can match from the occurrences of one of its words
  // (the token there, then its ancestors) rather than by walking every node; on real code in every
  // corpus language, with every differential pattern, that must give exactly the walk's matches, in
  // the same order, with the same bindings.
  it("finds exactly what a walk of every node finds, in the same order", async () => {
    const view = (ms: Match[]) =>
      ms.map((m) => [m.start, m.end, m.startRow, m.endRow, m.startColumn, m.endColumn, [...m.bindings].map(([k, v]) => [k, v.start, v.end, v.text])]);
    let compared = 0;
    let matched = 0;
    for (const spec of CORPORA) {
      const c = corpus(spec, "subset");
      const grammar = c && grammarById(c.language);
      if (!c || !grammar) continue;
      const parser = await engine.runtime.parser(grammar);
      const patterns: CompiledPattern[] = [];
      for (const p of PATTERNS[c.language] ?? []) {
        // A pattern the engine refuses (the differential suite counts those) has nothing to compare.
        const compiled = await engine.compile(grammar, p).catch(() => undefined);
        if (compiled) patterns.push(compiled);
      }
      for (const f of c.files.slice(0, 12)) {
        const src = readFileSync(join(c.root, f), "utf8");
        const tree = parser.parse(src);
        if (!tree) continue;
        try {
          for (const p of patterns) {
            const walked = view(new Matcher(p, src, { walk: true }).findAll(tree));
            expect(view(new Matcher(p, src).findAll(tree)), `${c.id} ${f}: ${p.source}`).toEqual(walked);
            compared++;
            matched += walked.length;
          }
        } finally {
          tree.delete();
        }
      }
    }
    expect(compared).toBeGreaterThan(1000);
    expect(matched).toBeGreaterThan(1000);
  }, 120_000);
});
