// The images a dev container build may start from: references in Docker's grammar
// (image-reference.ts), allowed by the start's image rule as a workspace-named image
// (image-access.ts), and already on the engine, since a build never pulls. Checked before the build
// is sent, so a refused base costs the engine nothing and no registry is ever dialled because a
// workspace file named it. A base the rule refuses answers exactly as a missing one.
import type Docker from "dockerode";
import { EnclaveError } from "../errors.js";
import type { DockerfileFetches } from "./dockerfile-bases.js";
import { type ImageNamedBy, noSuchImage } from "./image-access.js";
import { parseImageReference } from "./image-reference.js";

function refused(file: string, what: string): never {
  throw new EnclaveError("devcontainer_invalid", `${file}: ${what}`);
}

export async function checkBuildFetches(
  docker: Docker,
  file: string,
  fetches: DockerfileFetches,
  /** The start's image rule (throws as for a missing image). */
  checkImage: (image: string, namedBy: ImageNamedBy) => void,
): Promise<void> {
  for (const url of fetches.urls) refused(file, `ADD ${url}: a build fetches nothing from the network; put the file in the build context`);
  for (const ref of fetches.images) {
    const parsed = parseImageReference(ref);
    if ("invalid" in parsed) refused(file, `base image ${JSON.stringify(ref.slice(0, 80))} is not an image reference: ${parsed.invalid}`);
    checkImage(ref, "workspace");
    const triggers = await docker
      .getImage(ref)
      .inspect()
      .then(
        (info: { Config?: { OnBuild?: string[] | null } }) => info.Config?.OnBuild ?? [],
        (err: { statusCode?: number }) => {
          if (err.statusCode === 404) return undefined;
          throw err;
        },
      );
    if (triggers === undefined) throw noSuchImage(ref);
    // A base's ONBUILD triggers would run in this build unread (an ADD of a URL, a COPY --from).
    if (triggers.length > 0) refused(file, `base image ${JSON.stringify(ref.slice(0, 80))} carries ONBUILD triggers; a dev container build runs none`);
  }
}
