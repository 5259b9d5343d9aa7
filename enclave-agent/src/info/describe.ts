// Describe: which language servers, debug adapters, kernels and grammars this placement can run, and
// for each that cannot, why and how to fix it. Root markers are a per-checkout question asked at call
// time by the lsp and debug tools; this answers the placement's half (binaries and files).
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Component } from "../../../proto/gen/enclave/agent/v1/info.js";
import { DEBUG_ADAPTERS } from "../dap/adapter-registry.js";
import { GRAMMARS } from "../ast/grammar-registry.js";
import { KERNELS } from "../kernels/kernel-registry.js";
import { basePython } from "../kernels/python-environment.js";
import { LANGUAGE_SERVERS } from "../lsp/server-registry.js";
import { resolveBinary } from "../exec/resolve-binary.js";

function pythonHasModule(python: string, module: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(python, ["-c", `import ${module}`], { timeout: 10_000 }, (err) => resolve(!err));
  });
}

function missing(binary: string, install: string): string {
  return `\`${binary}\` is not on PATH here; ${install}`;
}

export async function describeComponents(workspaceRoot: string, grammarDir: string): Promise<Component[]> {
  const out: Component[] = [];
  for (const s of LANGUAGE_SERVERS) {
    const bin = s.command[0] ?? "";
    const found = resolveBinary(bin, workspaceRoot);
    out.push({ kind: "language_server", id: s.id, usable: Boolean(found), detail: found ?? missing(bin, s.install) });
  }
  for (const a of DEBUG_ADAPTERS) {
    let detail = "";
    let usable = false;
    for (const argv of a.commands) {
      const found = resolveBinary(argv[0] ?? "", workspaceRoot);
      if (!found) continue;
      if (a.pythonModule && !(await pythonHasModule(found, a.pythonModule))) {
        detail = `${found} cannot import ${a.pythonModule}; ${a.install}`;
        continue;
      }
      usable = true;
      detail = [found, ...argv.slice(1)].join(" ");
      break;
    }
    if (!usable && !detail) detail = missing(a.commands.map((c) => c[0]).join("` or `"), a.install);
    out.push({ kind: "debug_adapter", id: a.id, usable, detail });
  }
  for (const k of KERNELS) {
    // The interpreter the kernel will really use: a project .venv or ENCLAVE_PYTHON for Python, the
    // agent's own Node for JavaScript.
    const found = k.language === "python" ? basePython(workspaceRoot) : process.env.ENCLAVE_NODE || process.execPath;
    out.push({ kind: "kernel", id: k.language, usable: Boolean(found), detail: found ?? missing(k.binary, k.install) });
  }
  for (const g of GRAMMARS) {
    const file = join(grammarDir, g.wasm);
    const usable = existsSync(file);
    out.push({ kind: "grammar", id: g.id, usable, detail: usable ? file : `${g.wasm} is not in ${grammarDir}; grammars are built by \`make build\`` });
  }
  return out;
}
