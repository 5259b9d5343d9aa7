// The one place that connects to a Docker engine, so every caller gets the same clear error when
// none answers.
import Docker from "dockerode";

export class DockerUnavailableError extends Error {
  constructor(cause: string) {
    super(
      `no Docker engine answers (${cause}). Start one: \`make docker\` installs and starts it on this ` +
        `machine, or set DOCKER_HOST to a running engine. Host placement works without Docker.`,
    );
    this.name = "DockerUnavailableError";
  }
}

export async function connectDocker(): Promise<Docker> {
  const docker = new Docker();
  try {
    await docker.ping();
  } catch (err) {
    throw new DockerUnavailableError(err instanceof Error ? err.message : String(err));
  }
  return docker;
}
