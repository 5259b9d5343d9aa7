// The careful tar unpacker the control plane's copy-mode mirror-back uses (it lives beside the
// agent's path handling it builds on). A tar stream is hostile input, so:
// - it is unpacked into a fresh folder the caller made, never over live files;
// - every entry is made relative to a directory handle opened without following links, component by
//   component, so no entry is ever written through a link the archive (or anyone) put in its path;
// - a symbolic link is made only when it stays inside the tree wherever it is followed from, a hard
//   link only to a regular file the archive itself brought; special files (FIFOs, devices) are not
//   made; everything not made is reported, never dropped silently;
// - contents stream to disk (runs of zeros become holes), so memory stays flat however large the
//   archive is, and the total size and entry count are bounded.
import { constants, promises as fsp } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import type { Readable } from "node:stream";
import { extract as tarExtract, type Header } from "tar-stream";
import { atFd, openDirBelow, openDirNoFollow, reopenDir } from "./fd-path.js";

export type SkipKind = "link_outside" | "hard_link" | "special_file" | "bad_name" | "not_made";

export interface SkippedEntry {
  /** The entry's path below the unpacked folder, as the archive named it. */
  path: string;
  kind: SkipKind;
  /** Why, in words: "symbolic link to /etc, which leaves the workspace". */
  why: string;
}

export interface UnpackReport {
  files: number;
  directories: number;
  symlinks: number;
  hardLinks: number;
  /** Bytes of file content written: blocks of zeros are left as holes and not counted. */
  bytes: number;
  /** Bytes of file content as the archive states it (a hole counts). */
  apparentBytes: number;
  /** The first entries not made (at most MAX_REPORTED), and how many there were in all. */
  skipped: SkippedEntry[];
  skippedTotal: number;
}

/** The archive is larger than the caller allows; nothing unpacked so far should be used. */
export class ArchiveLimitError extends Error {
  constructor(
    readonly limit: "bytes" | "entries" | "apparent",
    readonly max: number,
    message: string,
  ) {
    super(message);
    this.name = "ArchiveLimitError";
  }
}

export interface UnpackOptions {
  /** How many folders the unpacked folder's final place sits below the tree's root (0 for the root). */
  depthBelowRoot: number;
  /** A leading path every entry carries (".", "workspace"), removed before use. */
  stripPrefix?: string;
  /** Bytes of file content written at most (what the files take on disk: holes are not written). */
  maxBytes: number;
  /**
   * Bytes of file content the archive may state at most (holes count): a sparse file's zeros still
   * stream through, so this bounds the time an unpack takes.
   */
  maxApparentBytes?: number;
  maxEntries: number;
  /** Owner given to everything made (the archive's own owners are ignored); the process's when unset. */
  owner?: { uid: number; gid: number };
}

/** Errors that mean the destination itself is unusable: the whole unpack fails rather than skip. */
const FATAL = new Set(["ENOSPC", "EDQUOT", "EIO", "EMFILE", "ENFILE", "ENOMEM", "EROFS", "EACCES", "EPERM"]);

/** Entries not made that a report lists one by one; the rest are counted. */
export const MAX_REPORTED = 1000;
/** Refused paths remembered so nothing is made below them; past this, below them is only ever inside. */
const MAX_REMEMBERED = 10_000;

const FILE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
/** A filesystem block (ext4's): zeros of this size are left as a hole, so holes cost no more than the source's. */
const ZEROS = Buffer.alloc(4096);

class Skip extends Error {
  constructor(
    readonly kind: SkipKind,
    why: string,
  ) {
    super(why);
  }
}

/** The entry's path components, or a Skip; [] is the unpacked folder itself. */
export function entryParts(raw: string, stripPrefix = ""): string[] {
  if (raw.includes("\0")) throw new Skip("bad_name", "its name holds a NUL byte");
  if (raw.startsWith("/")) throw new Skip("bad_name", "its name is absolute");
  let parts = raw.split("/").filter((p) => p !== "" && p !== ".");
  const strip = stripPrefix.split("/").filter((p) => p !== "" && p !== ".");
  if (strip.length) {
    if (strip.some((p, i) => parts[i] !== p)) throw new Skip("bad_name", `its name is not under \`${stripPrefix}\``);
    parts = parts.slice(strip.length);
  }
  if (parts.includes("..")) throw new Skip("bad_name", "its name climbs with `..`");
  return parts;
}

/**
 * Whether a symbolic link at `location` (components below the root) with this target stays inside
 * the tree wherever it is followed from. Accepted: relative targets whose `..` all come first and
 * climb no higher than the root. `..` after a name is refused, because that name may itself be a
 * link (to the root, say) and the kernel's `..` is taken from wherever the link led.
 */
export function linkStaysInside(location: readonly string[], target: string): boolean {
  if (target === "" || target.startsWith("/") || target.includes("\0")) return false;
  const parts = target.split("/").filter((p) => p !== "" && p !== ".");
  let climbs = 0;
  while (parts[climbs] === "..") climbs++;
  if (parts.slice(climbs).includes("..")) return false;
  return climbs <= location.length - 1;
}

