// The images a dev container build may start from: already on the engine (a build never pulls) and
// allowed by policy. Checked before the build is sent, so a refused base costs the engine nothing
// and no registry is ever dialled because a workspace file named it.
import type Docker from "dockerode";
import { EnclaveError } from "../errors.js";
import type { DockerfileFetches } from "./dockerfile-bases.js";

// Docker's reference grammar (distribution/reference), enough to know the string is one before it
// goes into an engine URL.
const COMPONENT = "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*";
const DOMAIN = "(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\\.(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?))*(?::[0-9]+)?";
const REFERENCE = new RegExp(`^(?:${DOMAIN}/)?${COMPONENT}(?:/${COMPONENT})*(?::[\\w][\\w.-]{0,127})?(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?$`);

/**
 * Whether policy lets a build start from `ref`. Another conversation's built dev container is never a
 * base (it would read what another tenant built). One place, so an operator's image allow-list can
 * be asked here too.
 */
export function baseImageAllowed(ref: string, ownTag: string): boolean {
  const repo = ref.replace(/[:@].*$/, "");
  return repo !== "enclave-devcontainer" || ref === ownTag;
}

function refused(file: string, what: string): never {
  throw new EnclaveError("devcontainer_invalid", `${file}: ${what}`);
}

export async function checkBuildFetches(docker: Docker, file: string, fetches: DockerfileFetches, ownTag: string): Promise<void> {
  for (const url of fetches.urls) refused(file, `ADD ${url}: a build fetches nothing from the network; put the file in the build context`);
  for (const ref of fetches.images) {
    if (ref.length > 255 || !REFERENCE.test(ref)) refused(file, `base image \`${ref}\` is not an image reference`);
    if (!baseImageAllowed(ref, ownTag)) refused(file, `base image \`${ref}\` is not allowed: a build starts only from images this engine holds for every tenant`);
    const present = await docker
      .getImage(ref)
      .inspect()
      .then(
        () => true,
        (err: { statusCode?: number }) => {
          if (err.statusCode === 404) return false;
          throw err;
        },
      );
    if (!present) refused(file, `base image \`${ref}\` is not on this engine, and builds never pull: an operator loads it first (docker pull or load)`);
  }
}
