// Docker's image reference grammar, table-driven with the examples of distribution/reference's own
// tests (reference_test.go, normalize_test.go), the hostile names a tenant sent, and the images
// rule (who may name what) on top of it.
import { describe, expect, it } from "vitest";
import { EnclaveError } from "../errors.js";
import { ANY_IMAGE, imageAccessFor, ImageRule, noSuchImage, parseAllowedImages } from "./image-access.js";
import { canonicalImage, checkImageReference, parseImageReference } from "./image-reference.js";

const F64 = "f".repeat(64);
const F128 = "f".repeat(128);

/** input → [domain as docker normalises it ("" for Docker Hub), path, tag, digest]. */
const VALID: Array<[string, string, string, string, string]> = [
  ["test_com", "", "test_com", "", ""],
  ["test.com:tag", "", "test.com", "tag", ""],
  ["test.com:5000", "", "test.com", "5000", ""],
  ["test.com/repo:tag", "test.com", "repo", "tag", ""],
  ["test:5000/repo", "test:5000", "repo", "", ""],
  ["test:5000/repo:tag", "test:5000", "repo", "tag", ""],
  [`test:5000/repo@sha256:${F64}`, "test:5000", "repo", "", `sha256:${F64}`],
  [`test:5000/repo:tag@sha256:${F64}`, "test:5000", "repo", "tag", `sha256:${F64}`],
  ["lowercase:Uppercase", "", "lowercase", "Uppercase", ""],
  [`${"a/".repeat(127)}a:tag-puts-this-over-max`, "", `${"a/".repeat(127)}a`, "tag-puts-this-over-max", ""],
  ["sub-dom1.foo.com/bar/baz/quux", "sub-dom1.foo.com", "bar/baz/quux", "", ""],
  ["sub-dom1.foo.com/bar/baz/quux:some-long-tag", "sub-dom1.foo.com", "bar/baz/quux", "some-long-tag", ""],
  ["b.gcr.io/test.example.com/my-app:test.example.com", "b.gcr.io", "test.example.com/my-app", "test.example.com", ""],
  ["xn--n3h.com/myimage:xn--n3h.com", "xn--n3h.com", "myimage", "xn--n3h.com", ""],
  [`xn--7o8h.com/myimage:xn--7o8h.com@sha512:${F128}`, "xn--7o8h.com", "myimage", "xn--7o8h.com", `sha512:${F128}`],
  ["foo_bar.com:8080", "", "foo_bar.com", "8080", ""],
  ["foo/foo_bar.com:8080", "", "foo/foo_bar.com", "8080", ""],
  ["192.168.1.1", "", "192.168.1.1", "", ""],
  ["192.168.1.1:tag", "", "192.168.1.1", "tag", ""],
  ["192.168.1.1:5000", "", "192.168.1.1", "5000", ""],
  ["192.168.1.1/repo", "192.168.1.1", "repo", "", ""],
  ["192.168.1.1:5000/repo", "192.168.1.1:5000", "repo", "", ""],
  ["192.168.1.1:5000/repo:5050", "192.168.1.1:5000", "repo", "5050", ""],
  ["[2001:db8::1]/repo", "[2001:db8::1]", "repo", "", ""],
  ["[2001:db8:1:2:3:4:5:6]/repo:tag", "[2001:db8:1:2:3:4:5:6]", "repo", "tag", ""],
  ["[2001:db8::1]:5000/repo", "[2001:db8::1]:5000", "repo", "", ""],
  [`[2001:db8::1]:5000/repo:tag@sha256:${F64}`, "[2001:db8::1]:5000", "repo", "tag", `sha256:${F64}`],
  ["[::1]:5000/repo", "[::1]:5000", "repo", "", ""],
  ["docker/docker", "", "docker/docker", "", ""],
  ["docker.io/library/debian", "docker.io", "library/debian", "", ""],
  ["127.0.0.1:5000/library/debian", "127.0.0.1:5000", "library/debian", "", ""],
  ["localhost/foo", "localhost", "foo", "", ""],
  ["thisisthesongthatneverendsitgoesonandonandonthisisthesongthatnev", "", "thisisthesongthatneverendsitgoesonandonandonthisisthesongthatnev", "", ""],
  [
    "docker.io/1a3f5e7d9c1b3a5f7e9d1c3b5a7f9e1d3c5b7a9f1e3d5d7c9b1a3f5e7d9c1b3a",
    "docker.io",
    "1a3f5e7d9c1b3a5f7e9d1c3b5a7f9e1d3c5b7a9f1e3d5d7c9b1a3f5e7d9c1b3a",
    "",
    "",
  ],
  ["docker---rules/docker", "", "docker---rules/docker", "", ""],
  ["dock__er/docker", "", "dock__er/docker", "", ""],
  ["enclave-devcontainer:0123456789abcdef", "", "enclave-devcontainer", "0123456789abcdef", ""],
];

