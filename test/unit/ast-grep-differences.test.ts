// The differences from @ast-grep/cli that real code showed, each on a small file searched by both
// tools (the real ast-grep binary, the engine in process) and compared the way the differential suite
// compares: either the two agree, or every disagreement is of the class the docs give for it.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Corpus } from "../fidelity/corpora.js";
import { type DisagreementClass, runCorpus } from "../fidelity/differential.js";

let root: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "ast-grep-differences-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const SG_LANG: Record<string, string> = { python: "python", go: "go", c: "c", javascript: "javascript" };
const ENDING: Record<string, string> = { python: ".py", go: ".go", c: ".c", javascript: ".js" };

/** Both tools over one file: what both found, and each disagreement's class. */
async function compare(language: string, source: string, pattern: string): Promise<{ both: number; classes: DisagreementClass[] }> {
  const file = `case-${Math.random().toString(36).slice(2)}${ENDING[language] ?? ""}`;
  writeFileSync(join(root, file), source);
  const corpus: Corpus = { id: "case", language, sgLang: SG_LANG[language] ?? language, root, files: [file], bytes: source.length };
  const [o] = (await runCorpus(corpus, [pattern])).patterns;
  if (!o) throw new Error("no outcome");
  return { both: o.both, classes: o.disagreements.map((d) => d.class) };
}

describe("each difference from ast-grep real code showed, explained", () => {
  it("Python: a parenthesised `from x import (a, b)` is found by both", async () => {
    expect(await compare("python", "from os import (path,\n    sep)\nfrom os import path\n", "from $M import $$$N")).toEqual({ both: 2, classes: [] });
  });

  it("Python: a one-line `def f(self): pass` is found by both", async () => {
    expect(await compare("python", "class A:\n    def f(self): pass\n\n    def g(self):\n        return 1\n", "def $F($$$P): $$$B")).toEqual({
      both: 2,
      classes: [],
    });
  });

  it("Go: `if err != nil { return }` is a trailing $$$ matching nothing (deliberate)", async () => {
    const source = "package a\n\nfunc f(err error) {\n\tif err != nil {\n\t\treturn\n\t}\n}\n";
    expect(await compare("go", source, "if err != nil { return $$$R }")).toEqual({ both: 0, classes: ["empty-trailing-run"] });
  });

  it("Go: `errors.New(s)` is a call to Enclave and a type conversion to ast-grep (pattern read in context)", async () => {
    const source = 'package a\n\nimport "errors"\n\nvar e = errors.New("bad")\n';
    expect(await compare("go", source, "errors.New($S)")).toEqual({ both: 0, classes: ["reading"] });
  });

  it("Python: `os.path.join(a, x)` under `$F($$$A, $B)` is $$$ backtracking (deliberate)", async () => {
    expect(await compare("python", "p = os.path.join(a, x)\n", "$F($$$A, $B)")).toEqual({ both: 0, classes: ["backtracking"] });
  });

  it("C: `malloc(4)` is a call to Enclave and a macro type to ast-grep (pattern read in context)", async () => {
    expect(await compare("c", "void f(void) { char *p = malloc(4); }\n", "malloc($N)")).toEqual({ both: 0, classes: ["reading"] });
  });

  it("Python: a comment between the condition and the body is matched across (deliberate)", async () => {
    expect(await compare("python", "def f(a, b):\n    if a:\n        # note\n        return b\n    if b: return a\n", "if $A: return $B")).toEqual({
      both: 1,
      classes: ["comments"],
    });
  });
});
