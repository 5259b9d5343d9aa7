// `enclave images push --registry HOST:PORT`: each built image goes to the registry under its content
// tag, and the manifest digest the registry answers is recorded. Its SBOM goes with it as a separate
// tag, NAME:TAG.sbom: a one-file image (FROM scratch, /sbom.cdx.json) labelled with the digest of the
// image it describes. A referrers-API artifact would be the newer form, but distribution 2.8 (Debian's
// docker-registry) has no referrers API, and a plain tag works with every registry.
import { mkdtempSync, rmSync, writeFileSync, copyFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Docker from "dockerode";
import { EnclaveError } from "@enclave/control-plane/errors.js";
import { dockerBuild } from "./docker-build.js";
import { type BuiltImage, describeImage } from "./image-describe.js";
import { imageRecordsDir, type PushRecord, sbomPath, splitReference, writeRecord } from "@enclave/control-plane/image-set/image-records.js";
import type { Progress } from "./progress.js";

export const SBOM_TAG_SUFFIX = ".sbom";
export const SBOM_SUBJECT_LABEL = "org.enclave.sbom.subject";

/** host:port (or a bare host name) as Docker accepts a registry; nothing with a path or a scheme. */
export function checkRegistry(registry: string): string {
  if (!/^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*(?::\d{1,5})?$/.test(registry)) {
    throw new EnclaveError("invalid_arguments", `--registry \`${registry}\` is not HOST or HOST:PORT (no scheme, no path), such as 127.0.0.1:5000`);
  }
  return registry;
}

/** Pushes a tag and returns the manifest digest the engine reports for it. */
async function pushTag(docker: Docker, repo: string, tag: string, progress: Progress): Promise<string> {
  const stream = await docker.getImage(`${repo}:${tag}`).push({ tag, authconfig: {} });
  let digest: string | undefined;
  let failure: string | undefined;
  await new Promise<void>((resolve, reject) => {
    docker.modem.followProgress(
      stream,
      (err: Error | null) => (err ? reject(err) : resolve()),
      (event: { status?: string; error?: string; aux?: { Tag?: string; Digest?: string } }) => {
        if (event.error) failure = event.error;
        if (event.aux?.Digest && event.aux.Tag === tag) digest = event.aux.Digest;
        if (event.status) progress.detail(event.status);
      },
    );
  });
  if (failure) throw new EnclaveError("failed", `pushing ${repo}:${tag} failed: ${failure}`);
  if (!digest || !/^sha256:[0-9a-f]{64}$/.test(digest)) throw new EnclaveError("failed", `the engine reported no manifest digest for ${repo}:${tag}`);
  return digest;
}

/** Removes a registry-named tag made for a push; the image itself stays under its local name. */
async function untag(docker: Docker, ref: string): Promise<void> {
  await docker
    .getImage(ref)
    .remove({ noprune: true })
    .catch(() => undefined);
}

export async function pushImage(docker: Docker, image: BuiltImage, registry: string, progress: Progress, root = imageRecordsDir): Promise<PushRecord> {
  checkRegistry(registry);
  const { record } = await describeImage(docker, image, progress, root);
  const { name, tag } = splitReference(image.ref);
  const repo = `${registry}/${name}`;
  progress.step(`pushing ${image.ref} to ${repo}:${tag}`);
  await docker.getImage(image.ref).tag({ repo, tag });
  let digest: string;
  try {
    digest = await pushTag(docker, repo, tag, progress);
  } finally {
    await untag(docker, `${repo}:${tag}`);
  }
  progress.done(`${repo}@${digest}`);

  const sbomTag = `${tag}${SBOM_TAG_SUFFIX}`;
  progress.step(`pushing its SBOM as ${repo}:${sbomTag}`);
  const context = mkdtempSync(join(tmpdir(), "enclave-sbom-image-"));
  let sbomDigest: string;
  try {
    copyFileSync(sbomPath(image.ref, root), join(context, "sbom.cdx.json"));
    writeFileSync(join(context, "Dockerfile"), "FROM scratch\nCOPY sbom.cdx.json /sbom.cdx.json\n");
    await dockerBuild(
      docker,
      {
        tag: `${repo}:${sbomTag}`,
        folders: [[context, ""]],
        buildArgs: {},
        labels: {
          [SBOM_SUBJECT_LABEL]: `${repo}@${digest}`,
          "org.enclave.sbom.format": "CycloneDX 1.5 JSON",
          "org.opencontainers.image.title": `SBOM of ${name}:${tag}`,
        },
      },
      progress,
    );
    sbomDigest = await pushTag(docker, repo, sbomTag, progress);
  } finally {
    rmSync(context, { recursive: true, force: true });
    await untag(docker, `${repo}:${sbomTag}`);
  }
  progress.done(`${repo}@${sbomDigest}`);

  const pushed: PushRecord = { reference: `${repo}:${tag}`, digest, sbomReference: `${repo}:${sbomTag}`, sbomDigest };
  record.pushed = { ...record.pushed, [registry]: pushed };
  writeRecord(record, root);
  return pushed;
}
