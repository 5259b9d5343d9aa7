// Reading files out of an image without running anything of it: a container made from the image and
// never started (the engine still wants a command), removed with the anonymous volumes the engine
// made and filled for each VOLUME of the image.
import type Docker from "dockerode";

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
