// The warm pool's profiles are operator configuration, and their image names go through Docker's
// reference grammar at start-up like a tenant's: a bad one stops loadConfig with invalid_arguments.
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "./config.js";
import { EnclaveError } from "./errors.js";

const saved = process.env.ENCLAVE_WARM_POOL_PROFILES;
afterEach(() => {
  if (saved === undefined) delete process.env.ENCLAVE_WARM_POOL_PROFILES;
  else process.env.ENCLAVE_WARM_POOL_PROFILES = saved;
});

function loadWith(profiles: unknown[]): unknown {
  process.env.ENCLAVE_WARM_POOL_PROFILES = JSON.stringify(profiles);
  try {
    return loadConfig({ dataDir: "/nonexistent/enclave-warm-pool-config" }).warmPool.profiles;
  } catch (err) {
    return err instanceof EnclaveError ? { code: err.code } : err;
  }
}

describe("ENCLAVE_WARM_POOL_PROFILES", () => {
  it.each([["../127.0.0.1:1/x"], ["x/../../127.0.0.1:1/y"], ["Upper/Case"], ["a@sha256:short"], ["".padEnd(300, "a")], [42]])(
    "refuses image %j with invalid_arguments",
    (image) => {
      expect(loadWith([{}, { image }])).toEqual({ code: "invalid_arguments" });
    },
  );

  it("takes well-formed references, and a profile without an image", () => {
    const profiles = [
      {},
      { image: "" },
      { image: "enclave-enclosure:latest" },
      { image: "registry.example:5000/team/img@sha256:" + "a".repeat(64), workspaceMode: "copy" },
    ];
    expect(loadWith(profiles)).toEqual(profiles);
  });
});
