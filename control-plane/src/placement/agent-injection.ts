// Any image as an enclosure: what the agent needs and an image of the user's may lack is brought in
// from outside, read-only. The agent bundle arrives as it does for Enclave's own image (copied into a
// volume of the container's own before it starts, its files root's). The Node it runs on is the
// official build pinned in node-runtime.ts, held in one named volume per Node version, mounted
// read-only into every enclosure that needs it:
//   - a named volume rather than a bind mount of a host folder, because a bind mount shows the host
//     path inside (/proc/self/mountinfo) and only exists on the engine's own host, while a volume is
//     made through the engine's API and so works the same on a remote engine;
//   - populated once by the engine itself, copying the content of a tiny image made FROM scratch
//     whose only layer is the npm tarball (checked against the pinned integrity first) unpacked by
//     the engine's ADD; no enclosure ever mounts it writable, and the image a user names never takes
//     part in filling it (every mount of it says NoCopy, so an image that ships files at the mount
//     point cannot seed the shared volume);
//   - the same mount point in every image, found through ENCLAVE_NODE, so an image's own `node` (any
//     version) stays the one its PATH finds and the agent still runs on the Node it is built for.
// Nothing about the hardening depends on the image: the container spec is the same one, with one
// read-only mount and two environment entries more.
import type { IncomingMessage } from "node:http";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createReadStream, statSync } from "node:fs";
import type Docker from "dockerode";
import type { ContainerCreateOptions } from "dockerode";
import { pack as tarPack } from "tar-stream";
import { agentImageTag, imageTags } from "../image-set/image-tags.js";
import { sleep } from "@enclave/proto/wait.js";
import { EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";
import { repoRoot } from "../repo-paths.js";
import { engineBuild } from "./engine-build.js";
import { noSuchImage } from "./image-access.js";
import { ensureNodeTarball, NODE_RUNTIME, nodeTarballName } from "./node-runtime.js";
import { requireNodeGlibc } from "./image-glibc.js";
import { NO_COPY } from "./volume-holder.js";

/** Where the injected Node lives inside an enclosure. */
export const INJECTED_NODE = {
  dir: "/opt/enclave/node",
  bin: `/opt/enclave/node/${NODE_RUNTIME.binary.replace(/\/node$/, "")}`,
  node: `/opt/enclave/node/${NODE_RUNTIME.binary}`,
} as const;

/** The npm tarball is fetched into .enclave/cache (never into the workspace or the data folder). */
export const NODE_CACHE_DIR = join(repoRoot, ".enclave", "cache", "node-runtime");

/** Debian's default PATH, for an image that names none. */
const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

type Mount = NonNullable<NonNullable<ContainerCreateOptions["HostConfig"]>["Mounts"]>[number];

export interface ImageFacts {
  id: string;
  /** The reference it was asked by, for errors. */
  name?: string;
  /** The image's own environment (KEY=VALUE). */
  env: string[];
  /** The image's USER, as written ("" when none). */
  user: string;
  /** The image's VOLUME paths: each would be an anonymous volume the engine bounds by nothing. */
  volumes: string[];
}

export interface Injection {
  env: string[];
  mounts: Mount[];
  /** An image's own HEALTHCHECK would have the engine run its command in the enclosure on a timer. */
  noHealthcheck?: boolean;
  /** What was injected, for the record and the log. */
  summary: string;
}

/**
 * What the engine says of an image, refused with `image_unusable` when it is not here or is not a
 * Linux x86-64 image (the injected Node is that build).
 */
export async function imageFacts(docker: Docker, image: string): Promise<ImageFacts> {
  let info: Docker.ImageInspectInfo;
  try {
    info = await docker.getImage(image).inspect();
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) throw noSuchImage(image);
    throw new EnclaveError("placement_unavailable", `the Docker engine did not describe image \`${image}\`: ${(err as Error).message}`);
  }
  if (info.Os !== "linux" || info.Architecture !== "amd64") {
    throw new EnclaveError(
      "image_unusable",
      `image \`${image}\` is ${info.Os}/${info.Architecture}; enclosures run linux/amd64 images (the agent's Node is that build)`,
    );
  }
  return { id: info.Id, name: image, env: info.Config?.Env ?? [], user: info.Config?.User ?? "", volumes: Object.keys(info.Config?.Volumes ?? {}) };
}

