// `make build`: type-checks and compiles every package with `tsc -b` (each into its own dist/: proto/dist,
// enclave-agent/dist, clients/node/dist, control-plane/dist, images/dist; the tests into dist/test), then
// bundles the enclave agent into one ESM file in dist/agent with esbuild. The agent runs on the pinned Node 24 in enclosures, on the host's Node
// in host placement, and on the image's own Debian Node 18 in Enclave's image when the pinned build
// cannot be had: the target stays the oldest of these.
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, cpSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
execFileSync(join(root, "node_modules", ".bin", "tsc"), ["-b", join(root, "tsconfig.json")], { stdio: "inherit" });
// The bundles take the packages' TypeScript sources (the "@enclave/source" export condition).
const conditions = ["@enclave/source"];

const outDir = join(root, "dist", "agent");
mkdirSync(outDir, { recursive: true });
await build({
  entryPoints: [join(root, "enclave-agent", "src", "main.ts")],
  outfile: join(outDir, "enclave-agent.mjs"),
  bundle: true,
  platform: "node",
  conditions,
  target: "node18",
  format: "esm",
  sourcemap: "linked",
  logLevel: "warning",
  // CommonJS dependencies (grpc-js) call require(); give the ESM bundle one.
  banner: { js: "import { createRequire as __enclaveCreateRequire } from 'node:module'; const require = __enclaveCreateRequire(import.meta.url);" },
});
// The structural-search worker threads' entry, beside the bundle (parse-pool.ts finds it there).
await build({
  entryPoints: [join(root, "enclave-agent", "src", "ast", "ast-worker.ts")],
  outfile: join(outDir, "ast-worker.mjs"),
  bundle: true,
  platform: "node",
  conditions,
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
  conditions,
  target: "node18",
  format: "esm",
  logLevel: "warning",
});
// The kernel runners ship beside the bundle (dist/agent is mounted read-only in enclosures): the
// JavaScript runner bundled like the agent, the Python runner copied as source.
const kernelsOut = join(outDir, "kernels");
rmSync(kernelsOut, { recursive: true, force: true });
await build({
  entryPoints: [join(root, "enclave-agent", "src", "kernels", "javascript", "runner.ts")],
  outfile: join(kernelsOut, "js-runner.mjs"),
  bundle: true,
  platform: "node",
  conditions,
  target: "node18",
  format: "esm",
  logLevel: "warning",
});
cpSync(join(root, "enclave-agent", "src", "kernels", "python"), join(kernelsOut, "python"), {
  recursive: true,
  filter: (src) => !src.includes("__pycache__"),
});
// The hardening audit's reader of gVisor's process tables, run inside enclosures from the read-only
// bundle: linked statically, so nothing of an image (loader, libc, preload) takes part in it.
try {
  execFileSync(
    "cc",
    ["-static", "-s", "-Os", "-Wall", "-Wextra", "-Werror", "-o", join(outDir, "proc-reader"), join(root, "enclave-agent", "native", "proc-reader.c")],
    { stdio: "inherit" },
  );
} catch (err) {
  throw new Error(
    `building dist/agent/proc-reader needs a C compiler and a static libc (Debian: gcc, libc6-dev; \`make build\` installs them): ${err.message}`,
  );
}
copyFileSync(join(root, "enclave-agent", "supervise.sh"), join(outDir, "supervise.sh"));
copyFileSync(join(root, "enclave-agent", "relay.sh"), join(outDir, "relay.sh"));
copyFileSync(join(root, "enclave-agent", "src", "transport", "relay.pl"), join(outDir, "relay.pl"));
chmodSync(join(outDir, "supervise.sh"), 0o755);
console.log("built dist/ and dist/agent/enclave-agent.mjs");
await import("./build-grammars.mjs");
