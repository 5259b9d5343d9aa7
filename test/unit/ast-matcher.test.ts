// The matcher and pattern compiler on real grammars (the wasm files `make build` puts in
// dist/agent/grammars), through the engine the agent serves.
import { linkSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AstEngine } from "../../enclave-agent/src/ast/ast-engine.js";
import { WorkspacePaths } from "../../enclave-agent/src/fs/workspace-paths.js";
import { agentBundleDir } from "../../control-plane/src/repo-paths.js";

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
    expect(last.matches.map((m) => m.match.bindings.get("LAST")?.text)).toEqual(["c=1", "y"]);
  });

  it("$_ binds nothing, so two $_ need not be equal", async () => {
    put("w.go", `package p\nfunc f() { g(1, 2); g(3, 3) }\n`);
    expect((await find("w.go", "g($_, $_)")).matches).toHaveLength(2);
    expect((await find("w.go", "g($A, $A)")).matches.map((m) => m.text)).toEqual(["g(3, 3)"]);
  });

  it("reports an unparseable pattern with the parser's complaint instead of searching", async () => {
    put("x.rs", `fn main() { let a = 1; }\n`);
    await expect(find("x.rs", "fn (((")).rejects.toThrow(/not valid rust in any context.*complaints/);
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
      ["P7.java", "class A { void m() { System.out.println(\"hi\"); System.err.println(1); } }\n", "System.out.println($A)", ["\"hi\""]],
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
