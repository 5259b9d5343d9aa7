// The three images' content-hash tags (what placement looks for on an engine; images/ builds them):
//   enclave-base     a Debian root filesystem (debootstrap) or a configured registry base
//   enclave-runtime  base + the packages in images/runtime (toolchains, servers, adapters, kernels)
//   enclave-agent    runtime + the agent bundle as the last layer (what a pipeline ships)
// Enclosures in development and tests use enclave-runtime with the bundle bind-mounted read-only,
// so changing agent code rebuilds nothing.
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type Docker from "dockerode";
import { agentBundleDir, agentBundleEntry, imagesDir } from "../repo-paths.js";
import { hostDebianMirror } from "./apt-mirror.js";
import { hashParts, hashTree, readTree } from "./content-hash.js";

const runtimeDir = join(imagesDir, "runtime");
const agentDir = join(imagesDir, "agent");

export interface BaseRecipe {
  /** A registry image to use as the base instead of debootstrap. */
  registryImage?: string;
  suite: string;
  variant: string;
  mirror?: string;
}

export function baseRecipe(): BaseRecipe {
  const registryImage = process.env.ENCLAVE_BASE_IMAGE?.trim();
  if (registryImage) return { registryImage, suite: "", variant: "" };
  return { suite: "bookworm", variant: "minbase", mirror: hostDebianMirror() };
}

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
