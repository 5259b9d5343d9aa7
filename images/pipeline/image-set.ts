// The three images and their content-hash tags:
//   enclave-base     a Debian root filesystem (debootstrap) or a configured registry base
//   enclave-runtime  base + the packages in images/runtime (toolchains, servers, adapters, kernels)
//   enclave-agent    runtime + the agent bundle as the last layer (what a pipeline ships)
// Enclosures in development and tests use enclave-runtime with the bundle bind-mounted read-only,
// so changing agent code rebuilds nothing.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type Docker from "dockerode";
import { agentBundleDir, agentBundleEntry, imagesDir, repoRoot } from "../../control-plane/src/repo-paths.js";
import { baseRecipe, buildBaseImage } from "./base-image.js";
import { hashParts, hashTree, readTree } from "./content-hash.js";
import { dockerBuild } from "./docker-build.js";
import type { Progress } from "./progress.js";
import { runLogged } from "./run-logged.js";

const runtimeDir = join(imagesDir, "runtime");
const agentDir = join(imagesDir, "agent");
const cacheDir = join(repoRoot, ".enclave", "cache");

export interface ImageTags {
  base: string;
  runtime: string;
}

/** Strips comments and blank lines from a one-item-per-line list file. */
export function readList(file: string): string[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .map((l) => l.replace(/#.*/, "").trim())
    .filter(Boolean);
}

export function imageTags(): ImageTags {
  const base = `enclave-base:${hashParts(["base-v1", JSON.stringify(baseRecipe())])}`;
  const runtime = `enclave-runtime:${hashParts(["runtime-v1", base, ...readTree(runtimeDir).flat()])}`;
  return { base, runtime };
}

/** One thing a content tag hashes, as `enclave images inspect` shows it. */
export interface ImageInput {
  name: string;
  /** The value itself (a recipe, another image's tag) or the sha256 of a file's content. */
  value: string;
}

/** What each image's content tag is made from: the same parts imageTags hashes, named. */
export function imageInputs(): Record<"base" | "runtime", ImageInput[]> {
  const tags = imageTags();
  const fileInputs = readTree(runtimeDir).map(([path, content]) => ({
    name: `images/runtime/${path}`,
    value: `sha256:${createHash("sha256").update(content).digest("hex")}`,
  }));
  return {
    base: [{ name: "base recipe", value: JSON.stringify(baseRecipe()) }],
    runtime: [{ name: "base image", value: tags.base }, ...fileInputs],
  };
}

/** What the agent image's tag hashes (see agentImageTag). */
export function agentImageInputs(runtimeTag: string): ImageInput[] {
  return [
    { name: "runtime image", value: runtimeTag },
    { name: "agent bundle (dist/agent)", value: `tree hash ${hashTree(agentBundleDir)}` },
    { name: "images/agent", value: `tree hash ${hashTree(agentDir)}` },
  ];
}

export function agentImageTag(runtimeTag: string): string {
  if (!existsSync(agentBundleEntry)) throw new Error("the agent bundle is not built: run `make build` first");
  return `enclave-agent:${hashParts(["agent-v1", runtimeTag, hashTree(agentBundleDir), hashTree(agentDir)])}`;
}

export async function imageExists(docker: Docker, tag: string): Promise<boolean> {
  try {
    await docker.getImage(tag).inspect();
    return true;
  } catch {
    return false;
  }
}

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
