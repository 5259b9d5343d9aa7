// import() from a cell resolves like an import written in a file of the working directory: relative
// paths from there, bare names from its node_modules (CommonJS and ESM-only packages alike).
import { existsSync, readFileSync } from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

type Exports = string | null | { [condition: string]: Exports } | Exports[];

function pickExport(target: Exports): string | undefined {
  if (typeof target === "string") return target;
  if (Array.isArray(target)) {
    for (const t of target) {
      const got = pickExport(t);
      if (got) return got;
    }
    return undefined;
  }
  if (target && typeof target === "object") {
    for (const cond of ["import", "node", "module", "default", "require"]) {
      if (cond in target) {
        const got = pickExport(target[cond] ?? null);
        if (got) return got;
      }
    }
  }
  return undefined;
}

/** An ESM-only package (its exports give no `require` entry): find its entry by hand. */
function resolveEsmPackage(spec: string, from: string): string | undefined {
  const parts = spec.split("/");
  const name = spec.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? spec);
  const subpath = `.${spec.slice(name.length)}`;
  for (let dir = from; ; dir = dirname(dir)) {
    const pkgDir = join(dir, "node_modules", name);
    const pkgJson = join(pkgDir, "package.json");
    if (existsSync(pkgJson)) {
      const pkg = JSON.parse(readFileSync(pkgJson, "utf8")) as { exports?: Exports; module?: string; main?: string };
      let entry: string | undefined;
      if (pkg.exports !== undefined) {
        const exp = pkg.exports;
        const map = typeof exp === "object" && exp !== null && !Array.isArray(exp) && Object.keys(exp).some((k) => k.startsWith(".")) ? exp : { ".": exp };
        entry = pickExport((map as Record<string, Exports>)[subpath] ?? null);
      } else if (subpath === ".") {
        entry = pkg.module ?? pkg.main ?? "index.js";
      } else {
        entry = subpath;
      }
      return entry ? resolve(pkgDir, entry) : undefined;
    }
    if (dirname(dir) === dir) return undefined;
  }
}

export function importFromCell(specifier: unknown): Promise<unknown> {
  const spec = String(specifier);
  const cwd = process.cwd();
  if (spec.startsWith("node:") || builtinModules.includes(spec) || /^[a-z][a-z0-9+.-]*:/i.test(spec)) return import(spec);
  if (spec.startsWith(".") || spec.startsWith("/")) return import(pathToFileURL(resolve(cwd, spec)).href);
  let file: string | undefined;
  try {
    file = createRequire(join(cwd, "[cell].js")).resolve(spec);
  } catch {
    file = resolveEsmPackage(spec, cwd);
  }
  if (!file) return Promise.reject(new Error(`Cannot find package '${spec}' from ${cwd} (looked in node_modules up from there)`));
  return import(pathToFileURL(file).href);
}
