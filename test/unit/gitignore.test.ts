// The .gitignore subset a directory search honours.
import { describe, expect, it } from "vitest";
import { isIgnored, parseGitignore } from "../../enclave-agent/src/ast/gitignore.js";

describe("gitignore rules", () => {
  const rules = [...parseGitignore("# comment\n*.log\nbuild/\n/top.py\ndocs/**/gen\n!keep.log\n", ""), ...parseGitignore("local.py\n", "sub")];
  const cases: Array<[string, boolean, boolean]> = [
    ["a.log", false, true],
    ["deep/x/a.log", false, true],
    ["keep.log", false, false],
    ["build", true, true],
    ["build", false, false],
    ["src/build/x.py", false, true],
    ["top.py", false, true],
    ["src/top.py", false, false],
    ["docs/a/b/gen", true, true],
    ["docs/gen", true, true],
    ["sub/local.py", false, true],
    ["local.py", false, false],
    ["main.py", false, false],
  ];
  for (const [path, isDir, want] of cases) {
    it(`${path}${isDir ? "/" : ""} is ${want ? "" : "not "}ignored`, () => expect(isIgnored(rules, path, isDir)).toBe(want));
  }
});
