// Paths that name an entry relative to a directory this process holds open, through /proc/self/fd.
// Node has no openat/renameat; `/proc/self/fd/N/name` gives the same guarantee on Linux: the kernel
// jumps to the very directory held open as N, so whatever someone does to that directory's own path
// meanwhile (swapping a parent for a link), `name` is looked up in the directory we opened. Only the
// final component is then looked up by name, and every caller makes or opens it without following.
import { constants, promises as fsp } from "node:fs";
import type { FileHandle } from "node:fs/promises";

/** `name` inside the directory open as `fd` (the directory itself without a name). */
export function atFd(fd: number, name?: string): string {
  return name === undefined ? `/proc/self/fd/${fd}` : `/proc/self/fd/${fd}/${name}`;
}

// Without O_DIRECTORY: gVisor follows a link despite O_NOFOLLOW when O_DIRECTORY is given, so a
// folder is opened as anything and checked to be one afterwards (O_NONBLOCK: a FIFO never blocks).
const DIR_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Opens a directory that must not be a link (ELOOP when it is, ENOTDIR when it is something else). */
export async function openDirNoFollow(path: string): Promise<FileHandle> {
  const handle = await fsp.open(path, DIR_FLAGS);
  if ((await handle.stat()).isDirectory()) return handle;
  await handle.close();
  throw Object.assign(new Error(`ENOTDIR: not a directory, open '${path}'`), { code: "ENOTDIR" });
}

/** A second handle on a directory already open (the /proc entry is itself a link, to that directory). */
export function reopenDir(fd: number): Promise<FileHandle> {
  return fsp.open(atFd(fd), constants.O_RDONLY | constants.O_DIRECTORY);
}

/**
 * Opens `parts` below the directory open as `rootFd`, one component at a time, each refused when it
 * is a link. The caller closes the handle.
 */
export async function openDirBelow(rootFd: number, parts: readonly string[]): Promise<FileHandle> {
  let current = await reopenDir(rootFd);
  try {
    for (const part of parts) {
      const next = await openDirNoFollow(atFd(current.fd, part));
      await current.close();
      current = next;
    }
    return current;
  } catch (err) {
    await current.close().catch(() => undefined);
    throw err;
  }
}
