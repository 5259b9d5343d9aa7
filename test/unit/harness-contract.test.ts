// The docs' list of what a harness may hold Enclave to (docs/reference/harness-contract.md, a page
// generated whole) is the code's own: every tool, argument, fixed text and error code.
// UPDATE_HARNESS_CONTRACT=1 rewrites the page.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { loadConfig } from "@enclave/control-plane/config.js";
import { renderHarnessContract } from "@enclave/control-plane/contract/harness-contract.js";
import { ControlPlane } from "@enclave/control-plane/control-plane.js";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";

/** The whole page: a title, where it comes from, then the rendering. */
function contractPage(rendered: string): string {
  return [
    "# The harness contract",
    "",
    "Everything a harness may hold Enclave to, rendered from the code (`control-plane/src/contract/harness-contract.ts`);",
    "`test/unit/harness-contract.test.ts` fails when this page and the code differ. What it is for: [api.md](api.md#the-harness-contract).",
    "",
    rendered,
    "",
  ].join("\n");
}

it("the docs list every tool, argument, fixed text and error code as the code has them", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "enclave-contract-"));
  const cp = await ControlPlane.start(loadConfig({ dataDir, listen: `unix://${join(dataDir, "cp.sock")}` }));
  let rendered: string;
  try {
    rendered = renderHarnessContract(cp.registry.all());
  } finally {
    await cp.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const pagePath = join(repoRoot, "docs", "reference", "harness-contract.md");
  const page = contractPage(rendered);
  if (process.env.UPDATE_HARNESS_CONTRACT === "1") writeFileSync(pagePath, page);
  expect(existsSync(pagePath), "docs/reference/harness-contract.md exists").toBe(true);
  expect(readFileSync(pagePath, "utf8")).toBe(page);
  expect(rendered).toContain("| `debug` | exec | debug |");
  expect(rendered).toContain("op `attach`: `port?`, `pid?`, `adapter?`");
  expect(rendered).toContain("action `hover`: `file`, `line`, `symbol`");
  expect(rendered).toContain("`harness_denied` (PERMISSION_DENIED)");
});
