// The Node injected into users' images is the pinned build or nothing: a cached tarball with other
// bytes is refused, never unpacked.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { EnclaveError } from "../errors.js";
import { ensureNodeTarball, nodeTarballName } from "./node-runtime.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";

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
    // placement_unavailable has other causes (no download): the text says which, recorded whole.
    await expectTranscript((err as EnclaveError).message, "transcripts/node-runtime/integrity-refused.txt");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
