// Moves an unpacked tree into its destination, following no link the destination holds: every folder
// is entered through a handle opened without following links, and every entry is replaced by name
// inside that handle (rename(2) replaces a link itself, never what it points to). A link planted in
// the destination where the tree has a folder is removed and the folder put in its place.
import { promises as fsp } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { atFd, openDirNoFollow } from "./fd-path.js";

export interface MoveOptions {
  /** Remove what the destination holds and the tree does not (a mirror), or keep it (a merge). */
  mirror: boolean;
  /** Names at the destination's top level that are never touched (the staging folder itself). */
  keep?: ReadonlySet<string>;
}

async function moveLevel(from: FileHandle, to: FileHandle, options: MoveOptions, top: boolean): Promise<void> {
  const wanted = await fsp.readdir(atFd(from.fd));
  if (options.mirror) {
    const have = new Set(wanted);
    for (const name of await fsp.readdir(atFd(to.fd))) {
      if (have.has(name) || (top && options.keep?.has(name))) continue;
      await fsp.rm(atFd(to.fd, name), { recursive: true, force: true });
    }
  }
  for (const name of wanted) {
    if (top && options.keep?.has(name)) continue;
    const src = await fsp.lstat(atFd(from.fd, name));
    const dst = await fsp.lstat(atFd(to.fd, name)).catch(() => undefined);
    if (src.isDirectory() && dst?.isDirectory()) {
      const [innerFrom, innerTo] = [await openDirNoFollow(atFd(from.fd, name)), await openDirNoFollow(atFd(to.fd, name))];
      try {
        await moveLevel(innerFrom, innerTo, options, false);
        const now = await innerTo.stat();
        if ((now.mode & 0o777) !== (src.mode & 0o777)) await innerTo.chmod(src.mode & 0o777);
        if (now.uid !== src.uid || now.gid !== src.gid) await innerTo.chown(src.uid, src.gid);
      } finally {
        await innerFrom.close();
        await innerTo.close();
      }
      continue;
    }
    if (dst) await fsp.rm(atFd(to.fd, name), { recursive: true, force: true });
    await fsp.rename(atFd(from.fd, name), atFd(to.fd, name));
  }
}

/** Moves everything in `from` into `to` (both real folders on one filesystem, `to` not a link). */
export async function moveTreeInto(from: string, to: string, options: MoveOptions): Promise<void> {
  const source = await openDirNoFollow(from);
  try {
    const destination = await openDirNoFollow(to);
    try {
      await moveLevel(source, destination, options, true);
    } finally {
      await destination.close();
    }
  } finally {
    await source.close();
  }
}
