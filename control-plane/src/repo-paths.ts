// Where the installed project's own files are, found once from this module's location so that the
// same code works from the TypeScript sources (vitest) and from the compiled dist/ tree.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

function findRepoRoot(start: string): string {
  let dir = start;
  for (;;) {
    const pkg = join(dir, "package.json");
    if (existsSync(pkg)) {
      const parsed = JSON.parse(readFileSync(pkg, "utf8")) as { name?: string };
      if (parsed.name === "enclave") return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the enclave project root above ${start}`);
    dir = parent;
  }
}

export const repoRoot = findRepoRoot(dirname(fileURLToPath(import.meta.url)));
export const imagesDir = join(repoRoot, "images");
/** The agent bundle built by `make build`: one file that runs on Node 18 and later (pinned: 24 in enclosures). */
export const agentBundleDir = join(repoRoot, "dist", "agent");
export const agentBundleEntry = join(agentBundleDir, "enclave-agent.mjs");
/** Language servers `make host-servers` installs for host placement; host agents get it on PATH. */
export const hostToolsBin = join(repoRoot, ".enclave", "host-tools", "node_modules", ".bin");
