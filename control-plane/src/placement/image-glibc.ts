// Which glibc an image carries, read as data through the engine (a container created and never
// started, like image-user.ts): the image's libc.so.6, found at the usual places, its version taken
// from the banner glibc embeds ("… release version 2.36.") or, failing that, from the name of the
// file a link points to (libc-2.17.so) or its highest GLIBC_2.N symbol version. Nothing of the image
// runs. The injected Node is glibc's build: an image without glibc, or with one older than it needs,
// is refused with `image_unusable` rather than failing later inside with the loader's words.
import type Docker from "dockerode";
import { EnclaveError } from "../errors.js";
import { NODE_RUNTIME } from "./node-runtime.js";
import { readVesselEntry, type VesselEntry, withImageVessel } from "./image-vessel.js";

export interface GlibcVersion {
  major: number;
  minor: number;
}

const LIBC_PATHS = [
  "/lib/x86_64-linux-gnu/libc.so.6",
  "/usr/lib/x86_64-linux-gnu/libc.so.6",
  "/lib64/libc.so.6",
  "/usr/lib64/libc.so.6",
  "/lib/libc.so.6",
  "/usr/lib/libc.so.6",
];
/** glibc's libc.so.6 is a few MiB; a file larger than this is not read. */
const MAX_LIBC_BYTES = 32 * 1024 ** 2;
const MAX_LINK_HOPS = 4;

/** The version a libc.so.6's bytes (or a link's target name) state; undefined when none is found. */
export function glibcVersionIn(bytes: Buffer, name = ""): GlibcVersion | undefined {
  const text = bytes.toString("latin1");
  const banner = /GNU C Library[^\n]{0,200}? version (\d+)\.(\d+)/.exec(text);
  if (banner) return { major: Number(banner[1]), minor: Number(banner[2]) };
  const file = /^libc-(\d+)\.(\d+)\.so$/.exec(name);
  if (file) return { major: Number(file[1]), minor: Number(file[2]) };
  let best: GlibcVersion | undefined;
  for (const m of text.matchAll(/GLIBC_(\d+)\.(\d+)(?![.\d])/g)) {
    const v = { major: Number(m[1]), minor: Number(m[2]) };
    if (!best || compareGlibc(v, best) > 0) best = v;
  }
  return best;
}

export function compareGlibc(a: GlibcVersion, b: GlibcVersion): number {
  return a.major - b.major || a.minor - b.minor;
}

export function glibcText(v: GlibcVersion): string {
  return `${v.major}.${v.minor}`;
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

function resolveLink(from: string, target: string): string {
  if (target.startsWith("/")) return target;
  const parts = from.split("/").slice(0, -1);
  for (const p of target.split("/")) {
    if (p === "..") parts.pop();
    else if (p && p !== ".") parts.push(p);
  }
  return parts.join("/") || "/";
}

/** The image's glibc version; undefined when it has no libc.so.6 at the usual places (musl, none). */
export async function readImageGlibc(docker: Docker, image: string): Promise<GlibcVersion | undefined> {
  return withImageVessel(docker, image, async (vessel) => {
    for (const start of LIBC_PATHS) {
      let path = start;
      // An older glibc's libc.so.6 is a link to libc-2.N.so: the name says the version too.
      let named: GlibcVersion | undefined;
      for (let hop = 0; hop <= MAX_LINK_HOPS; hop++) {
        let entry: VesselEntry;
        try {
          entry = await readVesselEntry(vessel, path, MAX_LIBC_BYTES);
        } catch {
          break; // Not there.
        }
        if (entry.kind === "file") return glibcVersionIn(entry.bytes, basename(path)) ?? named;
        if (entry.kind !== "link") break;
        named ??= glibcVersionIn(Buffer.alloc(0), basename(entry.target));
        path = resolveLink(path, entry.target);
      }
      if (named) return named;
    }
    return undefined;
  });
}

/** Per image id (an image's content never changes under its id): its glibc, read once. */
const known = new Map<string, Promise<GlibcVersion | undefined>>();

/** Refuses, with `image_unusable`, an image whose glibc cannot run the injected Node. */
export async function requireNodeGlibc(docker: Docker, imageId: string, image: string): Promise<GlibcVersion> {
  let read = known.get(imageId);
  if (!read) {
    read = readImageGlibc(docker, imageId);
    known.set(imageId, read);
    read.catch(() => known.delete(imageId));
  }
  const found = await read;
  const min = NODE_RUNTIME.minGlibc;
  if (!found) {
    throw new EnclaveError(
      "image_unusable",
      `image \`${image}\` has no glibc (no libc.so.6 under /lib or /usr/lib): the agent runs on Node ${NODE_RUNTIME.version}, the official glibc build, which needs glibc ${glibcText(min)} or later`,
    );
  }
  if (compareGlibc(found, min) < 0) {
    throw new EnclaveError(
      "image_unusable",
      `image \`${image}\` has glibc ${glibcText(found)}; the agent runs on Node ${NODE_RUNTIME.version}, which needs glibc ${glibcText(min)} or later (Debian 10, Ubuntu 18.10, RHEL 8 and newer): rebuild the image on a newer base`,
    );
  }
  return found;
}
