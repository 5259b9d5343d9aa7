// Builds the publishable client package in clients/node/dist/package: the client's sources with the
// wire code they use from @enclave/proto (the generated messages, the error codes, the limits) copied
// in beside them at build time, compiled to JavaScript and .d.ts, and a package.json whose only
// dependencies are grpc-js and the protobuf runtime. Its tarball (`npm pack` in that folder) installs
// alone. The copy is taken from proto/gen on every build, so it is never staler than proto/gen, whose
// own staleness `npm run gen -- --check` tests.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** The name the package is published under (free on the npm registry when chosen). */
export const PUBLISHED_NAME = "@enclave-sandbox/client";

const clientDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const root = join(clientDir, "..", "..");
const protoDir = join(root, "proto");
const out = join(clientDir, "dist", "package");
const staging = join(clientDir, "dist", "package-src");
const workspacePackage = JSON.parse(readFileSync(join(clientDir, "package.json"), "utf8"));
/** What the published package may import by name: its dependencies and Node's own modules. */
const runtimeDependencies = ["@grpc/grpc-js", "@bufbuild/protobuf"];

/** An import or export statement's specifier (at the start of a line, so comments that show one are left alone). */
const specifierPattern = /^((?:import|export)\b[^"]*?\bfrom\s+)"([^"]+)"/gm;

/** An @enclave/proto specifier's source file ("@enclave/proto/gen/x.js" → proto/gen/x.ts), or undefined. */
function protoSource(specifier) {
  const m = /^@enclave\/proto\/(.+)\.js$/.exec(specifier);
  if (!m) return undefined;
  return m[1].startsWith("gen/") ? join(protoDir, `${m[1]}.ts`) : join(protoDir, "src", `${m[1]}.ts`);
}

/** Where a proto source lands in the staging folder: src/proto/gen/… or src/proto/… */
function stagedProtoPath(source) {
  const rel = relative(protoDir, source);
  return join(staging, "src", "proto", rel.startsWith("src/") ? rel.slice("src/".length) : rel);
}

/** Copies a file, rewriting @enclave/proto imports to relative ones and queueing what they name. */
function stage(source, target, queue) {
  const text = readFileSync(source, "utf8").replace(specifierPattern, (whole, lead, specifier) => {
    let dep = protoSource(specifier);
    if (!dep && specifier.startsWith(".") && source.startsWith(protoDir)) dep = join(dirname(source), specifier.replace(/\.js$/, ".ts"));
    if (!dep) {
      if (!specifier.startsWith(".") && !specifier.startsWith("node:") && !runtimeDependencies.some((d) => specifier === d || specifier.startsWith(`${d}/`)))
        throw new Error(`${relative(root, source)} imports ${specifier}, which the published package does not depend on`);
      return whole;
    }
    if (!existsSync(dep)) throw new Error(`${relative(root, source)} imports ${specifier}: no ${relative(root, dep)}`);
    const staged = stagedProtoPath(dep);
    queue.push(dep);
    let rel = relative(dirname(target), staged).replace(/\.ts$/, ".js");
    if (!rel.startsWith(".")) rel = `./${rel}`;
    return `${lead}"${rel}"`;
  });
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, text);
}

rmSync(out, { recursive: true, force: true });
rmSync(staging, { recursive: true, force: true });
const queue = [];
for (const name of readdirSync(join(clientDir, "src"), { recursive: true, encoding: "utf8" })) {
  if (!name.endsWith(".ts") || name.endsWith(".test.ts")) continue;
  stage(join(clientDir, "src", name), join(staging, "src", name), queue);
}
const done = new Set();
while (queue.length > 0) {
  const source = queue.pop();
  if (done.has(source)) continue;
  done.add(source);
  stage(source, stagedProtoPath(source), queue);
}

writeFileSync(
  join(staging, "tsconfig.json"),
  JSON.stringify(
    {
      compilerOptions: {
        target: "es2022",
        lib: ["es2022"],
        module: "nodenext",
        moduleResolution: "nodenext",
        strict: true,
        declaration: true,
        sourceMap: false,
        skipLibCheck: true,
        types: ["node"],
        typeRoots: [join(root, "node_modules", "@types")],
        rootDir: "src",
        outDir: join(out, "dist"),
      },
      include: ["src/**/*.ts"],
    },
    null,
    2,
  ),
);
// The staging folder sits inside the workspace, so its imports resolve from the repository's node_modules.
execFileSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", join(staging, "tsconfig.json")], { stdio: "inherit" });

const dependencies = Object.fromEntries(runtimeDependencies.map((d) => [d, workspacePackage.dependencies[d]]));
const published = {
  name: PUBLISHED_NAME,
  version: workspacePackage.version,
  description: "The Node client of Enclave's control-plane gRPC API: conversations, runs, tool calls, cards and audit events.",
  license: workspacePackage.license,
  type: "module",
  engines: { node: ">=20" },
  main: "./dist/index.js",
  types: "./dist/index.d.ts",
  exports: { ".": { types: "./dist/index.d.ts", default: "./dist/index.js" }, "./package.json": "./package.json" },
  files: ["dist", "README.md", "LICENSE"],
  dependencies,
};
writeFileSync(join(out, "package.json"), `${JSON.stringify(published, null, 2)}\n`);
cpSync(join(clientDir, "README.md"), join(out, "README.md"));
cpSync(join(root, "LICENSE"), join(out, "LICENSE"));
console.log(`built ${PUBLISHED_NAME}@${published.version} in ${relative(root, out)} (${done.size} files of @enclave/proto copied in)`);
