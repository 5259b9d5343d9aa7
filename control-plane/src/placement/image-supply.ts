// Getting an enclosure's image onto an engine that lacks it. Images are built on the control plane's
// own engine (`make images`); a remote engine receives them through the engines' APIs: the source
// engine's `docker save` stream fed to the target's `docker load` — no registry and no shared
// filesystem needed. A registry-based supply (pull by digest) can take this one's place: the driver
// only sees the ImageSupply interface.
import type Docker from "dockerode";
import { imageExists } from "../image-set/image-tags.js";
import { EnclaveError } from "../errors.js";

export interface ImageSupply {
  /** Makes `image` present on `target` (named `engine` in errors), or fails with placement_unavailable. */
  ensure(target: Docker, image: string, engine: string): Promise<void>;
}

/** What a load stream's JSON lines may carry: progress, the result, or an error. */
interface LoadLine {
  stream?: string;
  error?: string;
  errorDetail?: { message?: string };
}

/** Reads a `docker load` response to its end; an error line fails the load. */
async function loadResult(stream: NodeJS.ReadableStream): Promise<string[]> {
  const lines: string[] = [];
  let buffered = "";
  let failure = "";
  for await (const chunk of stream as AsyncIterable<Buffer | string>) {
    buffered += chunk.toString();
    let nl;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      if (!line) continue;
      let parsed: LoadLine;
      try {
        parsed = JSON.parse(line) as LoadLine;
      } catch {
        continue;
      }
      if (parsed.error || parsed.errorDetail?.message) failure = parsed.error || parsed.errorDetail?.message || "";
      if (parsed.stream) lines.push(parsed.stream.trim());
    }
  }
  if (failure) throw new Error(failure);
  return lines;
}

/**
 * `docker save` on the source engine piped into `docker load` on the target. Concurrent starts on one
 * engine share one transfer per image; a failed one is tried afresh by the next start.
 */
export class SaveLoadSupply implements ImageSupply {
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(
    /** The engine the images are built on. */
    private readonly source: () => Promise<Docker>,
    private readonly log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  ) {}

  ensure(target: Docker, image: string, engine: string): Promise<void> {
    const key = `${engine}\n${image}`;
    let p = this.inFlight.get(key);
    if (!p) {
      p = this.transfer(target, image, engine).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, p);
    }
    return p;
  }

  private async transfer(target: Docker, image: string, engine: string): Promise<void> {
    if (await imageExists(target, image)) return;
    let source: Docker;
    try {
      source = await this.source();
    } catch (err) {
      throw new EnclaveError(
        "placement_unavailable",
        `image ${image} is not on engine \`${engine}\`, and the engine images are built on does not answer to send it: ${(err as Error).message}`,
      );
    }
    if (!(await imageExists(source, image))) {
      throw new EnclaveError(
        "placement_unavailable",
        `image ${image} is neither on engine \`${engine}\` nor built here: run \`make images\` (or \`enclave images build\`) first`,
      );
    }
    const started = Date.now();
    this.log(`engine ${engine}: sending image ${image} (docker save | docker load through the engines' APIs)`);
    try {
      const saved = (await source.getImage(image).get()) as NodeJS.ReadableStream;
      const loaded = (await target.loadImage(saved, { quiet: true })) as NodeJS.ReadableStream;
      // A failed save ends its stream with an error: make the load's reader fail too.
      saved.on("error", (err: Error) => (loaded as NodeJS.ReadableStream & { destroy?: (e: Error) => void }).destroy?.(err));
      await loadResult(loaded);
    } catch (err) {
      throw new EnclaveError("placement_unavailable", `image ${image} could not be sent to engine \`${engine}\`: ${(err as Error).message}`);
    }
    if (!(await imageExists(target, image))) {
      throw new EnclaveError("placement_unavailable", `engine \`${engine}\` loaded the image stream but has no ${image} afterwards`);
    }
    this.log(`engine ${engine}: image ${image} loaded in ${Math.round((Date.now() - started) / 1000)} s`);
  }
}
