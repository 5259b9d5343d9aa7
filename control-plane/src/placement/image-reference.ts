// Image references as Docker reads them: the grammar of distribution/reference (reference.go,
// regexp.go) and the normalisation of ParseNormalizedNamed, as the engine here (Docker 20.10) applies
// them. Every image a caller or a workspace file names is parsed here before any engine call: the
// engine puts the raw string into its URL, so anything outside the grammar (`..`, `%`, `?`) could
// steer the request itself.
//
//   reference   := name [ ":" tag ] [ "@" digest ]
//   name        := [ domain "/" ] path-component [ "/" path-component ]*     (at most 255 characters)
//   domain      := host [ ":" port-number ]
//   host        := domain-name | "[" IPv6 "]"
//   domain-name := domain-component [ "." domain-component ]*
//   domain-component := /([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])/
//   path-component   := /[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*/
//   tag         := /[\w][\w.-]{0,127}/
//   digest      := algorithm ":" hex  (sha256: 64, sha384: 96, sha512: 128 lowercase hex digits)
import { EnclaveError } from "../errors.js";

export interface ImageReference {
  /** The registry (HOST[:PORT]) as written; "" when the name has none (Docker Hub). */
  domain: string;
  /** The repository path below the domain. */
  path: string;
  /** "" when none is written. */
  tag: string;
  /** algorithm:hex, or "" when none is written. */
  digest: string;
}

/** The grammar's own bounds: a name, a tag and the longest digest (sha512). */
const NAME_MAX_CHARS = 255;
const REFERENCE_MAX_CHARS = NAME_MAX_CHARS + 1 + 128 + 1 + "sha512:".length + 128;

const PATH_COMPONENT = "[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*";
const DOMAIN_COMPONENT = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const HOST = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[a-fA-F0-9:]+\\])`;
const DOMAIN = `${HOST}(?::[0-9]+)?`;
const TAG = "[\\w][\\w.-]{0,127}";
const DIGEST = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}";
/** The whole reference: name (any case, so that uppercase is reported as such), tag, digest. */
const REFERENCE_RE = new RegExp(
  `^((?:${DOMAIN}/)?[a-zA-Z0-9]+(?:(?:[._]|__|[-]+)[a-zA-Z0-9]+)*(?:/[a-zA-Z0-9]+(?:(?:[._]|__|[-]+)[a-zA-Z0-9]+)*)*)(?::(${TAG}))?(?:@(${DIGEST}))?$`,
);
const PATH_RE = new RegExp(`^${PATH_COMPONENT}(?:/${PATH_COMPONENT})*$`);
/** What an image id looks like: Docker refuses it as a name, so that a name never reads as an id. */
const IDENTIFIER_RE = /^[a-f0-9]{64}$/;
const DIGEST_HEX: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };

const DEFAULT_DOMAIN = "docker.io";
const LEGACY_DEFAULT_DOMAIN = "index.docker.io";
const OFFICIAL_REPO_PREFIX = "library/";

/**
 * The first component is a registry when it holds '.' or ':' or is localhost (docker's
 * splitDockerDomain); else the whole name is a path on Docker Hub.
 */
function splitDomain(name: string): { domain: string; path: string } {
  const i = name.indexOf("/");
  if (i < 0) return { domain: "", path: name };
  const first = name.slice(0, i);
  if (/[.:]/.test(first) || first === "localhost") return { domain: first, path: name.slice(i + 1) };
  return { domain: "", path: name };
}

function digestProblem(digest: string): string {
  const [algorithm = "", hex = ""] = digest.split(":");
  const want = DIGEST_HEX[algorithm];
  if (want === undefined) return `digest algorithm \`${algorithm}\` is not one of sha256, sha384, sha512`;
  if (hex.length !== want || !/^[a-f0-9]+$/.test(hex)) return `a ${algorithm} digest is ${want} lowercase hex digits`;
  return "";
}

/** The reference's parts, or why it is not one (a sentence). Pure: no engine is asked. */
export function parseImageReference(text: string): ImageReference | { invalid: string } {
  if (text === "") return { invalid: "it is empty" };
  if (text.length > REFERENCE_MAX_CHARS) return { invalid: `it is longer than ${REFERENCE_MAX_CHARS} characters` };
  if (IDENTIFIER_RE.test(text)) return { invalid: "64 hexadecimal digits name an image id, not a repository" };
  const m = REFERENCE_RE.exec(text);
  if (!m)
    return {
      invalid:
        "it is not NAME[:TAG][@DIGEST] in Docker's reference grammar (lowercase path components of letters, digits and single separators, an optional HOST[:PORT]/ first)",
    };
  const name = m[1] ?? "";
  const tag = m[2] ?? "";
  const digest = m[3] ?? "";
  if (name.length > NAME_MAX_CHARS) return { invalid: `its name is longer than ${NAME_MAX_CHARS} characters` };
  const { domain, path } = splitDomain(name);
  if (!PATH_RE.test(path)) return { invalid: /[A-Z]/.test(path) ? "its repository name must be lowercase" : "its repository name is not valid" };
  if (digest) {
    const problem = digestProblem(digest);
    if (problem) return { invalid: problem };
  }
  return { domain, path, tag, digest };
}

/** The parsed reference, or invalid_arguments naming `what` (e.g. "image", "devcontainer.json's `image`"). */
export function checkImageReference(text: string, what: string): ImageReference {
  const parsed = parseImageReference(text);
  if ("invalid" in parsed) {
    const shown = text.length > 80 ? `${JSON.stringify(text.slice(0, 80))}…` : JSON.stringify(text);
    throw new EnclaveError("invalid_arguments", `${what} ${shown} is not an image reference: ${parsed.invalid}`);
  }
  return parsed;
}

/**
 * The fully qualified form the engine stores a name under (docker.io/library/NAME:latest for
 * `NAME`), so that two spellings of one image compare equal.
 */
export function canonicalImageReference(ref: ImageReference): string {
  const domain = !ref.domain || ref.domain === LEGACY_DEFAULT_DOMAIN ? DEFAULT_DOMAIN : ref.domain;
  const path = domain === DEFAULT_DOMAIN && !ref.path.includes("/") ? `${OFFICIAL_REPO_PREFIX}${ref.path}` : ref.path;
  const tag = ref.tag || (ref.digest ? "" : "latest");
  return `${domain}/${path}${tag ? `:${tag}` : ""}${ref.digest ? `@${ref.digest}` : ""}`;
}

/** The canonical form of a reference text, or undefined when it is not one. */
export function canonicalImage(text: string): string | undefined {
  const parsed = parseImageReference(text);
  return "invalid" in parsed ? undefined : canonicalImageReference(parsed);
}
