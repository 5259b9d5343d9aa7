// The published Node client as a user gets it: `npm pack` of the package the build script makes, that
// tarball installed alone into a scratch project (its dependencies from the registry), the README's
// TypeScript examples type-checked under the tsconfig shapes users have, and the quickstart run
// against a control plane started here.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";
import { type ControlPlaneProcess, startControlPlaneProcess, stopControlPlaneProcess } from "../helpers/control-plane-process.js";

const PACKAGE_NAME = "@enclave-sandbox/client";
const clientDir = join(repoRoot, "clients", "node");
const tsc = join(repoRoot, "node_modules", "typescript", "bin", "tsc");
const typesNode = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")).devDependencies["@types/node"] as string;

let scratch = "";
let tarball = "";

/** The first ```ts block of a Markdown file. */
function tsBlock(markdown: string): string {
  const m = /```ts\n([\s\S]*?)```/.exec(markdown);
  if (!m?.[1]) throw new Error("no ```ts block");
  return m[1];
}

/** The tsconfig shapes users compile with; each must accept the examples without skipLibCheck. */
const SHAPES: Record<string, Record<string, unknown>> = {
  nodenext: { module: "nodenext", moduleResolution: "nodenext", target: "es2022", strict: true, outDir: "out" },
  bundler: { module: "preserve", moduleResolution: "bundler", target: "es2022", strict: true, noEmit: true },
  "es2020-lib-es2022": { module: "nodenext", moduleResolution: "nodenext", target: "es2020", lib: ["es2022"], strict: true, noEmit: true },
  strictest: {
    module: "nodenext",
    moduleResolution: "nodenext",
    target: "es2022",
    strict: true,
    noPropertyAccessFromIndexSignature: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    noEmit: true,
  },
};

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "enclave-client-package-"));
  execFileSync(process.execPath, [join(clientDir, "scripts", "build-package.mjs")], { stdio: "pipe" });
  const packDir = join(scratch, "pack");
  mkdirSync(packDir);
  const packed = JSON.parse(
    execFileSync("npm", ["pack", "--json", "--pack-destination", packDir], { cwd: join(clientDir, "dist", "package"), encoding: "utf8" }),
  ) as Array<{ filename: string }>;
  tarball = join(packDir, packed[0]?.filename ?? "");
  const project = join(scratch, "project");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "scratch", private: true, type: "module" }));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", tarball, `@types/node@${typesNode}`], { cwd: project, stdio: "pipe" });
  const quickstart = readFileSync(join(repoRoot, "docs", "examples", "quickstart.ts"), "utf8").replace('from "enclave/client"', `from "${PACKAGE_NAME}"`);
  writeFileSync(join(project, "quickstart.ts"), quickstart);
  writeFileSync(join(project, "readme-example.ts"), tsBlock(readFileSync(join(clientDir, "README.md"), "utf8")));
  for (const [shape, compilerOptions] of Object.entries(SHAPES)) {
    const tsconfig = { compilerOptions: { ...compilerOptions, types: ["node"] }, files: ["quickstart.ts", "readme-example.ts"] };
    writeFileSync(join(project, `tsconfig.${shape}.json`), JSON.stringify(tsconfig));
  }
}, 300_000);

/** tsc's complaints about the scratch project under one shape ("" when it compiles). */
function typeCheck(shape: string): string {
  try {
    execFileSync(process.execPath, [tsc, "-p", `tsconfig.${shape}.json`], { cwd: join(scratch, "project"), encoding: "utf8", stdio: "pipe" });
    return "";
  } catch (err) {
    return String((err as { stdout?: string }).stdout ?? err);
  }
}

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe("the client package", () => {
  it("holds compiled JavaScript and .d.ts, and depends on grpc-js and the protobuf runtime only", () => {
    const listing = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).split("\n").filter(Boolean).sort();
    expect(listing).toContain("package/dist/index.js");
    expect(listing).toContain("package/dist/index.d.ts");
    expect(listing).toContain("package/LICENSE");
    expect(listing.filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))).toEqual([]);
    const installed = JSON.parse(readFileSync(join(scratch, "project", "node_modules", PACKAGE_NAME, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
      license: string;
    };
    expect(Object.keys(installed.dependencies).sort()).toEqual(["@bufbuild/protobuf", "@grpc/grpc-js"]);
    expect(installed.license).toBe("Apache-2.0");
  });

  it("exports at run time what callers branch on: the error class, the codes, the surfaces and policies", () => {
    const script = `import("${PACKAGE_NAME}").then((m) => console.log(JSON.stringify(Object.keys(m).sort())))`;
    const names = JSON.parse(execFileSync(process.execPath, ["-e", script], { cwd: join(scratch, "project"), encoding: "utf8" })) as string[];
    expect(names).toEqual(
      expect.arrayContaining([
        "APPROVAL_POLICIES",
        "ControlPlaneCallError",
        "ControlPlaneUnreachable",
        "ENCLAVE_ERROR_CODES",
        "EnclaveClient",
        "GrpcStatus",
        "SURFACES",
        "resultText",
      ]),
    );
  });

  for (const shape of Object.keys(SHAPES)) {
    it(`type-checks the README examples under the ${shape} tsconfig`, () => {
      expect(typeCheck(shape)).toBe("");
    });
  }

  describe("run against a control plane", () => {
    let cp: ControlPlaneProcess | undefined;
    let dataDir = "";
    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), "enclave-client-package-cp-"));
      cp = await startControlPlaneProcess(dataDir);
    });
    afterAll(async () => {
      if (cp) await stopControlPlaneProcess(cp, "SIGTERM");
      rmSync(dataDir, { recursive: true, force: true });
    });

    it("the quickstart, compiled under nodenext, runs to its end with the installed package", () => {
      const project = join(scratch, "project");
      expect(typeCheck("nodenext")).toBe("");
      const out = execFileSync(process.execPath, [join(project, "out", "quickstart.js")], {
        cwd: project,
        encoding: "utf8",
        env: { ...process.env, ENCLAVE_ADDRESS: cp?.address ?? "" },
        timeout: 120_000,
      });
      // What each line prints: exec's output and status, the table's MIME types, the error's name, the file after the staged rewrite.
      expect(out.trimEnd().split("\n")).toEqual([
        "hello",
        " exit code 3",
        "[ 'text/markdown', 'text/html', 'text/plain' ]",
        "ZeroDivisionError",
        'print("hello", flush=True)',
      ]);
    });
  });
});
