// Builds the images whose content tags (control-plane/src/image-set/image-tags.ts) are missing on the
// engine: base, runtime and, when asked, the agent image.
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type Docker from "dockerode";
import { hashParts } from "@enclave/control-plane/image-set/content-hash.js";
import { agentImageTag, baseRecipe, imageExists, type ImageTags, imageTags, readList } from "@enclave/control-plane/image-set/image-tags.js";
import { agentBundleDir, imagesDir, repoRoot } from "@enclave/control-plane/repo-paths.js";
import { buildBaseImage } from "./base-image.js";
import { dockerBuild } from "./docker-build.js";
import type { Progress } from "./progress.js";
import { runLogged } from "./run-logged.js";

const runtimeDir = join(imagesDir, "runtime");
const agentDir = join(imagesDir, "agent");
const cacheDir = join(repoRoot, ".enclave", "cache");

/** Installs the runtime's npm packages on the host (its npm reaches the registry), cached by list. */
async function nodeTools(progress: Progress): Promise<string> {
  const packages = readList(join(runtimeDir, "npm-packages.txt"));
  const dir = join(cacheDir, `node-tools-${hashParts(packages)}`);
  if (existsSync(join(dir, "node_modules", ".package-lock.json"))) return dir;
  mkdirSync(dir, { recursive: true });
  progress.step(`npm install ${packages.join(" ")}`);
  await runLogged("npm", ["install", "--prefix", dir, "--no-audit", "--no-fund", "--ignore-scripts", "--omit=dev", ...packages], progress);
  progress.done("node tools ready");
  return dir;
}

export interface EnsureOptions {
  agent?: boolean;
  progress: Progress;
}

export interface EnsuredImages extends ImageTags {
  agent?: string;
  built: string[];
}

export async function ensureImages(docker: Docker, opts: EnsureOptions): Promise<EnsuredImages> {
  const { progress } = opts;
  const tags = imageTags();
  const built: string[] = [];
  if (!(await imageExists(docker, tags.base))) {
    await buildBaseImage(docker, baseRecipe(), tags.base, progress);
    built.push(tags.base);
  }
  if (!(await imageExists(docker, tags.runtime))) {
    const tools = await nodeTools(progress);
    progress.step(`building ${tags.runtime} (first build takes several minutes)`);
    await dockerBuild(
      docker,
      {
        tag: tags.runtime,
        folders: [
          [runtimeDir, ""],
          [tools, "node-tools"],
        ],
        buildArgs: { BASE: tags.base },
        labels: { "org.enclave.image": "runtime" },
      },
      progress,
    );
    await docker.getImage(tags.runtime).tag({ repo: "enclave-runtime", tag: "latest" });
    progress.done(`built ${tags.runtime}`);
    built.push(tags.runtime);
  }
  let agent: string | undefined;
  if (opts.agent) {
    agent = agentImageTag(tags.runtime);
    if (!(await imageExists(docker, agent))) {
      progress.step(`building ${agent}`);
      await dockerBuild(
        docker,
        {
          tag: agent,
          folders: [
            [agentDir, ""],
            [agentBundleDir, "bundle"],
          ],
          buildArgs: { RUNTIME: tags.runtime },
          labels: { "org.enclave.image": "agent" },
        },
        progress,
      );
      await docker.getImage(agent).tag({ repo: "enclave-agent", tag: "latest" });
      progress.done(`built ${agent}`);
      built.push(agent);
    }
  }
  return { ...tags, agent, built };
}
