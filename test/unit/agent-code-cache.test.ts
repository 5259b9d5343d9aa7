// The agent's bundle is compiled through a V8 code cache made by the build: a cache of the same
// source is accepted, any other is rejected by V8's own check and the bundle still runs from source,
// and the entry only ever looks for the cache beside the bundle (the read-only agent folder).
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { cacheFileFor } from "../../enclave-agent/src/boot/code-cache.js";
import { repoRoot } from "../../control-plane/src/repo-paths.js";

const dir = mkdtempSync(join(tmpdir(), "code-cache-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const lib = join(repoRoot, "dist", "enclave-agent", "src", "boot", "code-cache.js");

/** Runs `bundle` through compileBundle in a fresh Node; prints the cache's fate and what the bundle said. */
function load(bundle: string, cache: string | undefined, produce?: string): string {
  const script = `
    import { writeFileSync } from "node:fs";
    import { compileBundle } from ${JSON.stringify(lib)};
    const c = compileBundle(${JSON.stringify(bundle)}, ${JSON.stringify(cache)});
    c.run();
    if (${JSON.stringify(produce ?? "")}) writeFileSync(${JSON.stringify(produce ?? "")}, c.script.createCachedData());
    process.stdout.write(" cache=" + c.cache);`;
  return execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
}

it("accepts the cache made from the same bundle and rejects one made from another, running the bundle either way", () => {
  const bundle = join(dir, "bundle.cjs");
  writeFileSync(bundle, "function answer() { return 6 * 7; }\nprocess.stdout.write('answer=' + answer() + ' file=' + (__filename === module.filename));\n");
  const cache = join(dir, "bundle.cjs.v8cache");
  expect(load(bundle, undefined, cache)).toBe("answer=42 file=true cache=absent");
  expect(load(bundle, cache)).toBe("answer=42 file=true cache=accepted");
  // Another bundle (V8 keys its check on the source's length, among its version and flags).
  writeFileSync(bundle, "process.stdout.write('other bundle, other length');\n");
  expect(load(bundle, cache)).toBe("other bundle, other length cache=rejected");
});

it("looks for the cache only beside the bundle, under the name of the Node that made it", () => {
  const bundle = "/opt/enclave/agent/enclave-agent.cjs";
  expect(dirname(cacheFileFor(bundle, "v18.20.4"))).toBe(dirname(bundle));
  expect(cacheFileFor(bundle, "v18.20.4")).toBe("/opt/enclave/agent/enclave-agent.cjs.node-18.20.4.v8cache");
});
