// `docker build` through the engine from a tar stream: everything a build runs, runs in the engine's
// builder, never on this host. Output is kept only as a bounded tail, for the error that says why a
// build failed.
import type { Readable } from "node:stream";
import type Docker from "dockerode";
import { EnclaveError, type EnclaveErrorCode } from "../errors.js";

export interface EngineBuild {
  tag: string;
  /** The Dockerfile's path inside the context. */
  dockerfile?: string;
  buildArgs?: Record<string, string>;
  labels?: Record<string, string>;
  target?: string;
  /** "none" keeps RUN steps off every network. */
  networkMode: string;
  memoryBytes?: number;
  /** A cgroup (v1, cgroupfs) the build's RUN containers are made below (build-cgroup.ts). */
  cgroupParent?: string;
  /** The code a failed build is reported with. */
  failureCode: EnclaveErrorCode;
  /** What is being built, for the error. */
  what: string;
  /** The build is cancelled (the engine stops it when its client goes) past this long. */
  timeoutMs: number;
}

const TAIL_LINES = 30;
const LINE_CHARS = 400;

export async function engineBuild(docker: Docker, context: Readable, b: EngineBuild): Promise<void> {
  const abort = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, b.timeoutMs);
  try {
    await run(docker, context, b, abort.signal);
  } catch (err) {
    if (timedOut) throw new EnclaveError(b.failureCode, `building ${b.what} did not finish within ${Math.round(b.timeoutMs / 1000)} s; it was cancelled`);
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

async function run(docker: Docker, context: Readable, b: EngineBuild, abortSignal: AbortSignal): Promise<void> {
  let stream: NodeJS.ReadableStream;
  try {
    stream = await docker.buildImage(context, {
      abortSignal,
      t: b.tag,
      ...(b.dockerfile ? { dockerfile: b.dockerfile } : {}),
      ...(b.buildArgs ? { buildargs: b.buildArgs } : {}),
      ...(b.labels ? { labels: b.labels } : {}),
      ...(b.target ? { target: b.target } : {}),
      ...(b.memoryBytes ? { memory: b.memoryBytes, memswap: b.memoryBytes } : {}),
      ...(b.cgroupParent ? { cgroupparent: b.cgroupParent } : {}),
      networkmode: b.networkMode,
      // Never pull: a base not on the engine fails (bases are checked before, build-bases.ts).
      pull: false,
      rm: true,
      forcerm: true,
    });
  } catch (err) {
    throw new EnclaveError(b.failureCode, `the engine refused to build ${b.what}: ${(err as Error).message.slice(0, LINE_CHARS)}`);
  }
  const tail: string[] = [];
  await new Promise<void>((resolve, reject) => {
    let failure: string | undefined;
    docker.modem.followProgress(
      stream,
      (err: Error | null) => {
        const why = failure ?? err?.message;
        if (why) reject(new EnclaveError(b.failureCode, `building ${b.what} failed: ${why.slice(0, LINE_CHARS)}\n${tail.join("\n")}`));
        else resolve();
      },
      (event: { stream?: string; error?: string; status?: string }) => {
        if (event.error) failure = event.error;
        for (const line of (event.stream ?? event.status ?? "").split("\n")) {
          if (!line.trim()) continue;
          tail.push(line.slice(0, LINE_CHARS));
          if (tail.length > TAIL_LINES) tail.shift();
        }
      },
    );
  });
}
