// The .gitignore subset a directory search honours.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { isIgnored, parseGitignore } from "./gitignore.js";

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

// The reference: git itself. A tree with tricky rules in two .gitignore files, walked as a search
// walks (an ignored folder is not entered), and every entry's verdict compared with `git check-ignore`.
describe("gitignore rules beside git check-ignore", () => {
  const rootRules = [
    "# comment",
    "*.log",
    "!keep.log",
    "/top.py",
    "build/",
    "docs/**/gen",
    "**/tmp",
    "a/**/b",
    "\\#hash",
    "[abc].txt",
    "*.py[co]",
    "!/important.pyc",
    "out",
    "!out/kept",
    "space\\ ",
    "dir-only/",
    "/anchored/inner",
    "vendor/**",
    "!vendor/keep.txt",
    "\\!bang",
    "trail   ",
    "[!x]y.md",
    "q?z",
    "**/deep/**/leaf",
    "cache*/",
  ].join("\n");
  const subRules = ["local.py", "!*.log", "/only-here.txt", "nested/"].join("\n");
  const files = [
    "a.log",
    "keep.log",
    "deep/x/a.log",
    "top.py",
    "src/top.py",
    "build/x.py",
    "src/build/y.py",
    "docs/a/b/gen/f",
    "docs/gen/f",
    "x/tmp/f",
    "tmp/g",
    "a/b/f",
    "a/x/y/b/f",
    "a/c",
    "#hash",
    "a.txt",
    "d.txt",
    "m.pyc",
    "m.pyo",
    "important.pyc",
    "sub/important.pyc",
    "out/kept",
    "out/other",
    "space ",
    "dir-only",
    "sub/dir-only/f",
    "anchored/inner/f",
    "x/anchored/inner/f",
    "sub/local.py",
    "local.py",
    "sub/z.log",
    "sub/only-here.txt",
    "sub/deeper/only-here.txt",
    "sub/nested/f",
    "sub/deeper/nested/f",
    "main.py",
    "vendor/keep.txt",
    "vendor/lib/x.js",
    "!bang",
    "trail",
    "ay.md",
    "xy.md",
    "qaz",
    "qz",
    "p/deep/q/r/leaf",
    "deep/leaf",
    "cache1/f",
    "cachefile",
  ];

  it("agrees with git on every entry a search would reach", () => {
    const dir = mkdtempSync(join(tmpdir(), "gitignore-diff-"));
    try {
      execFileSync("git", ["init", "-q", dir]);
      writeFileSync(join(dir, ".gitignore"), rootRules);
      mkdirSync(join(dir, "sub"), { recursive: true });
      writeFileSync(join(dir, "sub", ".gitignore"), subRules);
      for (const f of files) {
        mkdirSync(dirname(join(dir, f)), { recursive: true });
        writeFileSync(join(dir, f), "");
      }
      const rulesFor = (rel: string): ReturnType<typeof parseGitignore> => [
        ...parseGitignore(rootRules, ""),
        ...(rel === "sub" || rel.startsWith("sub/") ? parseGitignore(subRules, "sub") : []),
      ];
      const entries: Array<{ rel: string; isDir: boolean }> = [];
      const walk = (rel: string): void => {
        for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
          if (e.name === ".git" || e.name === ".gitignore") continue;
          const child = rel ? `${rel}/${e.name}` : e.name;
          entries.push({ rel: child, isDir: e.isDirectory() });
          if (e.isDirectory() && !isIgnored(rulesFor(child), child, true)) walk(child);
        }
      };
      walk("");
      const gitIgnored = new Set(
        spawnSync("git", ["-C", dir, "check-ignore", "--no-index", "--stdin"], { input: entries.map((e) => e.rel).join("\n"), encoding: "utf8" })
          .stdout.split("\n")
          .filter(Boolean),
      );
      const differ = entries.filter((e) => isIgnored(rulesFor(e.rel), e.rel, e.isDir) !== gitIgnored.has(e.rel)).map((e) => `${e.rel}${e.isDir ? "/" : ""}`);
      expect(entries.length).toBeGreaterThan(40);
      expect(gitIgnored.size).toBeGreaterThan(10);
      expect(differ).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
