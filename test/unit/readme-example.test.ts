// The README's TypeScript example is docs/examples/quickstart.ts, which every build compiles: the two
// must stay the same code, or the README shows code nobody compiled.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";

it("the README's TypeScript example is docs/examples/quickstart.ts without its header comment", () => {
  const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
  const shown = /^## The same from TypeScript\n\n```ts\n([\s\S]*?)^```/m.exec(readme)?.[1];
  const example = readFileSync(join(repoRoot, "docs", "examples", "quickstart.ts"), "utf8").replace(/^(\/\/.*\n)+/, "");
  expect(shown, "the README has a ```ts block under 'The same from TypeScript'").toBeDefined();
  expect(shown).toBe(example);
});
