// The SBOM step: for each built image, its record (inputs, id, size, tools) and its CycloneDX SBOM,
// made once per image id by reading the built image (the build itself is not touched, so adding
// this step changed no image).
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import type Docker from "dockerode";
import { AGENT_VERSION } from "@enclave/proto/version.js";
import { agentBundleEntry } from "@enclave/control-plane/repo-paths.js";
import { agentImageInputs, agentImageTag, type ImageInput, imageExists, imageInputs, imageTags } from "@enclave/control-plane/image-set/image-tags.js";
import {
  type ImageRecord,
  imageRecordsDir,
  RECORD_FORMAT,
  readRecord,
  recordDir,
  sbomPath,
  splitReference,
  writeRecord,
  writeWhole,
} from "@enclave/control-plane/image-set/image-records.js";
import { readInventory } from "./inventory.js";
import type { Progress } from "./progress.js";
import { buildSbom, type CycloneDxBom } from "./sbom.js";

export interface BuiltImage {
  ref: string;
  inputs: ImageInput[];
}

/** The images `make images` builds that exist here, base first (the agent image when built). */
export async function builtImages(docker: Docker): Promise<BuiltImage[]> {
  const tags = imageTags();
  const inputs = imageInputs();
  const all: BuiltImage[] = [
    { ref: tags.base, inputs: inputs.base },
    { ref: tags.runtime, inputs: inputs.runtime },
  ];
  // The shipped image with the agent baked in, when `make images --agent` built it for this bundle.
  if (existsSync(agentBundleEntry)) {
    const agent = agentImageTag(tags.runtime);
    all.push({ ref: agent, inputs: agentImageInputs(tags.runtime) });
  }
  const out: BuiltImage[] = [];
  for (const image of all) if (await imageExists(docker, image.ref)) out.push(image);
  return out;
}

/** Picks the built images a command names (enclave-runtime, or NAME:TAG), all of them for none. */
export function selectImages(all: BuiltImage[], names: string[]): BuiltImage[] {
  if (!names.length) return all;
  return names.map((n) => {
    const found = all.find((i) => i.ref === n || splitReference(i.ref).name === n);
    if (!found) throw new Error(`no built image \`${n}\`; built here: ${all.map((i) => i.ref).join(", ") || "none (run `make images`)"}`);
    return found;
  });
}

export interface Described {
  record: ImageRecord;
  sbom: CycloneDxBom;
  /** Whether this call made them (false: they were already recorded for this image id). */
  made: boolean;
}

export async function describeImage(docker: Docker, image: BuiltImage, progress: Progress, root = imageRecordsDir): Promise<Described> {
  const info = await docker.getImage(image.ref).inspect();
  const known = readRecord(image.ref, root);
  const sbomFile = sbomPath(image.ref, root);
  if (known?.format === RECORD_FORMAT && known.imageId === info.Id && existsSync(sbomFile)) {
    return { record: known, sbom: JSON.parse(readFileSync(sbomFile, "utf8")) as CycloneDxBom, made: false };
  }
  progress.step(`SBOM of ${image.ref}`);
  const inventory = await readInventory(docker, image.ref);
  const { name, tag } = splitReference(image.ref);
  const sbom = buildSbom({ name, tag, imageId: info.Id }, inventory, AGENT_VERSION);
  mkdirSync(recordDir(image.ref, root), { recursive: true });
  writeWhole(sbomFile, `${JSON.stringify(sbom, null, 2)}\n`);
  const record: ImageRecord = {
    format: RECORD_FORMAT,
    name,
    tag,
    imageId: info.Id,
    sizeBytes: info.Size,
    inputs: image.inputs,
    tools: inventory.tools,
    // Pushes of an older image under this tag named other bytes: they are not this image's.
    pushed: known?.imageId === info.Id ? known.pushed : {},
  };
  writeRecord(record, root);
  progress.done(`${inventory.debs.length} Debian and ${inventory.npm.length} npm packages → ${sbomFile}`);
  return { record, sbom, made: true };
}
