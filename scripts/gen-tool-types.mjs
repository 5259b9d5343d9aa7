// Writes the clients' per-tool types from the tool registry (control-plane/src/contract/tool-types.ts):
// the Node client's generated module and proto/tool-schemas.json. Runs on the built control plane
// (node scripts/build.mjs first); `--check` exits 1 when a committed file differs.
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const dist = (p) => join(root, "control-plane", "dist", "src", p);
const { loadConfig } = await import(dist("config.js"));
const { ControlPlane } = await import(dist("control-plane.js"));
const { renderToolTypeFiles } = await import(dist("contract/tool-types.js"));

const dataDir = mkdtempSync(join(tmpdir(), "enclave-tool-types-"));
let files;
const cp = await ControlPlane.start(loadConfig({ dataDir, listen: `unix://${join(dataDir, "cp.sock")}` }));
try {
  files = renderToolTypeFiles(cp.registry.all());
} finally {
  await cp.close();
  rmSync(dataDir, { recursive: true, force: true });
}
const check = process.argv.includes("--check");
let stale = 0;
for (const [rel, text] of Object.entries(files)) {
  const path = join(root, rel);
  let old = "";
  try {
    old = readFileSync(path, "utf8");
  } catch {
    // a missing file is stale
  }
  if (old === text) continue;
  if (check) {
    console.error(`${rel} is stale: run node scripts/gen-tool-types.mjs`);
    stale++;
  } else {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    console.log(`wrote ${rel}`);
  }
}
process.exit(stale ? 1 : 0);
