// The README's list of what a harness may hold Enclave to is the code's own: every tool, argument,
// fixed text and error code. UPDATE_HARNESS_CONTRACT=1 rewrites the README's section.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { loadConfig } from "@enclave/control-plane/config.js";
import { CONTRACT_END, CONTRACT_START, renderHarnessContract } from "@enclave/control-plane/contract/harness-contract.js";
import { ControlPlane } from "@enclave/control-plane/control-plane.js";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";

it("the README lists every tool, argument, fixed text and error code as the code has them", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "enclave-contract-"));
  const cp = await ControlPlane.start(loadConfig({ dataDir, listen: `unix://${join(dataDir, "cp.sock")}` }));
  let rendered: string;
  try {
    rendered = renderHarnessContract(cp.registry.all());
  } finally {
    await cp.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const readmePath = join(repoRoot, "README.md");
  const readme = readFileSync(readmePath, "utf8");
  const start = readme.indexOf(CONTRACT_START);
  const end = readme.indexOf(CONTRACT_END);
  expect(start, "the README has the harness contract section").toBeGreaterThanOrEqual(0);
  const current = readme.slice(start, end + CONTRACT_END.length);
  if (process.env.UPDATE_HARNESS_CONTRACT === "1") writeFileSync(readmePath, readme.replace(current, rendered));
  else expect(current).toBe(rendered);
  expect(rendered).toContain("| `debug` | exec | debug |");
  expect(rendered).toContain("op `attach`: `port?`, `pid?`, `adapter?`");
  expect(rendered).toContain("action `hover`: `file`, `line`, `symbol`");
  expect(rendered).toContain("`harness_denied` (PERMISSION_DENIED)");
});
