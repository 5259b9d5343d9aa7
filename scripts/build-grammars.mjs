// Puts the tree-sitter grammars structural search uses into dist/agent/grammars (the agent's
// --grammars default; dist/agent is what enclosures mount at /opt/enclave/agent), and the
// web-tree-sitter runtime wasm beside the bundle. The grammar list is enclave-agent/src/ast/
// grammar-registry.ts (compiled by tsc before this runs). Official grammar packages are installed
// from enclave-agent/grammars/package-lock.json with --ignore-scripts (only their files are used).
// Dart's prebuilt wasm does not load in web-tree-sitter 0.27, so it is compiled from the package's C
// sources with Debian's emscripten; the result is cached by a hash of its inputs in .cache/grammars.
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const pkgDir = join(root, "enclave-agent", "grammars");
const outDir = join(root, "dist", "agent", "grammars");
const cacheDir = join(root, ".cache", "grammars");
const { GRAMMARS, RUNTIME_WASM } = await import(pathToFileURL(join(root, "enclave-agent", "dist", "src", "ast", "grammar-registry.js")).href);

function sha256(...parts) {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return h.digest("hex");
}

// npm ci only when the lock file changed since the last install.
function installPackages() {
  const lock = readFileSync(join(pkgDir, "package-lock.json"));
  const stamp = join(pkgDir, "node_modules", ".enclave-lock-hash");
  const want = sha256(lock);
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === want) return;
  console.log("grammars: installing grammar packages (npm ci --ignore-scripts)");
  execFileSync("npm", ["ci", "--ignore-scripts", "--no-audit", "--no-fund"], { cwd: pkgDir, stdio: ["ignore", "inherit", "inherit"] });
  writeFileSync(stamp, want);
}

function hasEmcc() {
  return spawnSync("emcc", ["--version"], { stdio: "ignore" }).status === 0;
}

// Debian's emscripten is the compiler; install it when absent and we are allowed to (root).
function ensureEmcc() {
  if (hasEmcc()) return true;
  if (typeof process.getuid === "function" && process.getuid() === 0 && existsSync("/usr/bin/apt-get")) {
    console.log("grammars: emcc not found; installing Debian's emscripten (apt-get install emscripten)");
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    spawnSync("apt-get", ["update"], { stdio: "inherit", env });
    spawnSync("apt-get", ["install", "-y", "--no-install-recommends", "emscripten"], { stdio: "inherit", env });
  }
  return hasEmcc();
}

function compile(g) {
  const src = join(pkgDir, "node_modules", g.package);
  const flags = ["-O2", "-s", "SIDE_MODULE=2", "-s", `EXPORTED_FUNCTIONS=_${g.build.symbol}`, "-I", "src"];
  const key = sha256(
    JSON.stringify(flags),
    ...g.build.sources.map((s) => readFileSync(join(src, s))),
    ...["src/tree_sitter/parser.h"].filter((h) => existsSync(join(src, h))).map((h) => readFileSync(join(src, h))),
  );
  const cached = join(cacheDir, `${g.wasm.replace(/\.wasm$/, "")}-${key.slice(0, 16)}.wasm`);
  if (!existsSync(cached)) {
    if (!ensureEmcc()) {
      console.warn(
        `grammars: SKIPPED ${g.id}: emscripten (emcc) is not installed and could not be installed; run \`apt-get install emscripten\` as root, then \`make build\``,
      );
      return undefined;
    }
    console.log(`grammars: compiling ${g.id} from ${g.package}'s C sources with emcc`);
    mkdirSync(cacheDir, { recursive: true });
    const tmp = mkdtempSync(join(tmpdir(), "enclave-grammar-"));
    try {
      const out = join(tmp, g.wasm);
      execFileSync("emcc", [...flags, ...g.build.sources, "-o", out], { cwd: src, stdio: ["ignore", "inherit", "inherit"] });
      renameSync(out, cached);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  return cached;
}

installPackages();
mkdirSync(outDir, { recursive: true });
let built = 0;
for (const g of GRAMMARS) {
  const from = g.build.kind === "copy" ? join(pkgDir, "node_modules", g.package, g.build.file) : compile(g);
  if (!from) continue;
  copyFileSync(from, join(outDir, g.wasm));
  built++;
}
copyFileSync(join(root, "node_modules", "web-tree-sitter", RUNTIME_WASM), join(root, "dist", "agent", RUNTIME_WASM));
console.log(`grammars: ${built} of ${GRAMMARS.length} in dist/agent/grammars`);
