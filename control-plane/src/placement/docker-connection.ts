// The one place that makes a client of a Docker engine, so every caller gets the same clear error when
// none answers, and every client refuses to follow a redirect.
import type { RequestOptions } from "node:http";
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

/** docker-modem's per-request hook: its options go to its own follow-redirects wrapper of http(s).request. */
type BuildRequest = (options: RequestOptions & { maxRedirects?: number }, ...rest: unknown[]) => void;

/**
 * A dockerode client whose requests never follow a redirect. docker-modem follows a 3xx by default
 * (up to 5, to any host the Location names) with a request that has no `error` listener: an engine
 * that answers 301 — dockerd does for a path with `..` in it — would make the control plane dial an
 * address of the answer's choosing, and a refused connection there would end the process. With
 * `maxRedirects` 0 the 3xx is the call's answer (an error), and nothing else is dialled.
 */
export function engineClient(options?: Docker.DockerOptions): Docker {
  const docker = options ? new Docker(options) : new Docker();
  const modem = docker.modem as unknown as { buildRequest: BuildRequest };
  const build = modem.buildRequest.bind(modem);
  modem.buildRequest = (requestOptions, ...rest) => build({ ...requestOptions, maxRedirects: 0 }, ...rest);
  return docker;
}

export async function connectDocker(): Promise<Docker> {
  const docker = engineClient();
  try {
    await docker.ping();
  } catch (err) {
    throw new DockerUnavailableError(err instanceof Error ? err.message : String(err));
  }
  return docker;
}
