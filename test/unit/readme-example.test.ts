// The README's examples are docs/examples/quickstart.ts (which every build compiles) and
// docs/examples/quickstart.py (which mypy checks); the packaging tests run both against a control
// plane. The README must show that same code, or it shows code nobody compiled or ran.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";

const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
const section = /^## From TypeScript and Python\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? "";

/** The example file without its header comment. */
function example(name: string): string {
  return readFileSync(join(repoRoot, "docs", "examples", name), "utf8").replace(/^((\/\/|#) .*\n)+/, "");
}

it("the README has its 'From TypeScript and Python' section", () => {
  expect(section).not.toBe("");
});

it("the README's TypeScript example is docs/examples/quickstart.ts without its header comment", () => {
  expect(/```ts\n([\s\S]*?)^```/m.exec(section)?.[1]).toBe(example("quickstart.ts"));
});

it("the README's Python example is docs/examples/quickstart.py without its header comment", () => {
  expect(/```python\n([\s\S]*?)^```/m.exec(section)?.[1]).toBe(example("quickstart.py"));
});
