// What the pipeline knows about each built image, kept beside the build outputs in
// .enclave/images/NAME/TAG/: record.json (inputs, image id, size, tools, where it was pushed and by
// which digest) and sbom.cdx.json (its CycloneDX SBOM). Files are written whole (temp file, rename),
// so a reader never sees half of one.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../repo-paths.js";
import type { ImageInput } from "./image-tags.js";

export const imageRecordsDir = process.env.ENCLAVE_IMAGE_RECORDS_DIR || join(repoRoot, ".enclave", "images");

/** Where one image was pushed: the manifest digest the registry answered, and its SBOM's. */
export interface PushRecord {
  /** registry/name:tag as pushed. */
  reference: string;
  /** sha256:… of the image manifest, what a pull by digest names. */
  digest: string;
  /** registry/name:TAG.sbom, the tiny image that carries the SBOM. */
  sbomReference: string;
  sbomDigest: string;
}

/** The tools an image carries, as found inside it. */
export interface ImageTools {
  node?: string;
  python?: string;
  /** Language server id → the binary's path inside the image. */
  languageServers: Record<string, string>;
  /** Debug adapter id → the argv that resolved. */
  debugAdapters: Record<string, string>;
}

/** Bumped when what a record or SBOM holds changes, so records of an older pipeline are made again. */
export const RECORD_FORMAT = 1;

export interface ImageRecord {
  format: number;
  name: string;
  tag: string;
  /** The engine's image id (sha256 of its config): the same for the same local image. */
  imageId: string;
  sizeBytes: number;
  inputs: ImageInput[];
  tools: ImageTools;
  /** Keyed by registry host:port. */
  pushed: Record<string, PushRecord>;
}

export function splitReference(ref: string): { name: string; tag: string } {
  const i = ref.lastIndexOf(":");
  if (i <= 0 || ref.includes("/")) throw new Error(`\`${ref}\` is not a local NAME:TAG image reference`);
  return { name: ref.slice(0, i), tag: ref.slice(i + 1) };
}

export function recordDir(ref: string, root = imageRecordsDir): string {
  const { name, tag } = splitReference(ref);
  if (!/^[a-z0-9][a-z0-9._-]*$/.test(name) || !/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(tag)) throw new Error(`\`${ref}\` is not a plain image name and tag`);
  return join(root, name, tag);
}

export function writeWhole(path: string, text: string): void {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, path);
}

export function readRecord(ref: string, root = imageRecordsDir): ImageRecord | undefined {
  const file = join(recordDir(ref, root), "record.json");
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, "utf8")) as ImageRecord;
}

export function writeRecord(record: ImageRecord, root = imageRecordsDir): string {
  const dir = recordDir(`${record.name}:${record.tag}`, root);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "record.json");
  writeWhole(file, `${JSON.stringify(record, null, 2)}\n`);
  return file;
}

export function sbomPath(ref: string, root = imageRecordsDir): string {
  return join(recordDir(ref, root), "sbom.cdx.json");
}

/**
 * The reference an engine should run when images come from a registry: registry/name@sha256:… as
 * recorded by the last push of this image there; undefined when it was never pushed there. A digest
 * names exactly the bytes that were built and verified, where a tag could be moved.
 */
export function pinnedReference(localRef: string, registry: string, root = imageRecordsDir): string | undefined {
  const pushed = readRecord(localRef, root)?.pushed[registry];
  if (!pushed) return undefined;
  return `${registry}/${splitReference(localRef).name}@${pushed.digest}`;
}