const INVALID: string[] = [
  // distribution/reference's own
  "",
  ":justtag",
  `@sha256:${F64}`,
  "repo@sha256:ffffffffffffffffffffffffffffffffff",
  `validname@invaliddigest:${F64}`,
  "Uppercase:tag",
  "test:5000/Uppercase/lowercase:tag",
  `${"a/".repeat(128)}a:tag`,
  "aa/asdf$$^/aa",
  "[2001:db8::1]",
  "[2001:db8::1]:5000",
  "[2001:db8::1]:tag",
  "[fe80::1%eth0]:5000/repo",
  "[fe80::1%@invalidzone]:5000/repo",
  "https://github.com/docker/docker",
  "docker/Docker",
  "-docker",
  "-docker/docker",
  "-docker.io/docker/docker",
  "docker///docker",
  "docker.io/docker/Docker",
  "[fc00::1]",
  "fc00::1:5000/debian",
  "[2001:db8:3:4::192.0.2.33]:5000/debian",
  "1a3f5e7d9c1b3a5f7e9d1c3b5a7f9e1d3c5b7a9f1e3d5d7c9b1a3f5e7d9c1b3a",
  "docker-/docker",
  "____/____",
  "_docker/_docker",
  "dock..er/docker",
  "dock_.er/docker",
  "docker/",
  `${"this_is_not_a_valid_namespace_because_its_lenth_is_greater_than_255_".repeat(4)}/docker`,
  // Docker 20.10 (the engine here) reads an uppercase first component without '.' or ':' as a
  // Docker Hub path, and refuses it; later versions read it as a registry.
  "Docker/docker",
  // What tenants sent: paths that leave the engine's /images/ route, URL syntax, control characters.
  "../127.0.0.1:1/x",
  "x/../../127.0.0.1:1/y",
  "../127.0.0.1:5998/attacker/path",
  "./x",
  "x/./y",
  "x?y",
  "x#y",
  "x%2F..%2Fy",
  "x y",
  "x\ny",
  "x\0y",
  "UPPER",
  "a".repeat(256),
  `x:${"t".repeat(129)}`,
  `x@sha256:${"F".repeat(64)}`,
  `x@sha256:${F64}0`,
  "x".repeat(10_000),
];

