// The agent bundle for "mount" delivery, in one volume per bundle content shared read-only by every
// enclosure of this control plane, rather than copied into a fresh volume at each start: a start no
// longer streams the bundle (about 18 MB with the grammars) through the engine, and every enclosure
// maps the same files, so the page cache holds the agent's code once instead of once per enclosure.
// The volume is filled once through a container that is never started, and a marker written last
// says it is complete (a fill cut short is finished by the next one). Its files are root's and it is
// mounted read-only: no enclosure can change what another runs. Like the anonymous volume before
// it, its only host path is the engine's own volume folder (no path of ours shows inside).
import { createHash } from "node:crypto";
import { promises as fsp } from "node:fs";
import { join } from "node:path";
import type Docker from "dockerode";
import type { ContainerCreateOptions } from "dockerode";
import { Readable } from "node:stream";
import { pack as tarPack } from "tar-stream";
import { IN_ENCLOSURE } from "./enclosure-settings.js";
import { packFolder, putFolder } from "./workspace-transfer.js";

const MARKER = ".enclave-bundle-complete";
const STALE_AFTER_MS = 24 * 3600_000;
export const AGENT_VOLUME_LABEL = "org.enclave.agent-bundle";

/** A digest of every file's path and bytes under dir: equal bundles, equal volumes. */
async function bundleDigest(dir: string): Promise<string> {
  const h = createHash("sha256");
  const walk = async (abs: string, rel: string): Promise<void> => {
    for (const name of (await fsp.readdir(abs)).sort()) {
      const st = await fsp.lstat(join(abs, name));
      const r = `${rel}/${name}`;
      if (st.isDirectory()) await walk(join(abs, name), r);
      else if (st.isFile()) h.update(`${r}\0${st.mode & 0o777}\0`).update(await fsp.readFile(join(abs, name)));
    }
  };
  await walk(dir, "");
  return h.digest("hex").slice(0, 16);
}

function markerArchive(): Readable {
  const p = tarPack();
  p.entry({ name: MARKER, mode: 0o444, uid: 0, gid: 0 }, "complete\n");
  p.finalize();
  return p as unknown as Readable;
}

async function fill(docker: Docker, name: string, image: string, bundleDir: string, labels: Record<string, string>): Promise<void> {
  try {
    await docker.createVolume({ Name: name, Labels: labels });
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode !== 409) throw err;
  }
  const filler = await docker.createContainer({
    Image: image,
    // Never started; the engine still wants a command.
    Entrypoint: ["/bin/true"],
    Labels: labels,
    NetworkDisabled: true,
    HostConfig: { NetworkMode: "none", Mounts: [{ Type: "volume", Source: name, Target: IN_ENCLOSURE.agentDir }] },
  });
  try {
    const complete = await filler.infoArchive({ path: `${IN_ENCLOSURE.agentDir}/${MARKER}` }).then(
      () => true,
      () => false,
    );
    if (complete) return;
    await putFolder(filler, packFolder(bundleDir, 0, 0), IN_ENCLOSURE.agentDir);
    await putFolder(filler, markerArchive(), IN_ENCLOSURE.agentDir);
  } finally {
    await filler.remove({ force: true }).catch(() => undefined);
  }
}

/** Bundles of earlier builds, a day old or more: removed unless a container uses them (the engine
 * refuses then). Other control planes on the engine may still run an older bundle, hence the age. */
async function removeStale(docker: Docker, current: string): Promise<void> {
  const list = await docker.listVolumes({ filters: { label: [AGENT_VOLUME_LABEL] } }).catch(() => ({ Volumes: [] }));
  for (const v of list.Volumes ?? []) {
    const created = Date.parse((v as { CreatedAt?: string }).CreatedAt ?? "");
    if (v.Name !== current && Number.isFinite(created) && Date.now() - created > STALE_AFTER_MS) await docker.getVolume(v.Name).remove().catch(() => undefined);
  }
}

/** Per engine and bundle folder: the volume's name once filled. */
const filled = new WeakMap<Docker, Map<string, Promise<string>>>();

/**
 * The filled volume holding bundleDir's bundle (filled through `image` on first need). Named by the
 * bundle's digest alone, so every control plane on the engine with the same bundle shares it; checked
 * to exist at each start (another control plane may have removed it as stale).
 */
export async function agentVolume(docker: Docker, bundleDir: string, image: string, owner: string, ownerLabel: string): Promise<string> {
  let byDir = filled.get(docker);
  if (!byDir) filled.set(docker, (byDir = new Map()));
  const known = byDir.get(bundleDir);
  if (known) {
    const name = await known.catch(() => "");
    if (name && (await docker.getVolume(name).inspect().then(() => true, () => false))) return name;
    if (byDir.get(bundleDir) === known) byDir.delete(bundleDir);
  }
  let done = byDir.get(bundleDir);
  if (!done) {
    done = bundleDigest(bundleDir).then(async (digest) => {
      const name = `enclave-agent-bundle-${digest}`;
      await fill(docker, name, image, bundleDir, { [ownerLabel]: owner, [AGENT_VOLUME_LABEL]: digest });
      await removeStale(docker, name);
      return name;
    });
    const mine = done;
    // A failed fill is tried again by the next start.
    done.catch(() => {
      if (byDir?.get(bundleDir) === mine) byDir.delete(bundleDir);
    });
    byDir.set(bundleDir, done);
  }
  return done;
}

/** The container spec with the agent folder mounted read-only from the shared bundle volume. */
export function withAgentVolume(spec: ContainerCreateOptions, volume: string): ContainerCreateOptions {
  const mounts = (spec.HostConfig?.Mounts ?? []).map((m) => (m.Target === IN_ENCLOSURE.agentDir ? { ...m, Source: volume, ReadOnly: true } : m));
  return { ...spec, HostConfig: { ...spec.HostConfig, Mounts: mounts } };
}
