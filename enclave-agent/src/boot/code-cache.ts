// Compiles the agent bundle (CommonJS) with the V8 code cache the build made for it beside the bundle,
// so a start skips parsing and compiling the ~2 MB bundle. Node 18 has no compile cache of its own
// (module.enableCompileCache came in 22). The cache is only ever read from the bundle's own folder,
// which is root's and read-only in an enclosure: nothing the enclosure or a workspace can write is
// loaded as code. V8 checks the data against its version and flags and rejects a mismatch, and the
// file name carries the Node version it was made by, so another Node does not even try it.
import { readFileSync } from "node:fs";
import Module from "node:module";
import { Script, type ScriptOptions } from "node:vm";

export type CacheUse = "accepted" | "rejected" | "absent";

export interface CompiledBundle {
  script: Script;
  cache: CacheUse;
  /** Runs the bundle as the CommonJS module at its path. */
  run(): void;
}

/** Where the build puts the code cache for `bundle` made by Node `version`. */
export function cacheFileFor(bundle: string, version: string = process.version): string {
  return `${bundle}.node-${version.replace(/^v/, "")}.v8cache`;
}

export function compileBundle(bundle: string, cacheFile: string | undefined): CompiledBundle {
  const source = readFileSync(bundle, "utf8");
  let cachedData: Buffer | undefined;
  if (cacheFile) {
    try {
      cachedData = readFileSync(cacheFile);
    } catch {
      // No cache for this Node: compiled from source.
    }
  }
  const options: ScriptOptions = {
    filename: bundle,
    ...(cachedData ? { cachedData } : {}),
    // The bundle's own dynamic imports (Node's built-in modules, from web-tree-sitter).
    importModuleDynamically: ((specifier: string) => import(specifier)) as unknown as ScriptOptions["importModuleDynamically"],
  };
  const script = new Script(Module.wrap(source), options);
  const cache: CacheUse = !cachedData ? "absent" : script.cachedDataRejected ? "rejected" : "accepted";
  return {
    script,
    cache,
    run() {
      const wrapper = script.runInThisContext() as (exports: unknown, require: NodeRequire, module: Module, filename: string, dirname: string) => void;
      const mod = new Module(bundle);
      mod.filename = bundle;
      const dir = bundle.slice(0, bundle.lastIndexOf("/"));
      wrapper.call(mod.exports, mod.exports, Module.createRequire(bundle), mod, bundle, dir);
    },
  };
}
