// The small enclosure image of test/fixtures/remote-engine-image, built on the local engine from
// enclave-base when missing and tagged by the hash of its recipe (so a change rebuilds it).
import { join } from "node:path";
import type Docker from "dockerode";
import { hashParts, hashTree } from "../../images/pipeline/content-hash.js";
import { dockerBuild } from "../../images/pipeline/docker-build.js";
import { imageExists, imageTags } from "../../images/pipeline/image-set.js";
import { consoleProgress } from "../../images/pipeline/progress.js";
import { repoRoot } from "../../control-plane/src/repo-paths.js";

const recipeDir = join(repoRoot, "test", "fixtures", "remote-engine-image");

export async function ensureSmallEnclosureImage(docker: Docker): Promise<string> {
  const base = imageTags().base;
  const tag = `enclave-test-small:${hashParts(["small-v1", base, hashTree(recipeDir)])}`;
  if (await imageExists(docker, tag)) return tag;
  if (!(await imageExists(docker, base))) throw new Error(`${base} is not built: run \`make images\` first`);
  await dockerBuild(docker, { tag, folders: [[recipeDir, ""]], buildArgs: { BASE: base }, labels: { "org.enclave.test-image": "small" } }, consoleProgress());
  return tag;
}
