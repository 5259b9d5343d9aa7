// The runsc wrapper the engine runs (runsc-for-docker.sh), against a stand-in runsc that records its
// arguments: every command but delete passes through verbatim; a delete is tried plain, then forced
// with the same global flags, and counts as done once runsc no longer knows the container.
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";

const wrapper = join(repoRoot, "images", "runsc-for-docker.sh");
const dir = mkdtempSync(join(tmpdir(), "enclave-runsc-wrapper-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A stand-in runsc: records each call's arguments, one line each; a plain delete fails as Debian's does
 * for a restored container left "paused"; `state` succeeds only while STATE_KNOWN is set. */
function fakeRunsc(name: string): { path: string; calls: () => string[] } {
  const log = join(dir, `${name}.log`);
  const path = join(dir, name);
  writeFileSync(
    path,
    `#!/bin/sh
printf '%s\\n' "$*" >>'${log}'
for a; do [ "$a" = --force ] && exit 2; done
for a; do [ "$a" = delete ] && { echo "cannot delete container that is not stopped without --force flag" >&2; exit 1; }; done
for a; do [ "$a" = state ] && { [ -n "\${STATE_KNOWN:-}" ] && exit 0 || exit 1; }; done
exit 0
`,
  );
  chmodSync(path, 0o755);
  writeFileSync(log, "");
  return { path, calls: () => readFileSync(log, "utf8").trim().split("\n").filter(Boolean) };
}

describe("runsc-for-docker.sh", () => {
  it("passes every command but delete through verbatim", () => {
    const runsc = fakeRunsc("pass");
    execFileSync("sh", [wrapper, "--root", "/run/x y", "--log-format", "json", "restore", "--image-path", "/p", "cid"], { env: { ENCLAVE_RUNSC: runsc.path } });
    expect(runsc.calls()).toEqual(["--root /run/x y --log-format json restore --image-path /p cid"]);
  });

  it("forces a delete that runsc refuses, with the same global flags, and succeeds once runsc no longer knows the container", () => {
    const runsc = fakeRunsc("del");
    const r = spawnSync("sh", [wrapper, "--root", "/run/x y", "--log", "/l o g", "delete", "cid"], { env: { ENCLAVE_RUNSC: runsc.path } });
    expect(r.status).toBe(0);
    expect(runsc.calls()).toEqual([
      "--root /run/x y --log /l o g delete cid",
      "--root /run/x y --log /l o g delete --force cid",
      "--root /run/x y --log /l o g state cid",
    ]);
  });

  it("fails the delete when runsc still knows the container after the forced one", () => {
    const runsc = fakeRunsc("kept");
    const r = spawnSync("sh", [wrapper, "--root", "/r", "delete", "cid"], { env: { ENCLAVE_RUNSC: runsc.path, STATE_KNOWN: "1" } });
    expect(r.status).toBe(1);
  });
});
