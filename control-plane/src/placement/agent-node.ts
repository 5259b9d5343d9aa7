// The Node the agent runs on in Enclave's own images: the pinned official build (node-runtime.ts), the
// same one and the same read-only volume injected into users' images, rather than the image's Debian
// nodejs. Debian builds Node without V8's code cache for Node's own modules and without its start-up
// snapshot, so each start compiles Node's internals (http2, streams, the ESM loader) from source: on
// this machine the agent bundle loaded and listened in about 170 ms on the official 18.20.4 against about
// 400 ms on Debian's 18.20.4, most of a cold start's lead over a bare `docker run` (the official 24 LTS
// build that replaced it starts enclosures as fast: medians 335 ms against 405 ms, interleaved). Only the agent and
// the JavaScript kernels it starts use it (through ENCLAVE_NODE); the image's own `node` stays the one
// its PATH finds for the user's commands. When the pinned build cannot be had (no cached tarball and
// npm cannot fetch it) the agent runs on the image's Node as before, and the log says why.
import type Docker from "dockerode";
import { type Injection, nodeInjection } from "./agent-injection.js";

/** After a failed attempt, how long starts go without asking again (a fetch that fails is slow). */
const RETRY_AFTER_MS = 10 * 60_000;

let failedAtMs = Number.NEGATIVE_INFINITY;

export type AgentNode = Pick<Injection, "env" | "mounts">;

/** The injection that runs the agent of one of Enclave's own images on the pinned Node; undefined: the image's. */
export async function ownImageAgentNode(docker: Docker, log: (line: string) => void): Promise<AgentNode | undefined> {
  if (Date.now() - failedAtMs < RETRY_AFTER_MS) return undefined;
  try {
    // The image's environment is not needed: PATH is left as the image has it.
    const node = await nodeInjection(docker, { id: "", env: [], user: "", volumes: [] }, log);
    return { env: node.env.filter((e) => e.startsWith("ENCLAVE_NODE=")), mounts: node.mounts };
  } catch (err) {
    failedAtMs = Date.now();
    log(`enclave: the agent runs on the image's own Node (slower to start), since the pinned Node could not be prepared: ${(err as Error).message}`);
    return undefined;
  }
}
