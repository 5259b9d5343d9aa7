// `make images`: builds whichever images are missing, by content hash, and writes each built image's
// record and SBOM (.enclave/images/NAME/TAG/). `--agent` also builds the
// shipped image with the agent baked in; `--print` only prints the tags; `--base` makes sure of the
// base image alone and prints its tag (the fresh-machine check starts from it).
import { connectDocker } from "@enclave/control-plane/placement/docker-connection.js";
import { baseRecipe, imageExists, imageTags } from "@enclave/control-plane/image-set/image-tags.js";
import { buildBaseImage } from "./base-image.js";
import { builtImages, describeImage } from "./image-describe.js";
import { ensureImages } from "./image-set.js";
import { consoleProgress } from "./progress.js";

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes("--help")) {
    console.log("usage: images [--agent] [--print] [--base]\n  builds the enclave images that are missing (tags are content hashes) and their SBOMs");
    return;
  }
  if (args.includes("--print")) {
    console.log(JSON.stringify(imageTags(), null, 2));
    return;
  }
  const docker = await connectDocker();
  const progress = consoleProgress();
  if (args.includes("--base")) {
    const { base } = imageTags();
    if (!(await imageExists(docker, base))) await buildBaseImage(docker, baseRecipe(), base, progress);
    console.log(base);
    return;
  }
  const result = await ensureImages(docker, { agent: args.includes("--agent"), progress });
  // Every built image gets its record and SBOM (made once per image id).
  for (const image of await builtImages(docker)) await describeImage(docker, image, progress);
  const all = [result.base, result.runtime, ...(result.agent ? [result.agent] : [])];
  console.log(result.built.length ? `built: ${result.built.join(", ")}` : `up to date: ${all.join(", ")}`);
}

main().catch((err: unknown) => {
  console.error(`images: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
