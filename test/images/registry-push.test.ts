// `enclave images push` against a real registry (Debian's docker-registry on loopback): the image is
// pushed by content tag and its digest recorded; with the registry tag gone the engine pulls it back
// by that digest and gets the same image; the SBOM is in the registry as NAME:TAG.sbom, labelled with
// the image's digest, holding the stored SBOM's bytes.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { extract as tarExtract } from "tar-stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@enclave/control-plane/config.js";
import type { ConversationRecord } from "@enclave/control-plane/model/conversation.js";
import { EnclaveError } from "@enclave/control-plane/errors.js";
import { DockerDriver } from "@enclave/control-plane/placement/docker-driver.js";
import { connectDocker } from "@enclave/control-plane/placement/docker-connection.js";
import { builtImages } from "@enclave/images/image-describe.js";
import { readRecord, sbomPath } from "@enclave/control-plane/image-set/image-records.js";
import { imageTags } from "@enclave/control-plane/image-set/image-tags.js";
import { silentProgress } from "@enclave/images/progress.js";
import { ensurePinnedImage, registryImageReference } from "@enclave/control-plane/image-set/registry-pull.js";
import { ANY_IMAGE } from "@enclave/control-plane/placement/image-access.js";
import { checkRegistry, pushImage, SBOM_SUBJECT_LABEL } from "@enclave/images/registry-push.js";
import { type LocalRegistry, startLocalRegistry } from "../helpers/local-registry.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";

const MANIFEST_TYPES = "application/vnd.docker.distribution.manifest.v2+json, application/vnd.oci.image.manifest.v1+json";

async function fileFromLayer(layer: Buffer, name: string): Promise<string | undefined> {
  const tar = gunzipSync(layer);
  const ex = tarExtract();
  let found: string | undefined;
  const done = new Promise<void>((resolve, reject) => {
    ex.on("entry", (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on("data", (c: unknown) => chunks.push(c as Buffer));
      stream.on("end", () => {
        if (header.name.replace(/^\.?\//, "") === name) found = Buffer.concat(chunks).toString("utf8");
        next();
      });
    });
    ex.on("finish", () => resolve());
    ex.on("error", reject);
  });
  ex.end(tar);
  await done;
  return found;
}

describe("images push to a real registry", () => {
  let registry: LocalRegistry;
  const root = mkdtempSync(join(tmpdir(), "enclave-push-"));
  const cleanups: string[] = [];
  beforeAll(async () => {
    registry = await startLocalRegistry();
  });
  afterAll(async () => {
    const docker = await connectDocker();
    for (const ref of cleanups)
      await docker
        .getImage(ref)
        .remove({ noprune: true })
        .catch(() => undefined);
    await registry?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("pushes by content tag, records the digest, pulls back by digest, and carries the SBOM", async () => {
    const docker = await connectDocker();
    // The base image: the smallest the pipeline builds, so the push stays quick.
    const base = (await builtImages(docker)).find((i) => i.ref === imageTags().base);
    expect(base, "the base image is built (make images)").toBeDefined();
    if (!base) return;
    const pushed = await pushImage(docker, base, registry.address, silentProgress, root);
    const [name, tag] = base.ref.split(":");
    expect(pushed.reference).toBe(`${registry.address}/${name}:${tag}`);
    expect(readRecord(base.ref, root)?.pushed[registry.address]).toEqual(pushed);

    // The registry serves that tag under the recorded digest.
    const head = await fetch(`http://${registry.address}/v2/${name}/manifests/${tag}`, { method: "HEAD", headers: { Accept: MANIFEST_TYPES } });
    expect(head.status).toBe(200);
    expect(head.headers.get("docker-content-digest")).toBe(pushed.digest);

    // The push left no registry-named tag behind; the engine pulls the image back by digest.
    const pinned = registryImageReference(base.ref, registry.address, root);
    expect(pinned).toBe(`${registry.address}/${name}@${pushed.digest}`);
    cleanups.push(pinned);
    await expect(docker.getImage(`${registry.address}/${name}:${tag}`).inspect()).rejects.toMatchObject({ statusCode: 404 });
    await docker
      .getImage(pinned)
      .remove({ noprune: true })
      .catch(() => undefined);
    await ensurePinnedImage(docker, pinned, registry.address);
    const pulled = await docker.getImage(pinned).inspect();
    expect(pulled.Id).toBe((await docker.getImage(base.ref).inspect()).Id);
    expect(pulled.RepoDigests).toContain(pinned);

    // The SBOM tag: one layer holding the stored SBOM, labelled with the image's digest.
    const sbomRes = await fetch(`http://${registry.address}/v2/${name}/manifests/${tag}.sbom`, { headers: { Accept: MANIFEST_TYPES } });
    expect(sbomRes.headers.get("docker-content-digest")).toBe(pushed.sbomDigest);
    const manifest = (await sbomRes.json()) as { config: { digest: string }; layers: Array<{ digest: string }> };
    expect(manifest.layers).toHaveLength(1);
    const config = (await (await fetch(`http://${registry.address}/v2/${name}/blobs/${manifest.config.digest}`)).json()) as {
      config: { Labels: Record<string, string> };
    };
    expect(config.config.Labels[SBOM_SUBJECT_LABEL]).toBe(pinned);
    const layer = Buffer.from(await (await fetch(`http://${registry.address}/v2/${name}/blobs/${manifest.layers[0]?.digest}`)).arrayBuffer());
    expect(await fileFromLayer(layer, "sbom.cdx.json")).toBe(readFileSync(sbomPath(base.ref, root), "utf8"));
  });

  it("with ENCLAVE_IMAGE_REGISTRY set, the driver runs the pinned reference and refuses an image never pushed there", async () => {
    const docker = await connectDocker();
    const config = loadConfig();
    const driver = new DockerDriver({
      docker,
      agentBundleDir: config.agentBundleDir,
      defaults: { ...config.enclosure, imageRegistry: "127.0.0.1:1" },
      socketRoot: root,
      owner: "imgpipe-test",
    });
    const conv = { id: "imgpipe-registry", workspacePath: root } as ConversationRecord;
    const refused = await driver.start(conv, {}, ANY_IMAGE, config.enclosure.uids.base).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(EnclaveError);
    expect((refused as EnclaveError).code).toBe("placement_unavailable");
    // placement_unavailable has other causes (no engine, no image): the text says which and what to run.
    await expectTranscript((refused as EnclaveError).message, "transcripts/registry-push/never-pushed.txt", [
      [/\benclave-runtime:[\w.-]+/g, "enclave-runtime:<tag>"],
    ]);
  });

  it("an image never pushed there, or a registry that is not HOST:PORT, is a clear error", () => {
    expect(() => registryImageReference(imageTags().runtime, "127.0.0.1:1", root)).toThrow(EnclaveError);
    expect(() => registryImageReference(imageTags().runtime, "127.0.0.1:1", root)).toThrow(expect.objectContaining({ code: "placement_unavailable" }));
    for (const bad of ["http://127.0.0.1:5000", "127.0.0.1:5000/x", "", "a b"]) {
      expect(() => checkRegistry(bad), bad).toThrow(expect.objectContaining({ code: "invalid_arguments" }));
    }
  });
});
