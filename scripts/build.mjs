// `make build`: type-checks and compiles everything to dist/ with tsc, then bundles the enclave agent
// into one ESM file for Node 18+ (the enclosure image's Node) with esbuild.
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
execFileSync(join(root, "node_modules", ".bin", "tsc"), ["-p", join(root, "tsconfig.json")], { stdio: "inherit" });

const outDir = join(root, "dist", "agent");
mkdirSync(outDir, { recursive: true });
// The agent as one CommonJS file, run by a small entry (enclave-agent.mjs) that compiles it with the
// V8 code cache made below (enclave-agent/src/boot/code-cache.ts): Node 18 caches no compiled code of
// its own, and parsing the bundle was a third of an enclosure agent's start.
for (const stale of readdirSync(outDir).filter((f) => f.endsWith(".v8cache"))) rmSync(join(outDir, stale));
await build({
  entryPoints: [join(root, "enclave-agent", "src", "main.ts")],
  outfile: join(outDir, "enclave-agent.cjs"),
  bundle: true,
  platform: "node",
  target: "node18",
  format: "cjs",
  sourcemap: "linked",
  logLevel: "warning",
  // The bundle finds its grammars, kernels and wasm beside itself.
  define: { "import.meta.url": "__enclaveBundleUrl" },
  banner: { js: "const __enclaveBundleUrl = require('node:url').pathToFileURL(__filename).href;" },
});
await build({
  entryPoints: [join(root, "enclave-agent", "src", "boot", "boot.ts")],
  outfile: join(outDir, "enclave-agent.mjs"),
  bundle: true,
  platform: "node",
  target: "node18",
  format: "esm",
  logLevel: "warning",
});
rmSync(join(outDir, "enclave-agent.mjs.map"), { force: true });
await produceCodeCache();
// The structural-search worker threads' entry, beside the bundle (parse-pool.ts finds it there).
await build({
  entryPoints: [join(root, "enclave-agent", "src", "ast", "ast-worker.ts")],
  outfile: join(outDir, "ast-worker.mjs"),
  bundle: true,
  platform: "node",
  target: "node18",
  format: "esm",
  logLevel: "warning",
  banner: { js: "import { createRequire as __enclaveCreateRequire } from 'node:module'; const require = __enclaveCreateRequire(import.meta.url);" },
});
// The relay the control plane execs inside an enclosure to reach the agent: tiny, so each connection
// costs only Node's start-up.
await build({
  entryPoints: [join(root, "enclave-agent", "src", "transport", "relay.ts")],
  outfile: join(outDir, "relay.mjs"),
  bundle: true,
  platform: "node",
  target: "node18",
  format: "esm",
  logLevel: "warning",
});
// The kernel runners ship beside the bundle (dist/agent is mounted read-only in enclosures): the
// JavaScript runner bundled for Node 18, the Python runner copied as source.
const kernelsOut = join(outDir, "kernels");
rmSync(kernelsOut, { recursive: true, force: true });
await build({
  entryPoints: [join(root, "enclave-agent", "src", "kernels", "javascript", "runner.ts")],
  outfile: join(kernelsOut, "js-runner.mjs"),
  bundle: true,
  platform: "node",
  target: "node18",
  format: "esm",
  logLevel: "warning",
});
cpSync(join(root, "enclave-agent", "src", "kernels", "python"), join(kernelsOut, "python"), {
  recursive: true,
  filter: (src) => !src.includes("__pycache__"),
});
copyFileSync(join(root, "enclave-agent", "supervise.sh"), join(outDir, "supervise.sh"));
copyFileSync(join(root, "enclave-agent", "relay.sh"), join(outDir, "relay.sh"));
copyFileSync(join(root, "enclave-agent", "src", "transport", "relay.pl"), join(outDir, "relay.pl"));
chmodSync(join(outDir, "supervise.sh"), 0o755);
console.log("built dist/ and dist/agent/enclave-agent.mjs");
await import("./build-grammars.mjs");

/**
 * The code cache, made by the pinned Node that runs the agent in enclosures (node-runtime.ts; its
 * tarball checked against the pinned integrity): V8 only accepts a cache from its own version and
 * flags. Without that Node (offline, no cached tarball) the agent ships without a cache and compiles
 * its bundle at each start, as before.
 */
async function produceCodeCache() {
  const tmp = mkdtempSync(join(tmpdir(), "enclave-build-"));
  try {
    const { ensureNodeTarball, NODE_RUNTIME } = await import("../dist/control-plane/src/placement/node-runtime.js");
    const { NODE_CACHE_DIR } = await import("../dist/control-plane/src/placement/agent-injection.js");
    const tarball = await ensureNodeTarball(NODE_CACHE_DIR);
    execFileSync("tar", ["-xzf", tarball, "-C", tmp, NODE_RUNTIME.binary]);
    const producer = join(tmp, "produce-code-cache.mjs");
    await build({ entryPoints: [join(root, "enclave-agent", "src", "boot", "produce-code-cache.ts")], outfile: producer, bundle: true, platform: "node", target: "node18", format: "esm", logLevel: "warning" });
    const bundle = join(outDir, "enclave-agent.cjs");
    const { cacheFileFor } = await import("../dist/enclave-agent/src/boot/code-cache.js");
    execFileSync(join(tmp, NODE_RUNTIME.binary), [producer, bundle, cacheFileFor(bundle, NODE_RUNTIME.version)], { stdio: ["ignore", "ignore", "inherit"], env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, timeout: 120_000 });
  } catch (err) {
    console.warn(`agent code cache not made (the agent compiles its bundle at each start): ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
