// The agent bundle for "mount" delivery, in one volume per bundle content shared read-only by every
// enclosure of this control plane, rather than copied into a fresh volume at each start: a start no
// longer streams the bundle (about 18 MB with the grammars) through the engine, and every enclosure
// maps the same files, so the page cache holds the agent's code once instead of once per enclosure.
// Every enclosure of every tenant runs what this volume holds, so no tenant may ever reach it:
//   - it is filled only from this host's built bundle, as a tar, through a never-started container of
//     Enclave's own holder image (volume-holder.ts), never through an image a tenant names, and every
//     mount of it says NoCopy, so an image with files at the mount point cannot seed it;
//   - a marker written last says the fill is complete (a fill cut short is redone);
//   - before the first enclosure of this process mounts it, its content's digest is compared with the
//     bundle's: a volume that differs (changed on the engine's host, or filled by another program)
//     refuses every start with `agent_bundle_mismatch` until an operator removes it; the volume's
//     creation time is checked at each start, so one removed and made anew is checked again.
// Its files are root's and it is mounted read-only: no enclosure can change what another runs. Its
// only host path is the engine's own volume folder (no path of ours shows inside).
import type Docker from "dockerode";
import type { ContainerCreateOptions } from "dockerode";
import { Readable } from "node:stream";
import { pack as tarPack } from "tar-stream";
import { sleep } from "@enclave/proto/wait.js";
import { EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";
import { archiveDigest, EMPTY_DIGEST, folderDigest } from "./bundle-digest.js";
import { IN_ENCLOSURE } from "../model/enclosure.js";
import { NO_COPY, withVolumeHolder } from "./volume-holder.js";
import { packFolder, putFolder } from "./workspace-transfer.js";

const MARKER = ".enclave-bundle-complete";
const STALE_AFTER_MS = 24 * 3600_000;
export const AGENT_VOLUME_LABEL = "org.enclave.agent-bundle";
const isMarker = (rel: string): boolean => rel === MARKER;

/** The volume's name for a bundle of this digest. */
export function agentVolumeName(digest: string): string {
  return `enclave-agent-bundle-${digest.slice(0, 16)}`;
}

/** The digest of the built bundle under dir (bundle-digest.ts): equal bundles, equal volumes. */
export function bundleDigest(dir: string): Promise<string> {
  return folderDigest(dir, isMarker);
}

function markerArchive(): Readable {
  const p = tarPack();
  p.entry({ name: MARKER, mode: 0o444, uid: 0, gid: 0 }, "complete\n");
  p.finalize();
  return p as unknown as Readable;
}

async function hasMarker(holder: Docker.Container): Promise<boolean> {
  return holder.infoArchive({ path: `${IN_ENCLOSURE.agentDir}/${MARKER}` }).then(
    () => true,
    () => false,
  );
}

async function volumeCreatedAt(docker: Docker, name: string): Promise<string | undefined> {
  try {
    return ((await docker.getVolume(name).inspect()) as { CreatedAt?: string }).CreatedAt ?? "";
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode === 404) return undefined;
    throw err;
  }
}

async function fillInto(holder: Docker.Container, bundleDir: string): Promise<void> {
  await putFolder(holder, packFolder(bundleDir, 0, 0), IN_ENCLOSURE.agentDir);
  await putFolder(holder, markerArchive(), IN_ENCLOSURE.agentDir);
}

/**
 * Makes the volume hold exactly the bundle: filled when new (or left incomplete by a fill that died),
 * then read back and compared with the bundle's digest. Returns the volume's creation time.
 */
