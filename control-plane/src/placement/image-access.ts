// Which images an enclosure start may name. A plain tenant may start the images the operator allows
// (ENCLAVE_ALLOWED_IMAGES), Enclave's own, and its own dev-container builds; an operator (or the
// implicit tenant of a control plane without tokens) any image already on the engine. A workspace's
// devcontainer.json is the tenant's words whoever starts it: it gets the conversation's tenant's
// rule. An image outside the rule answers exactly as an image the engine lacks, so naming one
// tells nothing of what another tenant built. Nothing here pulls: a name is only looked up.
import { IMPLICIT_TENANT } from "../tenants/implicit-tenant.js";
import { EnclaveError } from "../errors.js";
import { quoted } from "../text/wording.js";
import { canonicalImage } from "./image-reference.js";

/** Who names the image: the caller's own `image` option, or the workspace's devcontainer.json. */
export type ImageNamedBy = "caller" | "workspace";

export interface ImageAccess {
  /** The caller's `image` may be any image on the engine (an operator, or the implicit tenant). */
  callerMayNameAny: boolean;
  /** The workspace's devcontainer.json may name any image (the implicit tenant's workspaces). */
  workspaceMayNameAny: boolean;
  /** The tags of the conversation's tenant's own dev-container builds. */
  ownBuilds: readonly string[];
  /** Told of each image refused by the rule (for the audit log; the caller hears only "missing"). */
  refused?: (image: string, namedBy: ImageNamedBy) => void;
}

/** Who starts the enclosure: an operator (or the implicit tenant), or a plain tenant. */
export interface EnclosureCaller {
  operator: boolean;
}

/**
 * The rule for a start in a conversation of `tenant`: an operator's own `image` is any image; the
 * workspace's only in the implicit tenant's conversations; the tenant's own builds are `ownBuilds`.
 */
export function imageAccessFor(tenant: string, caller: EnclosureCaller, ownBuilds: readonly string[], refused?: ImageAccess["refused"]): ImageAccess {
  const implicit = tenant === IMPLICIT_TENANT;
  return { callerMayNameAny: caller.operator || implicit, workspaceMayNameAny: implicit, ownBuilds, ...(refused ? { refused } : {}) };
}

/** What the implicit tenant (no tokens) gets: any image on the engine, still never pulled. */
export const ANY_IMAGE: ImageAccess = { callerMayNameAny: true, workspaceMayNameAny: true, ownBuilds: [] };

/**
 * The answer for an image the engine does not have, and the same for one the caller may not name:
 * one code, one message.
 */
export function noSuchImage(image: string): EnclaveError {
  return new EnclaveError(
    "image_unusable",
    `image ${quoted(image)} is not on this Docker engine: build it under that name (docker build -t …) or load it (docker load) first; enclosures never pull`,
  );
}

/**
 * The images any tenant may name: the operator's allow-list and Enclave's own, compared in their
 * canonical form (`python` and `docker.io/library/python:latest` are one image).
 */
export class ImageRule {
  private readonly allowed: Set<string>;

  constructor(
    operatorAllowed: readonly string[],
    /** Enclave's own images as this engine runs them; asked only when nothing else matched (it may hash the agent bundle). */
    private readonly enclaveOwn: () => readonly string[],
  ) {
    this.allowed = canonicalSet(operatorAllowed);
  }

  mayStart(image: string, namedBy: ImageNamedBy, access: ImageAccess): boolean {
    if (namedBy === "caller" ? access.callerMayNameAny : access.workspaceMayNameAny) return true;
    const wanted = canonicalImage(image);
    if (wanted === undefined) return false;
    return this.allowed.has(wanted) || canonicalSet(access.ownBuilds).has(wanted) || canonicalSet(this.enclaveOwn()).has(wanted);
  }

  /** Refuses, as a missing image, one outside the rule. */
  check(image: string, namedBy: ImageNamedBy, access: ImageAccess): void {
    if (this.mayStart(image, namedBy, access)) return;
    access.refused?.(image, namedBy);
    throw noSuchImage(image);
  }
}

function canonicalSet(refs: readonly string[]): Set<string> {
  return new Set(refs.map(canonicalImage).filter((c): c is string => c !== undefined));
}

/** ENCLAVE_ALLOWED_IMAGES: references separated by commas or white space, each in Docker's grammar. */
export function parseAllowedImages(raw: string, where: string): string[] {
  const list = raw.split(/[\s,]+/).filter(Boolean);
  for (const ref of list) {
    if (canonicalImage(ref) === undefined) throw new Error(`${where}: \`${ref}\` is not an image reference (NAME[:TAG][@DIGEST])`);
  }
  return list;
}
