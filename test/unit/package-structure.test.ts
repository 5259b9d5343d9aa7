// The workspace packages import only downwards (images → control-plane → client → proto,
// enclave-agent → proto; nothing imports images). tsc -b enforces it through each package's project
// references: a scratch copy of the real tsconfig files, with a deliberate relative import of another
// package's sources, must fail to build. An import by package name of a package not referenced is
// type-checked by tsc like any dependency's, so the checks below (and ESLint's no-restricted-imports
// per package) read the import lines and the package manifests.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";
import { afterAll, describe, expect, it } from "vitest";

const tsc = join(repoRoot, "node_modules", "typescript", "bin", "tsc");
const scratchDirs: string[] = [];

afterAll(() => {
  for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
});

/** A scratch tree with the repository's own tsconfig files (root, proto, client, agent, control plane) and one source file each. */
function scratchTree(controlPlaneSource: string): string {
  const dir = mkdtempSync(join(tmpdir(), "enclave-packages-"));
  scratchDirs.push(dir);
  const files: Record<string, string> = {
    "test/kit/src/k.ts": "export const k = 1;\n",
    "proto/src/p.ts": "export const p = 1;\n",
    "proto/gen/g.ts": "export const g = 1;\n",
    "clients/node/src/index.ts": 'import { p } from "@enclave/proto/p.js";\nexport const c = p;\n',
    "enclave-agent/src/a.ts": 'import { p } from "@enclave/proto/p.js";\nexport const a = p;\n',
    "control-plane/src/b.ts": controlPlaneSource,
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  copyFileSync(join(repoRoot, "tsconfig.json"), join(dir, "tsconfig.json"));
  mkdirSync(join(dir, "node_modules", "@enclave"), { recursive: true });
  symlinkSync(join(repoRoot, "node_modules", "@types"), join(dir, "node_modules", "@types"));
  for (const [pkg, name] of [
    ["test/kit", "test-kit"],
    ["proto", "proto"],
    ["clients/node", "client"],
    ["enclave-agent", "agent"],
    ["control-plane", "control-plane"],
  ] as const) {
    copyFileSync(join(repoRoot, pkg, "tsconfig.json"), join(dir, pkg, "tsconfig.json"));
    copyFileSync(join(repoRoot, pkg, "package.json"), join(dir, pkg, "package.json"));
    symlinkSync(join(dir, pkg), join(dir, "node_modules", "@enclave", name));
  }
  return dir;
}

function build(dir: string): { ok: boolean; output: string } {
  try {
    execFileSync(process.execPath, [tsc, "-b", join(dir, "control-plane")], { encoding: "utf8", stdio: "pipe" });
    return { ok: true, output: "" };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string };
    return { ok: false, output: `${e.stdout ?? ""}${e.stderr ?? ""}` };
  }
}

describe("tsc -b and the packages' project references", () => {
  it("builds the control plane importing what it references (proto, by name)", () => {
    const dir = scratchTree('import { p } from "@enclave/proto/p.js";\nexport const b = p;\n');
    expect(build(dir)).toEqual({ ok: true, output: "" });
  });

  it("refuses the control plane importing the agent's sources by a relative path (TS6307)", () => {
    const dir = scratchTree('import { a } from "../../enclave-agent/src/a.js";\nexport const b = a;\n');
    const r = build(dir);
    expect(r.ok).toBe(false);
    expect(r.output).toContain("TS6307");
  });

  it("would build the same import were the agent referenced (what the references rule out)", () => {
    const dir = scratchTree('import { a } from "../../enclave-agent/src/a.js";\nexport const b = a;\n');
    const config = join(dir, "control-plane", "tsconfig.json");
    const parsed = JSON.parse(readFileSync(config, "utf8")) as { references: Array<{ path: string }> };
    parsed.references.push({ path: "../enclave-agent" });
    writeFileSync(config, JSON.stringify(parsed));
    expect(build(dir).ok).toBe(true);
  });
});

