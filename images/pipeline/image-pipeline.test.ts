// The image pipeline's pure parts: content tags are a function of their inputs only; what an image
// prints for its inventory is parsed as data (junk dropped, nothing followed); SBOMs are deterministic
// and conform; records refuse names that would leave their folder; registries are HOST[:PORT].
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { imagesDir } from "@enclave/control-plane/repo-paths.js";
import { hashParts, hashTree, readTree } from "@enclave/control-plane/image-set/content-hash.js";
import { pinnedReference, recordDir, writeRecord, RECORD_FORMAT } from "@enclave/control-plane/image-set/image-records.js";
import { imageInputs, imageTags } from "@enclave/control-plane/image-set/image-tags.js";
import { parseInventory, parseLockfile } from "./inventory.js";
import { checkRegistry } from "./registry-push.js";
import { isPinnedReference } from "@enclave/control-plane/image-set/registry-pull.js";
import { sbomShapeProblems } from "./sbom-shape.js";
import { buildSbom, sbomSummary } from "./sbom.js";

const scratch = mkdtempSync(join(tmpdir(), "enclave-pipeline-unit-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("content tags", () => {
  it("the same inputs give the same tag; a changed input file gives another", () => {
    expect(imageTags()).toEqual(imageTags());
    const copy = join(scratch, "runtime");
    cpSync(join(imagesDir, "runtime"), copy, { recursive: true });
    const before = hashTree(copy);
    expect(hashTree(copy)).toBe(before);
    writeFileSync(join(copy, "packages.txt"), "# one more line\n", { flag: "a" });
    expect(hashTree(copy)).not.toBe(before);
    // Framing: moving bytes between parts changes the hash.
    expect(hashParts(["ab", "c"])).not.toBe(hashParts(["a", "bc"]));
  });

  it("inspect's inputs are exactly what the runtime tag hashes", () => {
    const inputs = imageInputs();
    expect(inputs.runtime[0]).toEqual({ name: "base image", value: imageTags().base });
    expect(inputs.runtime.slice(1).map((i) => i.name)).toEqual(readTree(join(imagesDir, "runtime")).map(([p]) => `images/runtime/${p}`));
    for (const i of inputs.runtime.slice(1)) expect(i.value).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});

describe("inventory parsing", () => {
  const lock = JSON.stringify({
    packages: {
      "": { name: "x" },
      "node_modules/pyright": { version: "1.1.414", license: "MIT", integrity: "sha512-" + Buffer.alloc(64, 1).toString("base64") },
      "node_modules/@scope/pkg": { version: "2.0.0" },
      "node_modules/a/node_modules/b": { version: "0.1.0" },
      "node_modules/linked": { link: true, resolved: "../elsewhere" },
      "node_modules/noversion": { license: "MIT" },
      "node_modules/weird": { version: { not: "a string" } },
    },
  });

  it("reads dpkg lines, lockfiles and tool lines; drops what does not parse", () => {
    const text = [
      "@@dpkg",
      "installed\tlibc6:amd64\t2.36-9\tamd64\tglibc\t2.36-9",
      "config-files\told\t1.0\tamd64\t\t",
      "installed\tpython3\t3.11.2-1\tamd64\tpython3-defaults\t3.11.2-1",
      "garbage without tabs",
      "@@npm /opt/enclave/node-tools/node_modules/.package-lock.json",
      lock,
      "@@npm /opt/bad/node_modules/.package-lock.json",
      "{ not json",
      "@@tools",
      "node v18.20.4",
      "python 3.11.2",
      "lsp pyright /usr/local/bin/pyright-langserver",
      "dap lldb lldb-vscode-15",
      "lsp",
      "",
    ].join("\n");
    const inv = parseInventory(text);
    expect(inv.debs.map((d) => d.name)).toEqual(["libc6", "python3"]);
    expect(inv.debs[0]).toMatchObject({ source: "glibc", version: "2.36-9" });
    expect(inv.npm.map((p) => `${p.name}@${p.version}`)).toEqual(["pyright@1.1.414", "@scope/pkg@2.0.0", "b@0.1.0"]);
    expect(inv.npm[2]?.location).toBe("/opt/enclave/node-tools/node_modules/a/node_modules/b");
    expect(inv.tools).toEqual({
      node: "18.20.4",
      python: "3.11.2",
      languageServers: { pyright: "/usr/local/bin/pyright-langserver" },
      debugAdapters: { lldb: "lldb-vscode-15" },
    });
    expect(parseLockfile("/x/node_modules/.package-lock.json", "[]")).toEqual([]);
  });

  it("the SBOM is the same for the same inventory, conforms, and counts by ecosystem", () => {
    const inv = parseInventory(["@@dpkg", "installed\tlibc6\t2.36-9\tamd64\tglibc\t2.36-9", "@@npm /opt/t/node_modules/.package-lock.json", lock].join("\n"));
    inv.npm.push({ ...inv.npm[0]!, location: "/opt/other/node_modules/pyright" });
    const subject = { name: "enclave-runtime", tag: "0123456789abcdef", imageId: `sha256:${"a".repeat(64)}` };
    const a = buildSbom(subject, inv, "0.1.0");
    expect(JSON.stringify(buildSbom(subject, inv, "0.1.0"))).toBe(JSON.stringify(a));
    expect(sbomShapeProblems(a)).toEqual([]);
    expect(sbomSummary(a)).toEqual({ deb: 1, npm: 3 });
    const purls = a.components.map((c) => c.purl);
    expect(purls).toContain("pkg:npm/%40scope/pkg@2.0.0");
    expect(purls).toContain("pkg:deb/debian/libc6@2.36-9?arch=amd64&distro=debian");
    expect(a.components.find((c) => c.name === "pyright")?.hashes?.[0]).toEqual({ alg: "SHA-512", content: "01".repeat(64) });
    expect(buildSbom({ ...subject, imageId: `sha256:${"b".repeat(64)}` }, inv, "0.1.0").serialNumber).not.toBe(a.serialNumber);
  });
});

describe("records and references", () => {
  it("records stay in their folder, and a pinned reference comes from the push record", () => {
    for (const bad of ["../x:1", "a/b:1", "x:../../etc", "x", ":1"]) expect(() => recordDir(bad, scratch)).toThrow();
    writeRecord(
      {
        format: RECORD_FORMAT,
        name: "enclave-runtime",
        tag: "0123456789abcdef",
        imageId: `sha256:${"c".repeat(64)}`,
        sizeBytes: 1,
        inputs: [],
        tools: { languageServers: {}, debugAdapters: {} },
        pushed: {
          "127.0.0.1:5000": {
            reference: "127.0.0.1:5000/enclave-runtime:0123456789abcdef",
            digest: `sha256:${"d".repeat(64)}`,
            sbomReference: "",
            sbomDigest: "",
          },
        },
      },
      scratch,
    );
    const pinned = pinnedReference("enclave-runtime:0123456789abcdef", "127.0.0.1:5000", scratch);
    expect(pinned).toBe(`127.0.0.1:5000/enclave-runtime@sha256:${"d".repeat(64)}`);
    expect(isPinnedReference(pinned ?? "")).toBe(true);
    expect(isPinnedReference("127.0.0.1:5000/enclave-runtime:0123456789abcdef")).toBe(false);
    expect(pinnedReference("enclave-runtime:0123456789abcdef", "elsewhere:5000", scratch)).toBeUndefined();
    expect(checkRegistry("registry.example.com:443")).toBe("registry.example.com:443");
    expect(() => checkRegistry("127.0.0.1:5000/path")).toThrow();
  });
});
