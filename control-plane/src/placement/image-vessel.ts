// Reading files out of an image without running anything of it: a container made from the image and
// never started (the engine still wants a command), removed with the anonymous volumes the engine
// made and filled for each VOLUME of the image.
import type Docker from "dockerode";
import { extract } from "tar-stream";

export async function withImageVessel<T>(docker: Docker, image: string, read: (vessel: Docker.Container) => Promise<T>): Promise<T> {
  const vessel = await docker.createContainer({
    Image: image,
    Entrypoint: ["/nonexistent"],
    NetworkDisabled: true,
    HostConfig: { NetworkMode: "none" },
  });
  try {
    return await read(vessel);
  } finally {
    await vessel.remove({ force: true, v: true }).catch(() => undefined);
  }
}

export type VesselEntry = { kind: "file"; bytes: Buffer } | { kind: "link"; target: string } | { kind: "other" };

/**
 * The first entry of `path`'s archive in the vessel: a regular file's bytes (at most `maxBytes`;
 * a larger one is `other`), a link's target, or neither. Reading stops there: the image decides
 * what the archive holds. A path the image lacks rejects.
 */
export async function readVesselEntry(vessel: Docker.Container, path: string, maxBytes: number): Promise<VesselEntry> {
  const archive = (await vessel.getArchive({ path })) as NodeJS.ReadableStream & { destroy?: () => void };
  const ex = extract();
  const entry = await new Promise<VesselEntry>((resolve, reject) => {
    ex.on("entry", (header, stream) => {
      if (header.type === "symlink") return resolve({ kind: "link", target: header.linkname ?? "" });
      if (header.type !== "file" || (header.size ?? 0) > maxBytes) return resolve({ kind: "other" });
      const chunks: Buffer[] = [];
      stream.on("data", (c: unknown) => {
        if (Buffer.isBuffer(c)) chunks.push(c);
      });
      stream.on("end", () => resolve({ kind: "file", bytes: Buffer.concat(chunks) }));
      stream.on("error", reject);
    });
    ex.on("finish", () => resolve({ kind: "other" }));
    ex.on("error", reject);
    archive.on("error", reject);
    archive.pipe(ex as unknown as NodeJS.WritableStream);
  });
  archive.destroy?.();
  ex.destroy();
  return entry;
}
