// The SBOM step against the built images: an inventory read by running each image hardened, turned
// into CycloneDX 1.5 JSON whose shape is checked, the same bytes for the same image.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { connectDocker } from "@enclave/control-plane/placement/docker-connection.js";
import { builtImages, describeImage } from "@enclave/images/image-describe.js";
import { sbomPath } from "@enclave/control-plane/image-set/image-records.js";
import { imageTags } from "@enclave/control-plane/image-set/image-tags.js";
import { silentProgress } from "@enclave/images/progress.js";
import { sbomShapeProblems } from "@enclave/images/sbom-shape.js";
import { sbomSummary } from "@enclave/images/sbom.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";

const root = mkdtempSync(join(tmpdir(), "enclave-sbom-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("image SBOMs", () => {
  it("the runtime image's SBOM lists its Debian and npm packages, conforms, and is the same for the same image", async () => {
    const docker = await connectDocker();
    const runtime = (await builtImages(docker)).find((i) => i.ref === imageTags().runtime);
    expect(runtime, "the runtime image is built (make images)").toBeDefined();
    if (!runtime) return;
    const first = await describeImage(docker, runtime, silentProgress, root);
    expect(first.made).toBe(true);
    expect(sbomShapeProblems(first.sbom)).toEqual([]);
    const counts = sbomSummary(first.sbom);
    expect(counts.deb).toBeGreaterThan(100);
    expect(counts.npm).toBeGreaterThan(5);
    const purls = first.sbom.components.map((c) => c.purl ?? "");
    expect(purls).toContain(`pkg:npm/pyright@1.1.414`);
    expect(purls.some((p) => p.startsWith("pkg:deb/debian/python3-pandas@"))).toBe(true);
    expect(purls.some((p) => p.startsWith("pkg:deb/debian/nodejs@"))).toBe(true);
    expect(first.record.tools.node).toMatch(/^18\./);
    expect(first.record.tools.python).toMatch(/^3\./);
    expect(Object.keys(first.record.tools.languageServers)).toEqual(expect.arrayContaining(["pyright", "pylsp", "typescript", "clangd", "gopls", "bash"]));
    expect(Object.keys(first.record.tools.debugAdapters)).toEqual(expect.arrayContaining(["debugpy", "lldb", "delve"]));
    // The first candidate that resolves, as the agent picks it (Debian's lldb-15 has lldb-vscode-15).
    expect(first.record.tools.debugAdapters.lldb).toBe("lldb-vscode-15");

    // Described again from scratch: the same bytes (no timestamp, a serial number from the image id).
    const bytes = readFileSync(sbomPath(runtime.ref, root), "utf8");
    rmSync(join(root, "enclave-runtime"), { recursive: true });
    const second = await describeImage(docker, runtime, silentProgress, root);
    expect(second.made).toBe(true);
    expect(readFileSync(sbomPath(runtime.ref, root), "utf8")).toBe(bytes);
    // And a third call finds it recorded for this image id.
    expect((await describeImage(docker, runtime, silentProgress, root)).made).toBe(false);
  });

  it("the shape check refuses what CycloneDX 1.5 does not allow", async () => {
    expect(sbomShapeProblems({ bomFormat: "CycloneDX", specVersion: "1.4" })).not.toEqual([]);
    const bom = {
      bomFormat: "CycloneDX",
      specVersion: "1.5",
      serialNumber: "urn:uuid:00000000-0000-5000-8000-000000000000",
      version: 1,
      metadata: { component: { type: "container", name: "x" } },
      components: [{ type: "library", "bom-ref": "a", name: "a", hashes: [{ alg: "SHA-256", content: "abc" }] }],
    };
    expect(sbomShapeProblems(bom).join("\n")).toMatch(/hashes\/0\/content/);
    bom.components = [
      { type: "library", "bom-ref": "a", name: "a", hashes: [] },
      { type: "library", "bom-ref": "a", name: "b", hashes: [] },
    ];
    await expectTranscript(sbomShapeProblems(bom).join("\n"), "transcripts/sbom/duplicate-ref.txt");
  });
});
