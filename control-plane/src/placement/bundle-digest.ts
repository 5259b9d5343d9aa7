// One digest of the agent bundle's content, computed the same way from the built folder on this host
// and from the tar archive the engine gives of a volume: every regular file's path, permission bits
// and bytes. Anything in the archive that is neither a folder nor a regular file (a link, a device)
// goes into the digest by type, so a volume that holds one never matches a bundle, which has none.
import { createHash } from "node:crypto";
import { promises as fsp } from "node:fs";
import { join } from "node:path";
import { extract } from "tar-stream";

/** A file whose digest is left out (the fill's "complete" marker, written last). */
export type Skip = (rel: string) => boolean;

function combine(entries: Map<string, string>): string {
  const h = createHash("sha256");
  for (const rel of [...entries.keys()].sort()) h.update(`${rel}\0${entries.get(rel) ?? ""}\n`);
  return h.digest("hex");
}

/** The digest of a folder with nothing in it. */
export const EMPTY_DIGEST = combine(new Map());

function fileLine(mode: number, content: ReturnType<typeof createHash>): string {
  return `file\0${(mode & 0o777).toString(8)}\0${content.digest("hex")}`;
}

/** The digest of the folder's files (links and other kinds are not part of a bundle and are left out). */
export async function folderDigest(dir: string, skip: Skip = () => false): Promise<string> {
  const entries = new Map<string, string>();
  const walk = async (abs: string, rel: string): Promise<void> => {
    for (const name of await fsp.readdir(abs)) {
      const st = await fsp.lstat(join(abs, name));
      const r = rel ? `${rel}/${name}` : name;
      if (st.isDirectory()) await walk(join(abs, name), r);
      else if (st.isFile() && !skip(r)) entries.set(r, fileLine(st.mode, createHash("sha256").update(await fsp.readFile(join(abs, name)))));
    }
  };
  await walk(dir, "");
  return combine(entries);
}

/**
 * The digest of a folder as the engine archives it (GET …/archive of the folder: every entry under
 * the folder's own name, which is stripped). Streams: nothing of the archive is held in memory.
 */
export async function archiveDigest(archive: NodeJS.ReadableStream, skip: Skip = () => false): Promise<string> {
  const entries = new Map<string, string>();
  const ex = extract();
  await new Promise<void>((resolve, reject) => {
    ex.on("entry", (header, stream, next) => {
      const rel = header.name.replace(/^\.?\/?[^/]*\/?/, "").replace(/\/$/, "");
      const h = createHash("sha256");
      stream.on("data", (c: unknown) => {
        if (Buffer.isBuffer(c)) h.update(c);
      });
      stream.on("error", reject);
      stream.on("end", () => {
        if (header.type === "file" && rel && !skip(rel)) entries.set(rel, fileLine(header.mode ?? 0, h));
        else if (header.type !== "file" && header.type !== "directory") entries.set(rel || ".", `${header.type ?? "other"}\0${header.linkname ?? ""}`);
        next();
      });
    });
    ex.on("finish", () => resolve());
    ex.on("error", reject);
    archive.on("error", reject);
    archive.pipe(ex as unknown as NodeJS.WritableStream);
  });
  return combine(entries);
}
