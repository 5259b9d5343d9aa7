// Engines that did not build the images (a remote engine) run them from a registry, pulled by the
// digest the push recorded: registry/name@sha256:… names exactly the bytes that were built and
// verified, where a tag could have been moved since. The engine checks the pulled manifest against
// the digest itself.
import type Docker from "dockerode";
import { EnclaveError } from "../errors.js";
import { parseImageReference } from "../placement/image-reference.js";
import { imageRecordsDir, pinnedReference } from "./image-records.js";

const PINNED = /^[^@\s]+\/[^@\s]+@sha256:[0-9a-f]{64}$/;

export function isPinnedReference(ref: string): boolean {
  return PINNED.test(ref);
}

/**
 * The image reference to run for a locally built image when enclosures take their images from
 * `registry`: registry/name@sha256:… from the push record. Fails with a clear error when the image
 * was never pushed there.
 */
export function registryImageReference(localRef: string, registry: string, root = imageRecordsDir): string {
  const pinned = pinnedReference(localRef, registry, root);
  if (!pinned) {
    throw new EnclaveError(
      "placement_unavailable",
      `${localRef} has not been pushed to ${registry}: run \`enclave images push --registry ${registry}\` where it was built`,
    );
  }
  return pinned;
}

/**
 * Pulls a digest-pinned reference at the operator's `registry` when the engine lacks it; anything
 * else (another registry, a tag) is left to the caller, which only looks it up. The caller passes
 * only Enclave's own images here: a pull makes the engine dial the reference's registry.
 */
export async function ensurePinnedImage(docker: Docker, ref: string, registry: string): Promise<void> {
  const parsed = parseImageReference(ref);
  if (!registry || "invalid" in parsed || parsed.domain !== registry || !isPinnedReference(ref)) return;
  try {
    await docker.getImage(ref).inspect();
    return;
  } catch {
    // Not on this engine yet: pull it.
  }
  let failure: string | undefined;
  try {
    const stream = await docker.pull(ref, { authconfig: {} });
    await new Promise<void>((resolve, reject) =>
      docker.modem.followProgress(
        stream,
        (err: Error | null) => (err ? reject(err) : resolve()),
        (event: { error?: string }) => {
          if (event.error) failure = event.error;
        },
      ),
    );
  } catch (err) {
    failure = (err as Error).message;
  }
  if (failure) throw new EnclaveError("placement_unavailable", `pulling ${ref} failed: ${failure}`);
}
