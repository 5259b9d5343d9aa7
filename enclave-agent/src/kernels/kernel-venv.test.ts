// The kernel environment written directly is, to Python, the environment `python -m venv
// --without-pip --system-site-packages` makes: the same prefix, base prefix and site-packages list,
// the system's packages importable, and pip (the shim) installing for this interpreter.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { pythonVersionOf, writeKernelVenv } from "./kernel-venv.js";

const dir = mkdtempSync(join(tmpdir(), "kernel-venv-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const base = "/usr/bin/python3";
const shims = (py: string): Record<string, string> => ({ pip: `#!/bin/sh\nexec "${py}" -m pip "$@"\n` });

function describeEnv(venv: string): unknown {
  const code = "import json, site, sys; print(json.dumps([sys.prefix, sys.base_prefix, sys.exec_prefix, site.getsitepackages(), site.ENABLE_USER_SITE]))";
  const out = JSON.parse(execFileSync(join(venv, "bin", "python"), ["-c", code], { encoding: "utf8" })) as [string, string, string, string[], boolean];
  // The same shape with the folder's own name taken out.
  return JSON.parse(JSON.stringify(out).replaceAll(venv, "<venv>"));
}

describe("a kernel environment written without running Python", () => {
  it.runIf(existsSync(base) && pythonVersionOf(base))("is the environment the venv module makes, as Python sees it", () => {
    const ours = join(dir, "ours");
    const theirs = join(dir, "theirs");
    expect(writeKernelVenv(base, ours, shims)).toBe(true);
    execFileSync(base, ["-m", "venv", "--without-pip", "--system-site-packages", theirs]);
    expect(describeEnv(ours)).toEqual(describeEnv(theirs));
    expect(execFileSync(join(ours, "bin", "pip"), ["--version"], { encoding: "utf8" })).toMatch(/^pip /);
  });

  it.runIf(existsSync(base) && pythonVersionOf(base))("a second maker finding it made uses it; nothing half-made is left beside it", () => {
    const venv = join(dir, "twice");
    expect(writeKernelVenv(base, venv, shims)).toBe(true);
    expect(writeKernelVenv(base, venv, shims)).toBe(true);
    expect(execFileSync("ls", [dir], { encoding: "utf8" })).not.toMatch(/\.tmp-/);
  });

  it("an interpreter whose file name does not give its version is left to the venv module", () => {
    expect(writeKernelVenv("/bin/sh", join(dir, "sh"), shims)).toBe(false);
    expect(existsSync(join(dir, "sh"))).toBe(false);
  });
});