/** Whether the image is one of Enclave's own (runtime or agent image), which carry their Node. */
export async function isEnclaveImage(docker: Docker, imageId: string): Promise<boolean> {
  const idOf = async (tag: string): Promise<string | undefined> => {
    try {
      return (await docker.getImage(tag).inspect()).Id;
    } catch {
      return undefined; // Not built here.
    }
  };
  const runtime = imageTags().runtime;
  if ((await idOf(runtime)) === imageId) return true;
  let agent: string;
  try {
    // Hashes the agent bundle: asked only when the image is not the runtime image.
    agent = agentImageTag(runtime);
  } catch {
    return false; // No agent bundle built: then no agent image either.
  }
  return (await idOf(agent)) === imageId;
}

function nodeKey(): string {
  // The integrity is base64; a name keeps only its letters and digits.
  return `${NODE_RUNTIME.version}-${NODE_RUNTIME.integrity
    .slice("sha512-".length)
    .replace(/[^A-Za-z0-9]/g, "")
    .slice(0, 12)
    .toLowerCase()}`;
}

export function nodeVolumeName(): string {
  return `enclave-node-${nodeKey()}`;
}

export function nodeImageTag(): string {
  return `enclave-node:${nodeKey()}`;
}

const NODE_LABEL = "org.enclave.node-runtime";

/** The tiny image: FROM scratch, the pinned tarball unpacked by the engine's ADD. */
async function buildNodeImage(docker: Docker, tarball: string): Promise<void> {
  const pack = tarPack();
  const dockerfile = Buffer.from(`FROM scratch\nADD ${nodeTarballName()} ${INJECTED_NODE.dir}/\n`);
  void (async () => {
    try {
      await new Promise<void>((ok, fail) => pack.entry({ name: "Dockerfile", size: dockerfile.length, mode: 0o644 }, dockerfile, (e) => (e ? fail(e) : ok())));
      const sink = pack.entry({ name: nodeTarballName(), size: statSync(tarball).size, mode: 0o644 });
      await pipeline(createReadStream(tarball), sink as unknown as NodeJS.WritableStream);
      pack.finalize();
    } catch (err) {
      pack.destroy(err as Error);
    }
  })();
  await engineBuild(docker, Readable.from(pack), {
    tag: nodeImageTag(),
    labels: { [NODE_LABEL]: NODE_RUNTIME.version },
    networkMode: "none",
    failureCode: "placement_unavailable",
    timeoutMs: LIMITS.nodeImageBuildTimeoutMs,
    what: `the Node ${NODE_RUNTIME.version} image`,
  });
}

/** The node binary's size as the engine sees it through a container that mounts the volume. */
async function injectedNodeSize(vessel: Docker.Container): Promise<number> {
  try {
    const res = (await vessel.infoArchive({ path: INJECTED_NODE.node })) as IncomingMessage;
    res.resume();
    const stat = res.headers["x-docker-container-path-stat"];
    if (typeof stat !== "string") return -1;
    return Number((JSON.parse(Buffer.from(stat, "base64").toString("utf8")) as { size?: number }).size ?? -1);
  } catch {
    return -1;
  }
}

const filling = new Map<string, Promise<void>>();

/**
 * The named volume holding the pinned Node, filled by the engine from the Node image the first time
 * a container mounts it empty; checked (the binary there, at its size) once per process.
 */
function ensureNodeVolume(docker: Docker, log: (line: string) => void): Promise<void> {
  const name = nodeVolumeName();
  let p = filling.get(name);
  if (!p) {
    p = fillNodeVolume(docker, name, log);
    filling.set(name, p);
    p.catch(() => filling.delete(name));
  }
  return p;
}

