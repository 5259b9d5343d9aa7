// docs/tools/custom-tools.md shows the resolve-runtime document's example as the integration suite loads
// it (test/fixtures/custom-tools/batch-rename-preview.ts), and resolve's discard output as that suite
// recorded it, so the page cannot drift from what runs.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";

const page = readFileSync(join(repoRoot, "docs", "tools", "custom-tools.md"), "utf8");

/** The page's fenced blocks of one language, in order. */
function blocks(lang: string): string[] {
  return [...page.matchAll(new RegExp("^```" + lang + "\\n([\\s\\S]*?)^```", "gm"))].map((m) => m[1] ?? "");
}

it("shows the document's example exactly as the suite loads it", () => {
  const fixture = readFileSync(join(repoRoot, "test", "fixtures", "custom-tools", "batch-rename-preview.ts"), "utf8");
  expect(blocks("ts")[0]).toBe(fixture);
});

it("shows resolve's discard of the example as recorded: the label, then reject's text in place of the default", () => {
  const recorded = readFileSync(join(repoRoot, "test", "integration", "transcripts", "custom-tools-resolve", "example-discarded.txt"), "utf8");
  expect(blocks("text")).toContain(`${recorded}\n`);
  expect(blocks("text")).toContain("Batch rename: 1 files\nDiscarded\n");
});