async function fillAndCheck(docker: Docker, name: string, digest: string, bundleDir: string, labels: Record<string, string>): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    if ((await volumeCreatedAt(docker, name)) === undefined) await docker.createVolume({ Name: name, Labels: labels });
    const outcome = await withVolumeHolder(docker, name, IN_ENCLOSURE.agentDir, labels, async (holder) => {
      if (!(await hasMarker(holder))) {
        const now = await archiveDigest((await holder.getArchive({ path: IN_ENCLOSURE.agentDir })) as NodeJS.ReadableStream);
        if (now === EMPTY_DIGEST) await fillInto(holder, bundleDir);
        else {
          // Another control plane on this engine may be filling it right now: wait for its marker.
          for (const deadline = Date.now() + LIMITS.nodeVolumeFillWaitMs; !(await hasMarker(holder)) && Date.now() < deadline;)
            await sleep(LIMITS.nodeVolumeFillPollMs);
          if (!(await hasMarker(holder))) return "incomplete" as const;
        }
      }
      const got = await archiveDigest((await holder.getArchive({ path: IN_ENCLOSURE.agentDir })) as NodeJS.ReadableStream, isMarker);
      return got === digest ? ("ok" as const) : ("mismatch" as const);
    });
    if (outcome === "mismatch") {
      throw new EnclaveError(
        "agent_bundle_mismatch",
        `the shared agent volume ${name} does not hold this control plane's agent bundle (its content differs); no enclosure starts with it. ` +
          `An operator removes it (docker volume rm ${name}) once no container uses it, and the next start fills it anew`,
      );
    }
    if (outcome === "ok") return (await volumeCreatedAt(docker, name)) ?? "";
    // Left incomplete by a fill that died: removed (the engine refuses while a container uses it) and filled again.
    if (
      attempt > 0 ||
      !(await docker
        .getVolume(name)
        .remove()
        .then(
          () => true,
          () => false,
        ))
    ) {
      throw new EnclaveError(
        "placement_unavailable",
        `the shared agent volume ${name} is incomplete and in use; remove it (docker volume rm ${name}) and start again`,
      );
    }
  }
}

/** Bundles of earlier builds, a day old or more: removed unless a container uses them (the engine
 * refuses then). Other control planes on the engine may still run an older bundle, hence the age. */
async function removeStale(docker: Docker, current: string): Promise<void> {
  const list = await docker.listVolumes({ filters: { label: [AGENT_VOLUME_LABEL] } }).catch(() => ({ Volumes: [] }));
  for (const v of list.Volumes ?? []) {
    const created = Date.parse((v as { CreatedAt?: string }).CreatedAt ?? "");
    if (v.Name !== current && Number.isFinite(created) && Date.now() - created > STALE_AFTER_MS)
      await docker
        .getVolume(v.Name)
        .remove()
        .catch(() => undefined);
  }
}

/** Per engine and bundle folder: the checked volume's name and creation time. */
const checked = new WeakMap<Docker, Map<string, Promise<{ name: string; createdAt: string }>>>();

/**
 * The checked volume holding bundleDir's bundle (filled on first need). Named by the bundle's digest
 * alone, so every control plane on the engine with the same bundle shares it; checked at each start
 * to be the same volume that was read back (another control plane may have removed it as stale).
 */
export async function agentVolume(docker: Docker, bundleDir: string, owner: string, ownerLabel: string): Promise<string> {
  let byDir = checked.get(docker);
  if (!byDir) checked.set(docker, (byDir = new Map()));
  const known = byDir.get(bundleDir);
  if (known) {
    const v = await known.catch(() => undefined);
    if (v && (await volumeCreatedAt(docker, v.name).catch(() => undefined)) === v.createdAt) return v.name;
    if (byDir.get(bundleDir) === known) byDir.delete(bundleDir);
  }
  let done = byDir.get(bundleDir);
  if (!done) {
    done = bundleDigest(bundleDir).then(async (digest) => {
      const name = agentVolumeName(digest);
      const createdAt = await fillAndCheck(docker, name, digest, bundleDir, { [ownerLabel]: owner, [AGENT_VOLUME_LABEL]: digest.slice(0, 16) });
      await removeStale(docker, name);
      return { name, createdAt };
    });
    const mine = done;
    // A failed fill or check is tried again by the next start.
    done.catch(() => {
      if (byDir?.get(bundleDir) === mine) byDir.delete(bundleDir);
    });
    byDir.set(bundleDir, done);
  }
  return (await done).name;
}

/** The container spec with the agent folder mounted read-only from the shared bundle volume. */
export function withAgentVolume(spec: ContainerCreateOptions, volume: string): ContainerCreateOptions {
  const mounts = (spec.HostConfig?.Mounts ?? []).map((m) =>
    m.Target === IN_ENCLOSURE.agentDir ? { ...m, Source: volume, ReadOnly: true, VolumeOptions: NO_COPY } : m,
  );
  return { ...spec, HostConfig: { ...spec.HostConfig, Mounts: mounts } };
}
