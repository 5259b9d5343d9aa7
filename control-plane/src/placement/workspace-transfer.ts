// Moving a workspace between the host and an enclosure whose files the host cannot see (copy mode):
// the host folder as a tar stream in, and the enclosure's /workspace mirrored back out through the
// careful unpacker (archive-unpack.ts).
import { constants, createReadStream, promises as fsp } from "node:fs";
import { basename, dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import type { Readable } from "node:stream";
import type Docker from "dockerode";
import { type Header, pack as tarPack } from "tar-stream";
import { ArchiveLimitError, type SkippedEntry, unpackTar } from "../fs/archive-unpack.js";
import { atFd, openDirNoFollow } from "../fs/fd-path.js";
import { moveTreeInto } from "../fs/tree-move.js";
import { EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";
import { sleep } from "@enclave/proto/wait.js";
import { IN_ENCLOSURE } from "../model/enclosure.js";

type Headers = Partial<Header> & { name: string };

/** The largest id tar-stream's ustar header holds (six octal digits). */
const USTAR_MAX_ID = 0o777777;

/**
 * The folder's contents as a tar stream, every entry owned by uid:gid. Each folder is walked through
 * a descriptor opened without following links, and each entry is looked up in the folder held open
 * (fd-path.ts), so a folder swapped for a link meanwhile is neither listed nor read through; file
 * contents stream from a descriptor opened without following links. An entry named in `replace`
 * (a path relative to the folder) is packed as the given bytes instead, whatever is on disk by then.
 */
export function packFolder(dir: string, uid: number, gid: number, replace: ReadonlyMap<string, Buffer> = new Map()): Readable {
  const pack = tarPack();
  // The ustar header holds ids up to 0o777777 only (tar-stream writes a larger one as that): an
  // enclosure's uid from the reserved range goes in a pax record, which the engine reads.
  const ids = uid > USTAR_MAX_ID || gid > USTAR_MAX_ID ? { uid, gid, pax: { uid: String(uid), gid: String(gid) } } : { uid, gid };
  const add = (header: Headers, body?: Buffer): Promise<void> =>
    new Promise((ok, fail) => {
      const done = (err?: Error | null): void => (err ? fail(err) : ok());
      if (body) pack.entry(header, body, done);
      else pack.entry(header, done);
    });
  const addFile = async (at: string, header: Headers): Promise<void> => {
    const fh = await fsp.open(at, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      const st = await fh.stat();
      if (!st.isFile()) return;
      const sink = pack.entry({ ...header, size: st.size });
      if (st.size === 0) {
        sink.end(undefined);
        return;
      }
      await pipeline(createReadStream("", { fd: fh.fd, autoClose: false, start: 0, end: st.size - 1 }), sink as unknown as NodeJS.WritableStream);
    } finally {
      await fh.close();
    }
  };
  const walk = async (dirFd: number, rel: string): Promise<void> => {
    for (const name of (await fsp.readdir(atFd(dirFd))).sort()) {
      const at = atFd(dirFd, name);
      const childRel = rel ? `${rel}/${name}` : name;
      const st = await fsp.lstat(at);
      const common = { name: childRel, mode: st.mode & 0o777, mtime: st.mtime, ...ids };
      const replaced = replace.get(childRel);
      if (replaced) await add({ ...common, type: "file", size: replaced.length }, replaced);
      else if (st.isSymbolicLink()) await add({ ...common, type: "symlink", linkname: await fsp.readlink(at) });
      else if (st.isDirectory()) {
        // Swapped for a link (or gone) since it was listed: left out, never followed.
        const sub = await openDirNoFollow(at).catch(() => undefined);
        if (!sub) continue;
        try {
          await add({ ...common, name: `${childRel}/`, type: "directory" });
          await walk(sub.fd, childRel);
        } finally {
          await sub.close();
        }
      } else if (st.isFile()) await addFile(at, { ...common, type: "file" });
    }
  };
  // The top folder as the caller names it (it may itself be a /proc/self/fd link).
  fsp
    .open(dir, constants.O_RDONLY | constants.O_DIRECTORY)
    .then(async (top) => {
      try {
        await walk(top.fd, "");
      } finally {
        await top.close();
      }
    })
    .then(
      () => pack.finalize(),
      (err: unknown) => pack.destroy(err as Error),
    );
  return pack as unknown as Readable;
}

export interface MirrorLimits {
  /** Bytes written at most (holes not counted). */
  maxBytes: number;
  /** Bytes the archive may state at most (holes counted). */
  maxApparentBytes?: number;
  maxEntries: number;
  /** Named in the error when a limit is passed: where the limit is set. */
  setting: string;
}

/** A folder to unpack into, on the workspace's filesystem (so moving into place is a rename). */
async function stagingFor(dir: string): Promise<{ staging: string; inside: boolean }> {
  const parent = dirname(dir);
  const [p, d] = await Promise.all([fsp.stat(parent), fsp.stat(dir)]);
  if (p.dev === d.dev) return { staging: await fsp.mkdtemp(join(parent, `.${basename(dir)}.sync-`)), inside: false };
  return { staging: await fsp.mkdtemp(join(dir, ".enclave-sync-")), inside: true };
}

/**
 * Makes `dir` hold exactly what the archive holds (entries named below `stripPrefix`), in place: the
 * folder itself is kept, since agents use it. Unpacks in full first, so a refused or failed archive
 * changes nothing. Returns what was not brought back (links leaving the workspace, special files).
 */
export interface NotCopied {
  /** The first entries not brought back, and how many there were in all. */
  skipped: SkippedEntry[];
  skippedTotal: number;
}

export async function mirrorArchiveInto(dir: string, archive: Readable, stripPrefix: string, limits: MirrorLimits): Promise<NotCopied> {
  const real = await fsp.realpath(dir);
  const top = await fsp.lstat(real);
  const { staging, inside } = await stagingFor(real);
  try {
    const report = await unpackTar(archive, staging, {
      depthBelowRoot: 0,
      stripPrefix,
      maxBytes: limits.maxBytes,
      maxApparentBytes: limits.maxApparentBytes,
      maxEntries: limits.maxEntries,
      owner: { uid: top.uid, gid: top.gid },
    }).catch((err: unknown) => {
      if (err instanceof ArchiveLimitError) {
        const what =
          err.limit === "bytes"
            ? `${err.max} bytes of file content (blocks of zeros not counted), set by ${limits.setting}`
            : err.limit === "apparent"
              ? `${err.max} bytes of file content counting holes (LIMITS.copyBackMaxApparentBytes)`
              : `${err.max} entries`;
        throw new EnclaveError("too_large", `the enclosure's /workspace holds more than the copy-back limit of ${what}; nothing was copied back`);
      }
      throw err;
    });
    await moveTreeInto(staging, real, { mirror: true, keep: inside ? new Set([basename(staging)]) : undefined });
    return { skipped: report.skipped, skippedTotal: report.skippedTotal };
  } finally {
    await fsp.rm(staging, { recursive: true, force: true });
  }
}

/**
 * Copies a copy-mode enclosure's /workspace back into the host folder. The container is paused first
 * so its content cannot change during the copy; when anything fails it is resumed (the caller decides
 * what becomes of it).
 */
export async function copyBackFromContainer(container: Docker.Container, dir: string, limits: MirrorLimits): Promise<NotCopied> {
  const state = (await container.inspect()).State;
  const pausedHere = state.Running && !state.Paused;
  if (pausedHere) await container.pause();
  try {
    const archive = (await container.getArchive({ path: `${IN_ENCLOSURE.workspace}/.` })) as unknown as Readable;
    return await mirrorArchiveInto(dir, archive, ".", limits);
  } catch (err) {
    if (pausedHere && !(await resume(container))) {
      const stuck = `the enclosure also stays paused (the engine would not resume it): run \`docker unpause ${container.id.slice(0, 12)}\` or stop it again`;
      throw err instanceof EnclaveError
        ? new EnclaveError(err.code, `${err.message} And ${stuck}.`)
        : new EnclaveError("placement_unavailable", `${(err as Error).message}; ${stuck}`);
    }
    throw err;
  }
}

/**
 * Runs `use` with the container paused (when it runs), so the workspace it writes holds still, and
 * resumes it afterwards however `use` ends: a fork reads its source's workspace this way and the
 * source's enclosure carries on.
 */
export async function whilePaused<T>(container: Docker.Container, use: () => Promise<T>): Promise<T> {
  const state = (await container.inspect()).State;
  const pausedHere = state.Running && !state.Paused;
  if (pausedHere) await container.pause();
  const outcome = await use().then(
    (value) => ({ ok: true as const, value }),
    (err: unknown) => ({ ok: false as const, err }),
  );
  // An enclosure left paused answers nothing: that outweighs whatever use() said.
  if (pausedHere && !(await resume(container))) {
    throw new EnclaveError(
      "placement_unavailable",
      `the enclosure ${container.id.slice(0, 12)} stays paused (the engine would not resume it): run \`docker unpause ${container.id.slice(0, 12)}\` or stop it`,
    );
  }
  if (!outcome.ok) throw outcome.err;
  return outcome.value;
}

/**
 * Resumes a container this copy back paused, until the engine says it runs unpaused (false: it would
 * not). The engine takes the resume only once it has let go of the archive it was sending, which a
 * loaded machine delays; an enclosure left paused would look alive and answer nothing.
 */
async function resume(container: Docker.Container): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    await container.unpause().catch(() => undefined);
    const state = await container.inspect().then(
      (i) => i.State,
      () => undefined,
    );
    if (state && (!state.Running || !state.Paused)) return true;
    if (attempt >= LIMITS.containerResumeAttempts) return false;
    await sleep(LIMITS.containerResumeRetryMs * attempt);
  }
}

/** Puts a tar stream into a created container at `path`; a full disk is said as such. */
export async function putFolder(container: Docker.Container, archive: Readable, path: string, diskLimitBytes?: number): Promise<void> {
  try {
    await container.putArchive(archive, { path });
  } catch (err) {
    const message = (err as Error).message;
    // The engine answers a full volume with HTTP 500 and the kernel's words; it sends no code for it.
    // eslint-disable-next-line enclave/no-message-branching -- the Docker API's text, not an Enclave error
    if (diskLimitBytes && /no space left on device/i.test(message)) {
      throw new EnclaveError(
        "too_large",
        `the workspace does not fit the enclosure's disk limit of ${diskLimitBytes} bytes (the volume's own metadata takes a few MiB of it): ` +
          `start with a larger disk_limit_bytes`,
      );
    }
    throw err;
  }
}
