// `docker build` through dockerode from an in-memory context (tar-stream), with progress.
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import type Docker from "dockerode";
import { pack as tarPack } from "tar-stream";
import type { Progress } from "./progress.js";

export interface BuildSpec {
  tag: string;
  /** Folders whose files make the context: [folder on disk, path inside the context]. */
  folders: Array<[string, string]>;
  buildArgs: Record<string, string>;
  labels: Record<string, string>;
}

interface ContextEntry {
  name: string;
  path: string;
  mode: number;
  link?: string;
}

/** Walks a folder with lstat so symlinks (node_modules/.bin) stay links and modes are kept. */
function contextEntries(dir: string, prefix: string): ContextEntry[] {
  const out: ContextEntry[] = [];
  const walk = (d: string, rel: string): void => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name);
      const entryRel = rel ? `${rel}/${name}` : name;
      const st = lstatSync(path);
      const contextName = prefix ? `${prefix}/${entryRel}` : entryRel;
      if (st.isSymbolicLink()) out.push({ name: contextName, path, mode: 0o777, link: readlinkSync(path) });
      else if (st.isDirectory()) walk(path, entryRel);
      else if (st.isFile()) out.push({ name: contextName, path, mode: st.mode & 0o777 });
    }
  };
  walk(dir, "");
  return out;
}

function contextStream(folders: Array<[string, string]>): Readable {
  const pack = tarPack();
  void (async () => {
    try {
      for (const [dir, prefix] of folders) {
        for (const entry of contextEntries(dir, prefix)) {
          await new Promise<void>((resolve, reject) => {
            const done = (err?: Error | null): void => (err ? reject(err) : resolve());
            if (entry.link !== undefined) {
              pack.entry({ name: entry.name, type: "symlink", linkname: entry.link, mode: entry.mode }, done);
              return;
            }
            const body = readFileSync(entry.path);
            pack.entry({ name: entry.name, size: body.length, mode: entry.mode }, body, done);
          });
        }
      }
      pack.finalize();
    } catch (err) {
      pack.destroy(err as Error);
    }
  })();
  // tar-stream packs are streamx streams; dockerode pipes a Node stream into its request.
  return Readable.from(pack);
}

export async function dockerBuild(docker: Docker, spec: BuildSpec, progress: Progress): Promise<void> {
  const stream = await docker.buildImage(contextStream(spec.folders), {
    t: spec.tag,
    buildargs: spec.buildArgs,
    labels: spec.labels,
    rm: true,
    forcerm: true,
  });
  await new Promise<void>((resolve, reject) => {
    let failure: string | undefined;
    docker.modem.followProgress(
      stream,
      (err: Error | null) => {
        if (err) reject(err);
        else if (failure) reject(new Error(failure));
        else resolve();
      },
      (event: { stream?: string; error?: string; status?: string }) => {
        if (event.error) failure = event.error;
        for (const line of (event.stream ?? event.status ?? event.error ?? "").split("\n")) progress.detail(line);
      },
    );
  });
}