const PACKAGE_DIRS = ["proto", "enclave-agent", "clients/node", "control-plane", "images", "test"];

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      if (name === "node_modules" || name === "dist" || name === "fixtures" || name === "artifacts") continue;
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith(".ts")) out.push(p);
    }
  };
  walk(join(repoRoot, dir));
  return out;
}

/** Each module specifier a file imports (static, dynamic and re-exports). */
function specifiers(file: string): string[] {
  return [...readFileSync(file, "utf8").matchAll(/(?:from|import)\s*\(?\s*["']([^"'\n]+)["']/g)].map((m) => m[1] ?? "");
}

/** The package folder a specifier reaches, relative to the repository: a name, or a relative path out of the file's package. */
function reaches(file: string, spec: string): string | undefined {
  const named = /^@enclave\/([^/]+)/.exec(spec)?.[1];
  if (named) return { proto: "proto", agent: "enclave-agent", client: "clients/node", "control-plane": "control-plane", images: "images", test: "test" }[named];
  if (!spec.startsWith(".")) return undefined;
  const target = relative(repoRoot, join(dirname(file), spec));
  return PACKAGE_DIRS.find((d) => target === d || target.startsWith(`${d}/`));
}

describe("what each package imports", () => {
  const uses = (dir: string): Set<string> => {
    const found = new Set<string>();
    for (const file of sourceFiles(dir)) {
      for (const spec of specifiers(file)) {
        const to = reaches(file, spec);
        if (to && to !== dir) found.add(to);
      }
    }
    return found;
  };

  it("the control plane imports nothing of the agent, nor the image pipeline", () => {
    const found = uses("control-plane");
    expect(found.has("enclave-agent")).toBe(false);
    expect(found.has("images")).toBe(false);
  });

  it("the image pipeline is imported by no package but the tests", () => {
    for (const dir of PACKAGE_DIRS.filter((d) => d !== "images" && d !== "test")) expect([dir, uses(dir).has("images")]).toEqual([dir, false]);
  });

  it("proto imports no other package; the agent and the client only proto", () => {
    expect([...uses("proto")]).toEqual([]);
    expect([...uses("enclave-agent")]).toEqual(["proto"]);
    expect([...uses("clients/node")]).toEqual(["proto"]);
  });

  it("each package.json declares the workspace packages its files import", () => {
    const names: Record<string, string> = {
      proto: "@enclave/proto",
      "enclave-agent": "@enclave/agent",
      "clients/node": "@enclave/client",
      "control-plane": "@enclave/control-plane",
      images: "@enclave/images",
    };
    for (const dir of PACKAGE_DIRS) {
      const manifest = JSON.parse(readFileSync(join(repoRoot, dir, "package.json"), "utf8")) as { dependencies?: Record<string, string> };
      const declared = Object.keys(manifest.dependencies ?? {}).filter((d) => d.startsWith("@enclave/"));
      const used = [...uses(dir)].map((d) => names[d] ?? d);
      expect([dir, [...used].sort()]).toEqual([dir, declared.filter((d) => used.includes(d)).sort()]);
      if (dir !== "test") expect([dir, declared.includes("@enclave/images")]).toEqual([dir, false]);
    }
  });
});

describe("bin/enclave", () => {
  it("skips the values of exactly the CLI's string options when it looks for the command", () => {
    const options = readFileSync(join(repoRoot, "control-plane", "src", "cli", "options.ts"), "utf8");
    const stringOptions = [...options.matchAll(/^\s*"?([\w-]+)"?: \{ type: "string"(?:, short: "(\w)")? \}/gm)].flatMap((m) => [
      `--${m[1]}`,
      ...(m[2] ? [`-${m[2]}`] : []),
    ]);
    const bin = readFileSync(join(repoRoot, "bin", "enclave"), "utf8");
    const listed = /value_options=" ([^"]*) "/.exec(bin)?.[1]?.split(" ") ?? [];
    expect(stringOptions.length).toBeGreaterThan(10);
    expect([...listed].sort()).toEqual([...stringOptions].sort());
  });
});
