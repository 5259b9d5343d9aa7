// Moving a workspace between the host and an enclosure whose files the host cannot see (copy mode):
// the host folder as a tar stream in, and the enclosure's /workspace mirrored back out. Also the
// ownership fix bind mode needs, since the enclosure's user is not the host's.
import { promises as fsp } from "node:fs";
import { basename, dirname, join } from "node:path";
import { Readable } from "node:stream";
import { extract as tarExtract, pack as tarPack } from "tar-stream";

/** Gives the whole tree to uid:gid (links themselves, never their targets). */
export async function chownTree(dir: string, uid: number, gid: number): Promise<void> {
  const st = await fsp.lstat(dir);
  if (st.uid !== uid || st.gid !== gid) await fsp.lchown(dir, uid, gid);
  if (!st.isDirectory()) return;
  for (const name of await fsp.readdir(dir)) await chownTree(join(dir, name), uid, gid);
}

/** The folder's contents as a tar stream, every entry owned by uid:gid. */
export function packFolder(dir: string, uid: number, gid: number): Readable {
  const pack = tarPack();
  const add = (header: Parameters<typeof pack.entry>[0], body?: Buffer): Promise<void> =>
    new Promise((ok, fail) => {
      const done = (err?: Error | null): void => (err ? fail(err) : ok());
      if (body) pack.entry(header, body, done);
      else pack.entry(header, done);
    });
  const walk = async (abs: string, rel: string): Promise<void> => {
    for (const name of (await fsp.readdir(abs)).sort()) {
      const childAbs = join(abs, name);
      const childRel = rel ? `${rel}/${name}` : name;
      const st = await fsp.lstat(childAbs);
      const common = { name: childRel, mode: st.mode & 0o7777, mtime: st.mtime, uid, gid };
      if (st.isSymbolicLink()) await add({ ...common, type: "symlink", linkname: await fsp.readlink(childAbs) });
      else if (st.isDirectory()) {
        await add({ ...common, name: `${childRel}/`, type: "directory" });
        await walk(childAbs, childRel);
      } else if (st.isFile()) await add({ ...common, type: "file", size: st.size }, await fsp.readFile(childAbs));
    }
  };
  walk(dir, "").then(
    () => pack.finalize(),
    (err: unknown) => pack.destroy(err as Error),
  );
  return Readable.from(pack);
}

/** Unpacks a tar stream (whose entries start with `stripPrefix/`) into a fresh folder beside `dir`. */
async function unpackBeside(dir: string, archive: NodeJS.ReadableStream, stripPrefix: string): Promise<string> {
  const staging = await fsp.mkdtemp(join(dirname(dir), `.${basename(dir)}.sync-`));
  const extract = tarExtract();
  const done = (async () => {
    for await (const entry of extract) {
      const chunks: Buffer[] = [];
      for await (const c of entry as AsyncIterable<Buffer>) chunks.push(c);
      let name = entry.header.name.replace(/\/+$/, "");
      if (name === stripPrefix) continue;
      if (name.startsWith(`${stripPrefix}/`)) name = name.slice(stripPrefix.length + 1);
      // The archive comes from inside the enclosure: never let it name a path above the folder.
      if (name.split("/").some((part) => part === "..") || name.startsWith("/")) continue;
      const target = join(staging, name);
      await fsp.mkdir(dirname(target), { recursive: true });
      if (entry.header.type === "directory") await fsp.mkdir(target, { recursive: true });
      else if (entry.header.type === "file") await fsp.writeFile(target, Buffer.concat(chunks), { mode: entry.header.mode & 0o777 });
      else if (entry.header.type === "symlink") await fsp.symlink(entry.header.linkname, target);
    }
  })();
  (archive as Readable).pipe(extract as unknown as NodeJS.WritableStream);
  await done;
  return staging;
}

/** Makes `dir` hold exactly what `from` holds, in place (the folder itself is kept: agents use it). */
async function mirrorInto(from: string, dir: string): Promise<void> {
  const wanted = new Set(await fsp.readdir(from));
  for (const name of await fsp.readdir(dir)) {
    if (!wanted.has(name)) await fsp.rm(join(dir, name), { recursive: true, force: true });
  }
  for (const name of wanted) {
    const src = join(from, name);
    const dst = join(dir, name);
    const [s, d] = await Promise.all([fsp.lstat(src), fsp.lstat(dst).catch(() => undefined)]);
    if (s.isDirectory() && d?.isDirectory()) {
      await mirrorInto(src, dst);
      continue;
    }
    if (d) await fsp.rm(dst, { recursive: true, force: true });
    await fsp.rename(src, dst);
  }
}

export async function mirrorArchiveInto(dir: string, archive: NodeJS.ReadableStream, stripPrefix: string): Promise<void> {
  const staging = await unpackBeside(dir, archive, stripPrefix);
  try {
    await mirrorInto(staging, dir);
  } finally {
    await fsp.rm(staging, { recursive: true, force: true });
  }
}
