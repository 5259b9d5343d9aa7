// A container of Enclave's own through which a shared volume is filled and read: made from a tiny
// image FROM scratch that holds one file of ours and nothing at any mount point, never started, its
// mount of the volume marked NoCopy. No image a tenant names ever takes part, so nothing of a tenant
// can reach a volume that other tenants' enclosures mount.
import { Readable } from "node:stream";
import type Docker from "dockerode";
import type { ContainerCreateOptions } from "dockerode";
import { pack as tarPack } from "tar-stream";
import { LIMITS } from "../limits.js";
import { engineBuild } from "./engine-build.js";

export const VOLUME_HOLDER_TAG = "enclave-volume-holder:1";
const HOLDER_LABEL = "org.enclave.volume-holder";

type Mount = NonNullable<NonNullable<ContainerCreateOptions["HostConfig"]>["Mounts"]>[number];

/** A volume mount that never takes content from the image at its mount point (dockerode's type wants
 * fields the engine does not). */
export const NO_COPY = { NoCopy: true } as { NoCopy: boolean } as NonNullable<Mount["VolumeOptions"]>;

const built = new WeakMap<Docker, Promise<void>>();

async function buildHolder(docker: Docker): Promise<void> {
  const pack = tarPack();
  pack.entry({ name: "Dockerfile", mode: 0o644 }, "FROM scratch\nCOPY holder /.enclave-volume-holder\n");
  pack.entry({ name: "holder", mode: 0o444 }, "Enclave's volume holder: never started\n");
  pack.finalize();
  await engineBuild(docker, Readable.from(pack), {
    tag: VOLUME_HOLDER_TAG,
    labels: { [HOLDER_LABEL]: "1" },
    networkMode: "none",
    failureCode: "placement_unavailable",
    timeoutMs: LIMITS.nodeImageBuildTimeoutMs,
    what: "Enclave's volume holder image",
  });
}

function ensureHolderImage(docker: Docker): Promise<void> {
  let mine = built.get(docker);
  if (!mine) {
    const made = docker
      .getImage(VOLUME_HOLDER_TAG)
      .inspect()
      .then(
        () => undefined,
        () => buildHolder(docker),
      );
    made.catch(() => {
      if (built.get(docker) === made) built.delete(docker);
    });
    built.set(docker, (mine = made));
  }
  return mine;
}

/** Runs fn with a never-started container of ours that mounts the volume (writable) at target. */
export async function withVolumeHolder<T>(
  docker: Docker,
  volume: string,
  target: string,
  labels: Record<string, string>,
  fn: (holder: Docker.Container) => Promise<T>,
): Promise<T> {
  await ensureHolderImage(docker);
  const holder = await docker.createContainer({
    Image: VOLUME_HOLDER_TAG,
    // Never started; the engine still wants a command.
    Entrypoint: ["/nonexistent"],
    Labels: labels,
    NetworkDisabled: true,
    HostConfig: { NetworkMode: "none", Mounts: [{ Type: "volume", Source: volume, Target: target, VolumeOptions: NO_COPY }] },
  });
  try {
    return await fn(holder);
  } finally {
    await holder.remove({ force: true }).catch(() => undefined);
  }
}
