// Every relative link of the README, CONTRIBUTING, SECURITY and docs/ reaches a file that exists, and
// every `#anchor` into a markdown page names one of its headings (as GitHub makes anchors): pages move
// between folders, and a link that silently 404s is how docs stop being read.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { expect, it } from "vitest";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? markdownFiles(p) : e.name.endsWith(".md") ? [p] : [];
  });
}

/** The text outside fenced code blocks, where a `](…)` is code, not a link. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, "");
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, "")
    .replace(/ /g, "-");
}

function anchorsOf(file: string): Set<string> {
  const headings = [...prose(readFileSync(file, "utf8")).matchAll(/^#+ (.*)$/gm)].map((m) => anchor(m[1] ?? ""));
  return new Set(headings);
}

/** Each broken link as `page: target (why)`. */
function brokenLinks(files: string[]): string[] {
  const broken: string[] = [];
  for (const file of files) {
    for (const m of prose(readFileSync(file, "utf8")).matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1] ?? "";
      if (/^[a-z]+:/.test(target)) continue;
      const [path = "", hash] = target.split("#");
      const to = path ? join(dirname(file), path) : file;
      const where = `${relative(repoRoot, file)}: ${target}`;
      if (!existsSync(to)) broken.push(`${where} (no such file)`);
      else if (hash && to.endsWith(".md") && !anchorsOf(to).has(hash)) broken.push(`${where} (no such heading)`);
    }
  }
  return broken;
}

it("every relative link and anchor of the docs resolves", () => {
  const files = [...["README.md", "CONTRIBUTING.md", "SECURITY.md"].map((f) => join(repoRoot, f)), ...markdownFiles(join(repoRoot, "docs"))];
  expect(files.length).toBeGreaterThan(20);
  expect(brokenLinks(files)).toEqual([]);
});
