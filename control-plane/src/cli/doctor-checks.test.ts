// doctor checks the very packages the ensure scripts install: its lists are the scripts' own.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../repo-paths.js";
import { ENSURED_DEBS } from "./doctor-checks.js";

/** The packages a script hands to ensure-debs.sh (`ensure-debs.sh TAG PKG...` or a packages=(...) array). */
function scriptPackages(script: string): string[] {
  const text = readFileSync(join(repoRoot, "scripts", script), "utf8");
  const array = /^packages=\(([^)]*)\)/m.exec(text);
  if (array) return (array[1] ?? "").trim().split(/\s+/);
  const call = /ensure-debs\.sh" [\w-]+ (.*)$/m.exec(text);
  return (call?.[1] ?? "").trim().split(/\s+/);
}

describe("doctor's package lists", () => {
  it("equal the ensure scripts'", () => {
    expect(scriptPackages("ensure-host-kernels.sh")).toEqual(ENSURED_DEBS["host-kernels"]);
    expect(scriptPackages("ensure-host-debuggers.sh")).toEqual(ENSURED_DEBS["host-debuggers"]);
    expect(scriptPackages("ensure-static-cc.sh")).toEqual(ENSURED_DEBS["static-cc"]);
    const sandbox = readFileSync(join(repoRoot, "scripts", "ensure-host-sandbox.sh"), "utf8");
    const installed = [...sandbox.matchAll(/missing\+=\(([\w-]+)\)/g)].map((m) => m[1]);
    expect(installed).toEqual(ENSURED_DEBS["host-sandbox"]);
  });
});
