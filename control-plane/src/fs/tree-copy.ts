// Copies a workspace tree that code we do not trust may be writing while we read it (a fork's source)
// into a fresh folder only the control plane writes. The same rules as the careful unpacker
// (archive-unpack.ts), with the same report:
// - every folder is entered through a handle opened without following links and every entry is
//   looked up inside it (fd-path.ts), so a folder swapped for a link mid-walk is never followed;
// - a file is opened without following links and copied from that very handle, so what is copied is
//   the regular file that was checked, never a link's target;
// - a symbolic link is copied (as a link) only when it stays inside the tree (linkStaysInside);
//   special files (FIFOs, sockets, devices) are not made; both are reported, never dropped silently;
// - every file becomes a file of its own, hard links included: two names of one inode in the source
//   are two files in the copy, so nothing in the copy shares an inode with the source;
// - file contents are cloned where the filesystem can (FICLONE: a reflink, copy on write: btrfs, XFS),
//   and copied otherwise; the total size and entry count are bounded, and no file is copied past the
//   size it was counted at (a file the source's code grows after the look, even sparsely to a terabyte,
//   is cut there: a whole-file copy would write all of it to the control plane's disk).
import { constants, promises as fsp, type Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { ArchiveLimitError, linkStaysInside, MAX_REPORTED, type SkippedEntry, type SkipKind } from "./archive-unpack.js";
import { atFd, openDirNoFollow } from "./fd-path.js";

export interface TreeCopyLimits {
  /** Bytes of file content (as the files state their size) copied at most. */
  maxBytes: number;
  maxEntries: number;
}

export interface TreeCopyReport {
  files: number;
  directories: number;
  symlinks: number;
  /** Files whose source had other names (hard links): each was copied as a file of its own. */
  hardLinked: number;
  bytes: number;
  skipped: SkippedEntry[];
  skippedTotal: number;
}

const FILE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
/** Entries of one folder looked at and files copied at once: the thread pool's threads kept busy. */
const WIDTH = 16;

/**
 * Runs `fn` on every item, `width` at a time. On a failure no new item starts, and the first failure
 * is thrown only once every item started has settled: the folder handles the items use stay open
 * until then (a handle closed under a running copy could be reused by another open, and its
 * /proc/self/fd path would then lead somewhere else).
 */
async function eachAtOnce<T>(items: readonly T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { err: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (!failure && next < items.length) {
      const item = items[next++] as T;
      try {
        await fn(item);
      } catch (err) {
        failure ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  if (failure) throw failure.err;
}

/** Errors of a clone the file system cannot make: the bytes are copied instead. */
const NO_CLONE = new Set(["ENOTSUP", "EOPNOTSUPP", "EXDEV", "EINVAL", "ENOSYS", "ENOTTY"]);
const CHUNK_BYTES = 1024 * 1024;
const ZEROS = Buffer.alloc(CHUNK_BYTES);

/**
 * Copies the file open as `from` into `to` (a name that must not exist yet), at most the `counted`
 * size it had when it was looked at: cloned where the file system can (copy on write, nothing
 * written; a clone of a file grown since is cut back), else read and written in chunks up to that
 * size, a chunk of zeros left a hole so a sparse file stays sparse.
 */
async function copyCounted(from: FileHandle, to: string, counted: Stats, clone: { works: boolean }): Promise<void> {
  if (clone.works) {
    try {
      // From the handle checked by the caller (the /proc entry reopens that very file).
      await fsp.copyFile(atFd(from.fd), to, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE_FORCE);
      if ((await fsp.stat(to)).size > counted.size) await fsp.truncate(to, counted.size);
      return;
    } catch (err) {
      if (!NO_CLONE.has((err as NodeJS.ErrnoException).code ?? "")) throw err;
      // The file system cannot clone: the rest of this copy does not ask again.
      clone.works = false;
    }
    // A failed clone may leave the name made (the folder is the control plane's own).
    await fsp.rm(to, { force: true });
  }
  const out = await fsp.open(to, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, counted.mode & 0o777);
  try {
    const buf = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, Math.max(counted.size, 1)));
    let at = 0;
    let written = 0;
    while (at < counted.size) {
      const { bytesRead } = await from.read(buf, 0, Math.min(buf.length, counted.size - at), at);
      if (bytesRead === 0) break; // shrunk since it was counted
      if (!buf.subarray(0, bytesRead).equals(ZEROS.subarray(0, bytesRead))) {
        await out.write(buf, 0, bytesRead, at);
        written = at + bytesRead;
      }
      at += bytesRead;
    }
    // A hole at the end is made by the length alone.
    if (written < at) await out.truncate(at);
  } finally {
    await out.close();
  }
}

/** A copy of `from` (a folder) into `into` (an existing empty folder no one else writes). */
export async function copyTree(from: string, into: string, limits: TreeCopyLimits): Promise<TreeCopyReport> {
  const report: TreeCopyReport = { files: 0, directories: 0, symlinks: 0, hardLinked: 0, bytes: 0, skipped: [], skippedTotal: 0 };
  let entries = 0;
  // Whether the destination's file system clones: asked by the first file, remembered for the rest.
  const clone = { works: true };
  const skip = (path: string, kind: SkipKind, why: string): void => {
    report.skippedTotal++;
    if (report.skipped.length < MAX_REPORTED) report.skipped.push({ path, kind, why });
  };
  const count = (): void => {
    if (++entries > limits.maxEntries) throw new ArchiveLimitError("entries", limits.maxEntries, `the tree holds more than ${limits.maxEntries} entries`);
  };

  const copyFile = async (srcDir: FileHandle, dstDir: FileHandle, name: string, rel: string): Promise<void> => {
    let fh: FileHandle;
    try {
      fh = await fsp.open(atFd(srcDir.fd, name), FILE_FLAGS);
    } catch (err) {
      // Gone, or swapped for a link or a FIFO since it was listed: never followed.
      skip(rel, "not_made", `it could not be opened without following a link (${(err as NodeJS.ErrnoException).code ?? "error"})`);
      return;
    }
    try {
      const st = await fh.stat();
      if (!st.isFile()) {
        skip(rel, "special_file", "it changed into something other than a file while the tree was copied");
        return;
      }
      if (report.bytes + st.size > limits.maxBytes) {
        throw new ArchiveLimitError("bytes", limits.maxBytes, `the tree holds more than ${limits.maxBytes} bytes of file content`);
      }
      // Taken before the copy, so copies running at once cannot pass the bound together.
      report.bytes += st.size;
      await copyCounted(fh, atFd(dstDir.fd, name), st, clone);
      report.files++;
      if (st.nlink > 1) report.hardLinked++;
    } finally {
      await fh.close();
    }
  };

  const walk = async (srcDir: FileHandle, dstDir: FileHandle, location: string[]): Promise<void> => {
    const names = (await fsp.readdir(atFd(srcDir.fd))).sort();
    for (let i = 0; i < names.length; i++) count();
    const stats = new Map<string, Stats>();
    await eachAtOnce(names, WIDTH, async (name) => {
      const st = await fsp.lstat(atFd(srcDir.fd, name)).catch(() => undefined);
      if (st) stats.set(name, st); // else gone since it was listed
    });
    const files: string[] = [];
    const folders: string[] = [];
    for (const name of names) {
      const st = stats.get(name);
      if (!st) continue;
      const here = [...location, name];
      const rel = here.join("/");
      if (st.isSymbolicLink()) {
        const target = await fsp.readlink(atFd(srcDir.fd, name)).catch(() => undefined);
        if (target === undefined) continue;
        if (!linkStaysInside(here, target)) {
          skip(rel, "link_outside", `symbolic link to ${target}, which leaves the workspace`);
          continue;
        }
        await fsp.symlink(target, atFd(dstDir.fd, name));
        report.symlinks++;
      } else if (st.isDirectory()) folders.push(name);
      else if (st.isFile()) files.push(name);
      else {
        const what = st.isFIFO() ? "a FIFO" : st.isSocket() ? "a socket" : st.isCharacterDevice() || st.isBlockDevice() ? "a device" : "a special file";
        skip(rel, "special_file", `${what}, which is not copied`);
      }
    }
    await eachAtOnce(files, WIDTH, (name) => copyFile(srcDir, dstDir, name, [...location, name].join("/")));
    for (const name of folders) {
      const here = [...location, name];
      const sub = await openDirNoFollow(atFd(srcDir.fd, name)).catch(() => undefined);
      if (!sub) {
        skip(here.join("/"), "not_made", "it was swapped for something other than a folder while the tree was copied");
        continue;
      }
      try {
        await fsp.mkdir(atFd(dstDir.fd, name), { mode: 0o700 });
        const made = await openDirNoFollow(atFd(dstDir.fd, name));
        try {
          await walk(sub, made, here);
          await made.chmod((stats.get(name)?.mode ?? 0o755) & 0o777);
        } finally {
          await made.close();
        }
        report.directories++;
      } finally {
        await sub.close();
      }
    }
  };

  const [src, dst] = [await openDirNoFollow(from), await openDirNoFollow(into)];
  try {
    await walk(src, dst, []);
  } finally {
    await src.close();
    await dst.close();
  }
  return report;
}
