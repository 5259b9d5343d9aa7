// Test images of "a user's own image", built here from local bases only (nothing can be pulled):
// test/fixtures/byo-images/NAME/Dockerfile with BASE set to enclave-base (the folder is the build
// context). Tagged by the content of the folder's files and the base, so a run builds each one only
// when it changed (and the engine's layer cache makes a rebuild cheap). They are left on the engine
// for the next run, like Enclave's own images.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import Docker from "dockerode";
import { imageTags } from "@enclave/control-plane/image-set/image-tags.js";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";

export type ByoImage = "python-debian" | "scratch-glibc" | "planted-bundle" | "lying-head" | "dart-sdk-stand-in";

const BUILD_TIMEOUT_MS = 15 * 60_000;

export async function byoImage(name: ByoImage): Promise<string> {
  const dir = join(repoRoot, "test", "fixtures", "byo-images", name);
  const base = imageTags().base;
  const h = createHash("sha256")
    .update(base)
    .update(readFileSync(join(dir, "Dockerfile")));
  // Files the Dockerfile copies, by name and content (a folder with only a Dockerfile keeps its tag).
  for (const f of readdirSync(dir).sort()) if (f !== "Dockerfile") h.update(f).update(readFileSync(join(dir, f)));
  const hash = h.digest("hex").slice(0, 12);
  const tag = `enclave-test-byo-${name}:${hash}`;
  const docker = new Docker();
  try {
    await docker.getImage(tag).inspect();
    return tag;
  } catch {
    // Not built yet.
  }
  await promisify(execFile)("docker", ["build", "-q", "-t", tag, "--build-arg", `BASE=${base}`, dir], { timeout: BUILD_TIMEOUT_MS, maxBuffer: 16 * 1024 ** 2 });
  return tag;
}