describe("image references (Docker's grammar)", () => {
  it("reads each valid example as the grammar does", () => {
    for (const [input, domain, path, tag, digest] of VALID) {
      expect(parseImageReference(input), input.slice(0, 60)).toEqual({ domain, path, tag, digest });
    }
  });

  it("refuses each invalid one with invalid_arguments", () => {
    for (const input of INVALID) {
      expect("invalid" in parseImageReference(input), JSON.stringify(input.slice(0, 60))).toBe(true);
      let code = "";
      try {
        checkImageReference(input, "image");
      } catch (err) {
        code = err instanceof EnclaveError ? err.code : "";
      }
      expect(code, JSON.stringify(input.slice(0, 60))).toBe("invalid_arguments");
    }
  });

  it("normalises as ParseNormalizedNamed does, so spellings of one image compare equal", () => {
    const same: Array<[string, string]> = [
      ["foo", "docker.io/library/foo:latest"],
      ["docker.io/foo", "docker.io/library/foo:latest"],
      ["index.docker.io/library/foo:latest", "docker.io/library/foo:latest"],
      ["library/foo/bar", "docker.io/library/foo/bar:latest"],
      ["dmcgowan/myapp", "docker.io/dmcgowan/myapp:latest"],
      ["test_com/foo", "docker.io/test_com/foo:latest"],
      ["test-com:8080/foo", "test-com:8080/foo:latest"],
      [`redis@sha256:${F64}`, `docker.io/library/redis@sha256:${F64}`],
      [`busybox:latest@sha256:${F64}`, `docker.io/library/busybox:latest@sha256:${F64}`],
    ];
    for (const [input, canonical] of same) expect(canonicalImage(input), input).toBe(canonical);
    expect(canonicalImage("../x")).toBeUndefined();
  });
});

describe("which images a start may name", () => {
  const own = ["enclave-runtime:0123456789abcdef"];
  const rule = new ImageRule(["python:3.12", "127.0.0.1:5000/tools/lint@sha256:" + F64], () => own);
  const acme = imageAccessFor("acme", { operator: false }, ["enclave-devcontainer:aaaaaaaaaaaaaaaa"]);

  it("a plain tenant: the operator's list, Enclave's own and its own builds, in any spelling", () => {
    for (const image of [
      "python:3.12",
      "docker.io/library/python:3.12",
      `127.0.0.1:5000/tools/lint@sha256:${F64}`,
      "enclave-runtime:0123456789abcdef",
      "enclave-devcontainer:aaaaaaaaaaaaaaaa",
    ]) {
      expect(rule.mayStart(image, "caller", acme), image).toBe(true);
      expect(rule.mayStart(image, "workspace", acme), image).toBe(true);
    }
    for (const image of ["python:3.13", "python", "enclave-devcontainer:bbbbbbbbbbbbbbbb", `127.0.0.1:5999/x@sha256:${F64}`, "../127.0.0.1:1/x"]) {
      expect(rule.mayStart(image, "caller", acme), image).toBe(false);
    }
  });

  it("an image outside the rule is refused exactly as a missing one", () => {
    let refused: unknown;
    try {
      rule.check("enclave-devcontainer:bbbbbbbbbbbbbbbb", "caller", acme);
    } catch (err) {
      refused = err;
    }
    const missing = noSuchImage("enclave-devcontainer:bbbbbbbbbbbbbbbb");
    expect(refused).toBeInstanceOf(EnclaveError);
    expect({ code: (refused as EnclaveError).code, message: (refused as EnclaveError).message }).toEqual({ code: missing.code, message: missing.message });
  });

  it("an operator names any image itself, but a workspace's file stays under its tenant's rule; the implicit tenant is the operator", () => {
    const operatorInAcme = imageAccessFor("acme", { operator: true }, []);
    expect(rule.mayStart("anything:1", "caller", operatorInAcme)).toBe(true);
    expect(rule.mayStart("anything:1", "workspace", operatorInAcme)).toBe(false);
    const local = imageAccessFor("local", { operator: false }, []);
    expect(local).toEqual(ANY_IMAGE);
  });

  it("ENCLAVE_ALLOWED_IMAGES takes commas or spaces and refuses a bad reference", () => {
    expect(parseAllowedImages(" python:3.12, node:22\tdebian ", "ENCLAVE_ALLOWED_IMAGES")).toEqual(["python:3.12", "node:22", "debian"]);
    expect(() => parseAllowedImages("python:3.12,../x", "ENCLAVE_ALLOWED_IMAGES")).toThrow();
  });
});
