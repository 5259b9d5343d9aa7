// The Node injected into users' images is the pinned build or nothing: a cached tarball with other
// bytes is refused, never unpacked.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { EnclaveError } from "../errors.js";
import { ensureNodeTarball, nodeTarballName } from "./node-runtime.js";

it("refuses a cached Node tarball whose bytes are not the pinned integrity", async () => {
  const dir = mkdtempSync(join(tmpdir(), "node-cache-"));
  try {
    writeFileSync(join(dir, nodeTarballName()), "not node at all");
    const err = await ensureNodeTarball(dir).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(EnclaveError);
    expect((err as EnclaveError).code).toBe("placement_unavailable");
    expect((err as EnclaveError).message).toMatch(/does not match the pinned integrity/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
