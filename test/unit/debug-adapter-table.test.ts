// The debug adapters' root markers against the tools document's table: every marker the document names
// is in the registry, and every marker beyond them is one docs/tools/debugger.md lists as Enclave's
// deliberate addition. A marker added or dropped in the code without the page fails here.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { DEBUG_ADAPTERS } from "@enclave/proto/adapter-registry.js";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";

/** The tools document's adapter table (id → root markers), as the document gives it. */
const DOCUMENT: Record<string, string[]> = {
  dart: ["pubspec.yaml"],
  debugpy: ["pyproject.toml", "setup.py", "requirements.txt"],
  lldb: ["Cargo.toml", "CMakeLists.txt"],
  delve: ["go.mod"],
};

/** The page's Adapters table: id → [the document's markers, the markers Enclave adds]. */
function pageTable(): Map<string, [string[], string[]]> {
  const page = readFileSync(join(repoRoot, "docs", "tools", "debugger.md"), "utf8");
  const section = page.slice(page.indexOf("## Adapters"));
  const rows = new Map<string, [string[], string[]]>();
  const list = (cell: string | undefined): string[] =>
    (cell ?? "")
      .split(",")
      .map((m) => m.trim())
      .filter(Boolean);
  for (const line of section.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    // | id | command | document's markers | added markers |
    if (cells.length !== 6 || cells[1] === "id" || cells[1]?.startsWith("---")) continue;
    rows.set(cells[1] ?? "", [list(cells[3]), list(cells[4])]);
  }
  return rows;
}

it("holds every root marker of the document's adapter table, and documents each one beyond it", () => {
  const page = pageTable();
  expect([...page.keys()].sort()).toEqual(DEBUG_ADAPTERS.map((a) => a.id).sort());
  for (const adapter of DEBUG_ADAPTERS) {
    const ours = adapter.rootMarkers;
    const theirs = DOCUMENT[adapter.id] ?? [];
    expect(ours, adapter.id).toEqual(expect.arrayContaining(theirs));
    const [documented, added] = page.get(adapter.id) ?? [[], []];
    expect(documented, adapter.id).toEqual(theirs);
    expect(added.sort(), adapter.id).toEqual(ours.filter((m) => !theirs.includes(m)).sort());
  }
});
