// docs/reference/product-documents.md names, for each requirement of the product documents, the files
// that implement it. Every path it names exists (`cp/` is control-plane/src/, `agent/` enclave-agent/src/;
// `{a,b}` and `*.ts` as a shell reads them), so a move or rename cannot leave the table pointing nowhere.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { expect, it } from "vitest";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";

const PREFIXES: Record<string, string> = { "cp/": "control-plane/src/", "agent/": "enclave-agent/src/", "proto/": "proto/", "test/": "test/" };

/** The repository paths one table cell's code span names (braces expanded, a `*` file glob kept). */
function pathsOf(span: string): string[] {
  const prefix = Object.keys(PREFIXES).find((p) => span.startsWith(p));
  if (!prefix) return [];
  const full = PREFIXES[prefix] + span.slice(prefix.length);
  const brace = /\{([^}]+)\}/.exec(full);
  if (!brace) return [full];
  return (brace[1] ?? "").split(",").map((alt) => full.replace(brace[0], alt));
}

function exists(path: string): boolean {
  if (!path.includes("*")) return existsSync(join(repoRoot, path));
  const dir = join(repoRoot, dirname(path));
  const suffix = path.slice(path.lastIndexOf("*") + 1);
  return existsSync(dir) && readdirSync(dir).some((f) => f.endsWith(suffix));
}

it("names only files and folders that exist", () => {
  const page = readFileSync(join(repoRoot, "docs", "reference", "product-documents.md"), "utf8");
  const rows = page.split("\n").filter((l) => /^\| [TR]\d+ \|/.test(l));
  expect(rows.length).toBeGreaterThan(60);
  const named = rows.flatMap((row) => [...row.matchAll(/`([^`]+)`/g)].flatMap((m) => pathsOf(m[1] ?? "")));
  expect(named.length).toBeGreaterThan(60);
  expect(named.filter((p) => !exists(p))).toEqual([]);
});