async function fillNodeVolume(docker: Docker, name: string, log: (line: string) => void): Promise<void> {
  const tag = nodeImageTag();
  try {
    await docker.getImage(tag).inspect();
  } catch {
    log(`enclave: fetching Node ${NODE_RUNTIME.version} (${NODE_RUNTIME.package}) for images without one`);
    await buildNodeImage(docker, await ensureNodeTarball(NODE_CACHE_DIR));
  }
  await docker.createVolume({ Name: name, Labels: { [NODE_LABEL]: NODE_RUNTIME.version } });
  // Creating a container (never started) that mounts the empty volume where the Node image has its
  // content makes the engine copy that content in; a volume already filled is left as it is.
  const filler = await docker.createContainer({
    Image: tag,
    Entrypoint: [INJECTED_NODE.node],
    NetworkDisabled: true,
    Labels: { [NODE_LABEL]: NODE_RUNTIME.version },
    HostConfig: { NetworkMode: "none", Mounts: [{ Type: "volume", Source: name, Target: INJECTED_NODE.dir }] },
  });
  try {
    const inImage = await docker.createContainer({ Image: tag, Entrypoint: [INJECTED_NODE.node], NetworkDisabled: true, HostConfig: { NetworkMode: "none" } });
    let imageSize: number;
    try {
      imageSize = await injectedNodeSize(inImage);
    } finally {
      await inImage.remove({ force: true }).catch(() => undefined);
    }
    // Another control plane on the same engine may be filling it at this moment (the engine copies
    // only into an empty volume): a short wait for the binary to reach its size before calling it broken.
    let inVolume = await injectedNodeSize(filler);
    for (const deadline = Date.now() + LIMITS.nodeVolumeFillWaitMs; imageSize > 0 && inVolume !== imageSize && Date.now() < deadline;) {
      await sleep(LIMITS.nodeVolumeFillPollMs);
      inVolume = await injectedNodeSize(filler);
    }
    if (imageSize <= 0 || inVolume !== imageSize) {
      throw new EnclaveError(
        "placement_unavailable",
        `the Node volume ${name} is incomplete (node is ${inVolume} bytes there, ${imageSize} in ${tag}); remove it (docker volume rm ${name}) and start again`,
      );
    }
  } finally {
    await filler.remove({ force: true }).catch(() => undefined);
  }
}

/** PATH of the image, with the injected Node's folder last: the image's own tools come first. */
function pathWith(imageEnv: readonly string[], extra: string): string {
  const path = imageEnv.find((e) => e.startsWith("PATH="))?.slice("PATH=".length) || DEFAULT_PATH;
  return `${path}:${extra}`;
}

/** The Node injection for an image that is not Enclave's own. */
export async function nodeInjection(docker: Docker, facts: ImageFacts, log: (line: string) => void): Promise<Injection> {
  // A user's image (Enclave's own are Debian bookworm's, glibc 2.36): its glibc must run the build.
  if (facts.id) await requireNodeGlibc(docker, facts.id, facts.name ?? facts.id);
  await ensureNodeVolume(docker, log);
  return {
    env: [`ENCLAVE_NODE=${INJECTED_NODE.node}`, `PATH=${pathWith(facts.env, INJECTED_NODE.bin)}`],
    mounts: [{ Type: "volume", Source: nodeVolumeName(), Target: INJECTED_NODE.dir, ReadOnly: true, VolumeOptions: NO_COPY }],
    noHealthcheck: true,
    summary: `Node ${NODE_RUNTIME.version} injected read-only at ${INJECTED_NODE.dir}`,
  };
}

/**
 * The container spec with an injection's mounts and environment added; a later entry replaces an
 * earlier one of the same name (the engine would keep both, and programs read the first).
 */
export function withInjection(spec: ContainerCreateOptions, inj: Pick<Injection, "env" | "mounts" | "noHealthcheck">): ContainerCreateOptions {
  const hc = spec.HostConfig ?? {};
  const env = new Map<string, string>();
  for (const e of [...(spec.Env ?? []), ...inj.env]) {
    const key = e.slice(0, Math.max(0, e.indexOf("=")));
    env.delete(key);
    env.set(key, e);
  }
  return {
    ...spec,
    Env: [...env.values()],
    ...(inj.noHealthcheck ? { Healthcheck: { Test: ["NONE"] } } : {}),
    HostConfig: { ...hc, Mounts: [...(hc.Mounts ?? []), ...inj.mounts] },
  };
}
