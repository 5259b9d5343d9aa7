// The small enclosure image of test/fixtures/remote-engine-image, built on the local engine from
// enclave-base when missing and tagged by the hash of its recipe (so a change rebuilds it).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type Docker from "dockerode";
import { hashParts, hashTree } from "@enclave/control-plane/image-set/content-hash.js";
import { dockerBuild } from "@enclave/images/docker-build.js";
import { imageExists, imageTags, readList } from "@enclave/control-plane/image-set/image-tags.js";
import { consoleProgress } from "@enclave/images/progress.js";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";

const recipeDir = join(repoRoot, "test", "fixtures", "remote-engine-image");

/** pyright at the runtime image's version, installed once with npm (Debian's pylsp answers no hover
 * inside an enclosure, and pyright is what the runtime image serves Python with). */
function pyrightDir(): string {
  const spec = readList(join(repoRoot, "images", "runtime", "npm-packages.txt")).find((p) => p.startsWith("pyright@")) ?? "pyright";
  const dir = join(repoRoot, ".enclave", "cache", `test-${spec.replace(/[^A-Za-z0-9.-]/g, "-")}`);
  if (!existsSync(join(dir, "node_modules", "pyright", "package.json"))) {
    mkdirSync(dir, { recursive: true });
    execFileSync("npm", ["install", "--prefix", dir, "--no-audit", "--no-fund", "--ignore-scripts", "--omit=dev", spec], { stdio: "ignore", timeout: 300_000 });
  }
  return dir;
}

export async function ensureSmallEnclosureImage(docker: Docker): Promise<string> {
  const base = imageTags().base;
  const pyright = pyrightDir();
  const tag = `enclave-test-small:${hashParts(["small-v1", base, hashTree(recipeDir), pyright])}`;
  if (await imageExists(docker, tag)) return tag;
  if (!(await imageExists(docker, base))) throw new Error(`${base} is not built: run \`make images\` first`);
  await dockerBuild(
    docker,
    {
      tag,
      folders: [
        [recipeDir, ""],
        [join(pyright, "node_modules"), "node_modules"],
      ],
      buildArgs: { BASE: base },
      labels: { "org.enclave.test-image": "small" },
    },
    consoleProgress(),
  );
  return tag;
}
