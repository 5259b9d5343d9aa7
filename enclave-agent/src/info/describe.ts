// Describe: which language servers, debug adapters, kernels and grammars this placement can run, and
// for each that cannot, why and how to fix it. Root markers are a per-checkout question asked at call
// time by the lsp and debug tools; this answers the placement's half (binaries and files). It runs
// nothing from the workspace: a project's own server, adapter or interpreter is named (it exists and
// is executable) and marked as not run; only a real call starts it.
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Component } from "@enclave/proto/gen/enclave/agent/v1/info.js";
import { adapterAvailability } from "../dap/adapter-availability.js";
import { DEBUG_ADAPTERS } from "@enclave/proto/adapter-registry.js";
import { GRAMMARS } from "../ast/grammar-registry.js";
import { KERNELS } from "../kernels/kernel-registry.js";
import { basePython } from "../kernels/python-environment.js";
import { LANGUAGE_SERVERS } from "@enclave/proto/server-registry.js";
import { checkServerBinary } from "../lsp/server-binary.js";
import { describeBinary, PROJECT_LOCAL_NOTE } from "../exec/resolve-binary.js";

function missing(binary: string, install: string): string {
  return `\`${binary}\` is not on PATH here; ${install}`;
}

export async function describeComponents(workspaceRoot: string, grammarDir: string): Promise<Component[]> {
  const out: Component[] = [];
  for (const s of LANGUAGE_SERVERS) {
    const found = checkServerBinary(s, workspaceRoot);
    out.push({ kind: "language_server", id: s.id, usable: found.ok, detail: found.ok ? describeBinary(found) : found.why });
  }
  // The debug tool's own resolution (debugpy: the project's venv first, then a PATH python with debugpy).
  for (const a of DEBUG_ADAPTERS) {
    const avail = await adapterAvailability(a, workspaceRoot);
    const usable = avail.state !== "missing_binary";
    const note = avail.unchecked ? ` (${PROJECT_LOCAL_NOTE})` : "";
    const detail = usable ? `${(avail.command ?? []).join(" ")}${avail.interpreter ? ` (interpreter ${avail.interpreter})` : ""}${note}` : avail.detail;
    out.push({ kind: "debug_adapter", id: a.id, usable, detail });
  }
  for (const k of KERNELS) {
    // The interpreter the kernel will really use: a project .venv or ENCLAVE_PYTHON for Python, the
    // agent's own Node for JavaScript.
    const found = k.language === "python" ? basePython(workspaceRoot) : process.env.ENCLAVE_NODE || process.execPath;
    const detail = found ? describeBinary({ path: found, projectLocal: found.startsWith(`${workspaceRoot}/`) }) : missing(k.binary, k.install);
    out.push({ kind: "kernel", id: k.language, usable: Boolean(found), detail });
  }
  for (const g of GRAMMARS) {
    const file = join(grammarDir, g.wasm);
    const usable = existsSync(file);
    out.push({ kind: "grammar", id: g.id, usable, detail: usable ? file : `${g.wasm} is not in ${grammarDir}; grammars are built by \`make build\`` });
  }
  return out;
}