/** Writes the chunk at `at`, leaving its all-zero blocks as holes; returns the bytes written. */
async function writeSparse(fh: FileHandle, chunk: Buffer, at: number): Promise<number> {
  let start = -1;
  let written = 0;
  for (let off = 0; off < chunk.length; off += ZEROS.length) {
    const piece = chunk.subarray(off, off + ZEROS.length);
    const zero = piece.equals(ZEROS.subarray(0, piece.length));
    if (!zero && start < 0) start = off;
    if (zero && start >= 0) {
      await fh.write(chunk, start, off - start, at + start);
      written += off - start;
      start = -1;
    }
  }
  if (start >= 0) {
    await fh.write(chunk, start, chunk.length - start, at + start);
    written += chunk.length - start;
  }
  return written;
}

async function drain(entry: Readable): Promise<void> {
  for await (const _ of entry) {
    // Content of an entry that is not made is read and thrown away.
  }
}

function errno(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? "";
}

/** Unpacks a tar stream into `into`, an empty folder the caller made and nothing else writes to. */
export async function unpackTar(archive: Readable, into: string, options: UnpackOptions): Promise<UnpackReport> {
  const report: UnpackReport = { files: 0, directories: 0, symlinks: 0, hardLinks: 0, bytes: 0, apparentBytes: 0, skipped: [], skippedTotal: 0 };
  const root = await openDirNoFollow(into);
  // Entries of one folder usually follow each other: keep that folder's handle open between them.
  let cached: { key: string; dir: FileHandle } | undefined;
  const extract = tarExtract();
  // Stays attached: a source torn down after a failure may still report its own close as an error.
  archive.on("error", (err: Error) => extract.destroy(err));
  archive.pipe(extract as unknown as NodeJS.WritableStream);

  const owned = async (fh: FileHandle): Promise<void> => {
    if (options.owner) await fh.chown(options.owner.uid, options.owner.gid);
  };

  /** The handle of the folder `parts`, making missing folders (private until their entry says otherwise). */
  const folder = async (parts: readonly string[]): Promise<FileHandle> => {
    const key = parts.join("/");
    if (cached?.key === key) return cached.dir;
    // Walk on from the cached folder when it is on the way (deep trees stay linear), else from the root.
    const from = cached && (cached.key === "" || key.startsWith(`${cached.key}/`)) ? cached : undefined;
    let current = await reopenDir(from ? from.dir.fd : root.fd);
    const rest = from ? parts.slice(from.key === "" ? 0 : from.key.split("/").length) : parts;
    await cached?.dir.close();
    cached = undefined;
    try {
      for (const part of rest) {
        let next: FileHandle;
        try {
          next = await openDirNoFollow(atFd(current.fd, part));
        } catch (err) {
          if (errno(err) === "ELOOP" || errno(err) === "ENOTDIR") throw new Skip("not_made", `\`${part}\` on its way is not a folder`);
          if (errno(err) !== "ENOENT") throw err;
          await fsp.mkdir(atFd(current.fd, part), 0o700);
          next = await openDirNoFollow(atFd(current.fd, part));
          await owned(next);
          report.directories++;
        }
        await current.close();
        current = next;
      }
    } catch (err) {
      await current.close().catch(() => undefined);
      throw err;
    }
    cached = { key, dir: current };
    return current;
  };

  /** Clears the way for a new entry: a folder stays for a folder, anything else there goes. */
  const clear = async (dir: FileHandle, name: string, keepFolder: boolean): Promise<boolean> => {
    const st = await fsp.lstat(atFd(dir.fd, name)).catch(() => undefined);
    if (!st) return false;
    if (keepFolder && st.isDirectory()) return true;
    // `dir` is the cached handle and what goes is below it, so the cache stays valid.
    await fsp.rm(atFd(dir.fd, name), { recursive: true, force: true });
    return false;
  };

  const writeFile = async (dir: FileHandle, name: string, header: Header, entry: Readable, path: string): Promise<void> => {
    await clear(dir, name, false);
    const fh = await fsp.open(atFd(dir.fd, name), FILE_FLAGS, 0o600);
    try {
      let at = 0;
      for await (const chunk of entry as AsyncIterable<Buffer>) {
        report.bytes += await writeSparse(fh, chunk, at);
        if (report.bytes > options.maxBytes) {
          throw new ArchiveLimitError(
            "bytes",
            options.maxBytes,
            `the archive holds more than ${options.maxBytes} bytes of file content, holes aside (at \`${path}\`)`,
          );
        }
        at += chunk.length;
      }
      await fh.truncate(at);
      await fh.chmod((header.mode ?? 0o644) & 0o777);
      await owned(fh);
      if (header.mtime) await fh.utimes(header.mtime, header.mtime);
    } finally {
      await fh.close();
    }
  };

  // Paths whose entry was not made: nothing is made below them either (no folder in a refused link's place).
  const refused = new Set<string>();
  const unpackEntry = async (header: Header, entry: Readable): Promise<void> => {
    const parts = entryParts(header.name, options.stripPrefix);
    for (let n = 1; n < parts.length; n++) {
      const above = parts.slice(0, n).join("/");
      if (refused.has(above)) {
        if (refused.size < MAX_REMEMBERED) refused.add(parts.join("/"));
        throw new Skip("not_made", `\`${above}\` above it was not made`);
      }
    }
    const location = [...new Array<string>(options.depthBelowRoot).fill(".."), ...parts];
    if (parts.length === 0) {
      // The unpacked folder itself: its place decides its mode, not the archive.
      if (header.type !== "directory") throw new Skip("bad_name", "it names the folder itself");
      return drain(entry);
    }
    const name = parts[parts.length - 1] as string;
    const dir = await folder(parts.slice(0, -1));
    switch (header.type) {
      case "directory": {
        await drain(entry);
        if (!(await clear(dir, name, true))) {
          await fsp.mkdir(atFd(dir.fd, name), 0o700);
          report.directories++;
        }
        const made = await openDirNoFollow(atFd(dir.fd, name));
        try {
          // Folders stay usable by their owner, or nothing could be moved out of them later.
          await made.chmod(((header.mode ?? 0o755) & 0o777) | 0o700);
          await owned(made);
        } finally {
          await made.close();
        }
        return;
      }
      case "file":
      case "contiguous-file": {
        const size = header.size ?? 0;
        const maxApparent = options.maxApparentBytes ?? Infinity;
        if (report.apparentBytes + size > maxApparent) {
          throw new ArchiveLimitError(
            "apparent",
            maxApparent,
            `the archive states more than ${maxApparent} bytes of file content, holes included (at \`${parts.join("/")}\`)`,
          );
        }
        report.apparentBytes += size;
        await writeFile(dir, name, header, entry, parts.join("/"));
        report.files++;
        return;
      }
      case "symlink": {
        await drain(entry);
        const target = header.linkname ?? "";
        if (!linkStaysInside(location, target)) throw new Skip("link_outside", `symbolic link to \`${target}\`, which leaves the workspace`);
        await clear(dir, name, false);
        await fsp.symlink(target, atFd(dir.fd, name));
        if (options.owner) await fsp.lchown(atFd(dir.fd, name), options.owner.uid, options.owner.gid);
        report.symlinks++;
        return;
      }
      case "link": {
        await drain(entry);
        let targetParts: string[];
        try {
          targetParts = entryParts(header.linkname ?? "", options.stripPrefix);
        } catch {
          throw new Skip("hard_link", `hard link to \`${header.linkname}\`, which is not in the archive`);
        }
        if (targetParts.length === 0) throw new Skip("hard_link", "hard link to the folder itself");
        const targetDir = await openDirBelow(root.fd, targetParts.slice(0, -1)).catch(() => undefined);
        if (!targetDir) throw new Skip("hard_link", `hard link to \`${header.linkname}\`, which is not a file the archive brought`);
        try {
          const targetName = targetParts[targetParts.length - 1] as string;
          const st = await fsp.lstat(atFd(targetDir.fd, targetName)).catch(() => undefined);
          if (!st?.isFile()) throw new Skip("hard_link", `hard link to \`${header.linkname}\`, which is not a file the archive brought`);
          await clear(dir, name, false);
          await fsp.link(atFd(targetDir.fd, targetName), atFd(dir.fd, name));
        } finally {
          await targetDir.close();
        }
        report.hardLinks++;
        return;
      }
      default:
        await drain(entry);
        throw new Skip("special_file", `${header.type ?? "unknown"} entry, which the workspace does not take`);
    }
  };

  let entries = 0;
  try {
    for await (const entry of extract) {
      const header = entry.header;
      if (++entries > options.maxEntries) {
        throw new ArchiveLimitError("entries", options.maxEntries, `the archive holds more than ${options.maxEntries} entries`);
      }
      try {
        await unpackEntry(header, entry as unknown as Readable);
      } catch (err) {
        if (err instanceof ArchiveLimitError) throw err;
        if (!(err instanceof Skip) && FATAL.has(errno(err))) throw err;
        if ((header.type === "symlink" || header.type === "directory") && refused.size < MAX_REMEMBERED) {
          try {
            refused.add(entryParts(header.name, options.stripPrefix).join("/"));
          } catch {
            // A bad name refers to nothing below the folder.
          }
        }
        if (++report.skippedTotal > MAX_REPORTED) {
          await drain(entry as unknown as Readable).catch(() => undefined);
          continue;
        }
        report.skipped.push({
          path: header.name.replace(/^(\.\/)+/, ""),
          kind: err instanceof Skip ? err.kind : "not_made",
          why: err instanceof Skip ? err.message : `could not be made: ${(err as Error).message}`,
        });
        await drain(entry as unknown as Readable).catch(() => undefined);
      }
    }
  } catch (err) {
    archive.destroy();
    extract.destroy();
    throw err;
  } finally {
    await cached?.dir.close().catch(() => undefined);
    await root.close().catch(() => undefined);
  }
  return report;
}
