// The differential suite's classifier: each class of disagreement with ast-grep, on a small piece of
// code where that class, and only it, explains the difference.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AstEngine } from "@enclave/agent/ast/ast-engine.js";
import { grammarById } from "@enclave/agent/ast/grammar-registry.js";
import { WorkspacePaths } from "@enclave/agent/fs/workspace-paths.js";
import { agentBundleDir } from "@enclave/control-plane/repo-paths.js";
import { classify, type DisagreementClass, peerRoot, strictAgreement, totals } from "../fidelity/differential.js";

let root: string;
let engine: AstEngine;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "fidelity-classes-"));
  engine = new AstEngine(new WorkspacePaths(root), join(agentBundleDir, "grammars"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Case {
  language: string;
  source: string;
  pattern: string;
  /** The disagreeing match's text (its first occurrence in the source). */
  text: string;
  foundByUs: boolean;
  /** ast-grep's pattern root where its reading differs from Enclave's. */
  peerRootType?: string | null;
}

async function classOf(c: Case): Promise<DisagreementClass> {
  const grammar = grammarById(c.language);
  if (!grammar) throw new Error(`no grammar ${c.language}`);
  const compiled = await engine.compile(grammar, c.pattern);
  const tree = (await engine.runtime.parser(grammar)).parse(c.source);
  if (!tree) throw new Error("no tree");
  try {
    const at = c.source.indexOf(c.text);
    expect(at, "the match's text is in the source").toBeGreaterThanOrEqual(0);
    const before = c.source.slice(0, at);
    const line = before.split("\n").length;
    const column = [...before.slice(before.lastIndexOf("\n") + 1)].length + 1;
    const starts = [0];
    for (let i = c.source.indexOf("\n"); i >= 0; i = c.source.indexOf("\n", i + 1)) starts.push(i + 1);
    return classify({ compiled, source: c.source, tree, starts, match: { line, column, text: c.text }, foundByUs: c.foundByUs, peerRootType: c.peerRootType });
  } finally {
    tree.delete();
  }
}

describe("the differential suite's classes of disagreement", () => {
  it("across comments (deliberate): a comment between the condition and the body", async () => {
    const source = "function f(a, b) {\n  if (a) {\n    // why\n    return b\n  }\n}\n";
    expect(
      await classOf({ language: "javascript", source, pattern: "if ($X) { return $Y }", text: "if (a) {\n    // why\n    return b\n  }", foundByUs: true }),
    ).toBe("comments");
  });

  it("past unnamed tokens (deliberate): `async` before an arrow function's parameters", async () => {
    const source = "const f = async () => 1;\n";
    expect(await classOf({ language: "javascript", source, pattern: "($$$P) => $E", text: "async () => 1", foundByUs: true })).toBe("unnamed");
  });

  it("past unnamed tokens (deliberate): Go's `var $X $T` on a declaration with a value", async () => {
    const source = "package a\n\nvar a = f()\n";
    expect(await classOf({ language: "go", source, pattern: "var $X $T", text: "var a = f()", foundByUs: true })).toBe("unnamed");
  });

  it("trailing $$$ matching nothing (deliberate): Go's bare `return`", async () => {
    const source = "package a\n\nfunc f(err error) {\n\tif err != nil {\n\t\treturn\n\t}\n}\n";
    expect(await classOf({ language: "go", source, pattern: "if err != nil { return $$$R }", text: "if err != nil {\n\t\treturn\n\t}", foundByUs: true })).toBe(
      "empty-trailing-run",
    );
  });

  it("$$$ backtracking (deliberate): `$F($$$A, $B)` on a call of three arguments", async () => {
    const source = "os.path.join(a, b, x)\n";
    expect(await classOf({ language: "python", source, pattern: "$F($$$A, $B)", text: "os.path.join(a, b, x)", foundByUs: true })).toBe("backtracking");
  });

  it("pattern read in context (deliberate): C `malloc($N)` is a macro type to ast-grep, a call to Enclave", async () => {
    const source = "void f(void) { char *p = malloc(4); }\n";
    expect(
      await classOf({
        language: "c",
        source,
        pattern: "malloc($N)",
        text: "malloc(4)",
        foundByUs: true,
        peerRootType: peerRoot("macro_type_specifier\n  identifier malloc"),
      }),
    ).toBe("reading");
    // ast-grep refusing the pattern outright (no reading at all) is the same class.
    expect(
      await classOf({ language: "c", source, pattern: "malloc($N)", text: "malloc(4)", foundByUs: true, peerRootType: peerRoot("(no pattern: error)") }),
    ).toBe("reading");
  });

  it("a different reading explains nothing where the other tool's pattern type is at the match", async () => {
    // Readings that differ below a root of the same type: where the code has that type, ast-grep could
    // have matched there, so the reading is not the cause of a match only Enclave found.
    const source = "package a\n\nvar e = errors.New(s)\n";
    const cls = await classOf({
      language: "go",
      source,
      pattern: "errors.New($S)",
      text: "errors.New(s)",
      foundByUs: true,
      peerRootType: peerRoot("call_expression\n  selector_expression"),
    });
    expect(cls).toBe("unknown");
  });

  it("code the grammar cannot parse: where the error is at the match, or in the declaration holding it", async () => {
    const broken = "int f(void) { return g(1, @@ 2); }\nint h(void) { return g(3); }\n";
    expect(await classOf({ language: "c", source: broken, pattern: "g($A)", text: "g(1, @@ 2)", foundByUs: false })).toBe("unparsed");
    const macro = "FcPublic int\nFcConfigHome (void);\nint h(void) { return k(3); }\n";
    expect(await classOf({ language: "c", source: macro, pattern: "$F($$$A, $B)", text: "FcConfigHome (void)", foundByUs: false })).toBe("unparsed");
  });

  it("unknown: nothing explains it, even in a file with an error elsewhere", async () => {
    const source = "int f(void) { return g(1, @@ 2); }\nint h(void) { return k(3); }\n";
    expect(await classOf({ language: "c", source, pattern: "g($A)", text: "k(3)", foundByUs: false })).toBe("unknown");
  });

  it("non-deliberate agreement leaves the deliberate differences out", () => {
    const d = (cls: DisagreementClass) => ({ foundBy: "enclave" as const, file: "a", line: 1, column: 1, text: "x", class: cls });
    const t = totals([
      {
        corpus: "c",
        language: "c",
        pattern: "p",
        reading: "",
        ours: 100,
        peer: 97,
        both: 96,
        disagreements: [d("comments"), d("comments"), d("reading"), d("unknown")],
      },
    ]);
    expect(t.union).toBe(101);
    expect(strictAgreement(t)).toBeCloseTo(96 / 98);
  });
});
