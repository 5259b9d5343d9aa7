// The base image: pulled from a registry when ENCLAVE_BASE_IMAGE names one, otherwise made here with
// debootstrap + docker import, since this machine can pull nothing.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import type Docker from "dockerode";
import type { BaseRecipe } from "@enclave/control-plane/image-set/image-tags.js";
import type { Progress } from "./progress.js";
import { runLogged } from "./run-logged.js";

function follow(docker: Docker, stream: NodeJS.ReadableStream, progress: Progress): Promise<void> {
  return new Promise((resolve, reject) => {
    docker.modem.followProgress(
      stream,
      (err: Error | null) => (err ? reject(err) : resolve()),
      (event: { status?: string; stream?: string; error?: string }) => {
        if (event.error) progress.detail(event.error);
        else if (event.status) progress.detail(event.status);
        else if (event.stream) progress.detail(event.stream);
      },
    );
  });
}

export async function buildBaseImage(docker: Docker, recipe: BaseRecipe, tag: string, progress: Progress): Promise<void> {
  if (recipe.registryImage) {
    progress.step(`pulling base image ${recipe.registryImage}`);
    await follow(docker, await docker.pull(recipe.registryImage), progress);
    const [repo, version] = splitTag(tag);
    await docker.getImage(recipe.registryImage).tag({ repo, tag: version });
    progress.done(`tagged ${tag}`);
    return;
  }
  if (process.getuid?.() !== 0) {
    throw new Error("building the base image with debootstrap needs root; run `make images` as root or set ENCLAVE_BASE_IMAGE");
  }
  if (!existsSync("/usr/sbin/debootstrap")) {
    progress.step("installing debootstrap (Debian package)");
    await runLogged("apt-get", ["update", "-q"], progress);
    await runLogged("apt-get", ["install", "-y", "-q", "debootstrap"], progress);
    progress.done("debootstrap installed");
  }
  const root = mkdtempSync("/var/tmp/enclave-rootfs-");
  try {
    progress.step(`debootstrap --variant=${recipe.variant} ${recipe.suite} (about a minute)`);
    const args = [`--variant=${recipe.variant}`, recipe.suite, root];
    if (recipe.mirror) args.push(recipe.mirror);
    await runLogged("debootstrap", args, progress);
    // Drop downloaded packages and lists (the image build fetches fresh ones); apt wants the folders.
    for (const dir of ["var/cache/apt/archives", "var/lib/apt/lists"]) {
      rmSync(`${root}/${dir}`, { recursive: true, force: true });
      mkdirSync(`${root}/${dir}/partial`, { recursive: true });
    }
    progress.done("root filesystem ready");

    progress.step(`importing ${tag}`);
    const tar = spawn("tar", ["-C", root, "--numeric-owner", "-c", "."], { stdio: ["ignore", "pipe", "inherit"] });
    const [repo, version] = splitTag(tag);
    const tarDone = new Promise<void>((resolve, reject) =>
      tar.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`tar of the root filesystem failed (exit ${code})`)))),
    );
    const stream = await docker.importImage(tar.stdout, { repo, tag: version });
    await Promise.all([follow(docker, stream, progress), tarDone]);
    progress.done(`imported ${tag}`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export function splitTag(tag: string): [string, string] {
  const i = tag.lastIndexOf(":");
  return [tag.slice(0, i), tag.slice(i + 1)];
}
