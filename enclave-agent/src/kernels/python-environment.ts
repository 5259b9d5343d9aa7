// Which Python a kernel runs, and where `%pip install` puts packages. A project's own virtual
// environment (.venv/ or venv/ in the workspace) is used as is. Otherwise the base interpreter
// (ENCLAVE_PYTHON, else python3 on PATH) gets a kernel environment of its own: a venv that sees the
// system's packages (pandas, matplotlib) and takes installs without touching the system, the
// read-only root of an enclosure or another conversation's environment. It lives in the agent's
// private state folder: at a path anyone can guess, a venv planted before the first kernel would run.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { probeSync } from "../exec/probe.js";
import { resolveBinary } from "../exec/resolve-binary.js";
import { AgentError } from "../errors.js";
import { LIMITS } from "../limits.js";
import { writeKernelVenv } from "./kernel-venv.js";
import { brokenVenvMessage, configuredPython, projectVenvPython } from "../python/project-python.js";

export interface PythonEnvironment {
  python: string;
  /** Set when the kernel runs in an environment made for it (PATH and VIRTUAL_ENV point there). */
  venv: string | undefined;
  /** Why no environment of its own could be made, when that failed. */
  note: string;
}

/** The interpreter a kernel runs (before any kernel environment): the project's own (a kernel's code
 * lives at the workspace root), else the configured one, else the default. A project environment
 * that cannot run is still returned: the kernel must not quietly run another Python instead. */
export function basePython(workspaceRoot: string): string | undefined {
  const venv = projectVenvPython([workspaceRoot]);
  if (venv) return venv.python;
  if (process.env.ENCLAVE_PYTHON) return configuredPython();
  return defaultPython();
}

let chosenDefault: string | undefined | null = null;

/**
 * python3 from PATH, unless it lacks the data stack (pandas, matplotlib) and the system's python3
 * has it: a host whose PATH starts with a bare pyenv or toolchain Python still gets DataFrames and
 * figures. Looked up once per agent (find_spec imports nothing, so it is quick).
 */
function defaultPython(): string | undefined {
  if (chosenDefault !== null) return chosenDefault;
  const candidates = [...new Set([resolveBinary("python3"), resolveBinary("/usr/bin/python3")].filter((p): p is string => !!p))];
  const hasDataStack = (py: string): boolean =>
    probeSync(py, ["-c", "import importlib.util as u, sys; sys.exit(0 if u.find_spec('pandas') and u.find_spec('matplotlib') else 1)"]).ok;
  chosenDefault = candidates.find(hasDataStack) ?? candidates[0];
  return chosenDefault;
}

function run(cmd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) =>
    execFile(cmd, args, { timeout: LIMITS.kernelStartTimeoutMs }, (err, _out, stderr) =>
      err ? reject(new Error(`${stderr || err.message}`.trim())) : resolve(),
    ),
  );
}

/** kernelsDir: the state folder's kernels/ folder, private to the agent. */
export async function pythonEnvironment(workspaceRoot: string, kernelsDir: string): Promise<PythonEnvironment> {
  const own = projectVenvPython([workspaceRoot]);
  if (own && !own.runnable) throw new AgentError("failed_precondition", brokenVenvMessage(own));
  const base = basePython(workspaceRoot);
  if (!base) {
    throw new AgentError(
      "unavailable",
      "no Python interpreter here: `python3` is not on PATH (and ENCLAVE_PYTHON is unset, and the workspace has no .venv); install python3",
    );
  }
  if (base.startsWith(`${workspaceRoot}/`)) return { python: base, venv: undefined, note: "" };
  const baseKey = createHash("sha256").update(base).digest("hex").slice(0, 8);
  const venv = join(kernelsDir, `python-${baseKey}`);
  const python = join(venv, "bin", "python");
  if (!existsSync(python)) {
    // `!pip install x` in a cell should install where `%pip` does: for this interpreter.
    const shims = (py: string): Record<string, string> => Object.fromEntries(["pip", "pip3"].map((n) => [n, `#!/bin/sh\nexec "${py}" -m pip "$@"\n`]));
    try {
      // Made again when a kernel starts after an agent restart removed it.
      mkdirSync(kernelsDir, { recursive: true, mode: 0o700 });
      if (!writeKernelVenv(base, venv, shims)) {
        await run(base, ["-m", "venv", "--without-pip", "--system-site-packages", venv]);
        for (const [name, text] of Object.entries(shims(python))) {
          writeFileSync(join(venv, "bin", name), text);
          chmodSync(join(venv, "bin", name), 0o755);
        }
      }
    } catch (err) {
      rmSync(venv, { recursive: true, force: true });
      return { python: base, venv: undefined, note: `no kernel environment (making the venv failed: ${(err as Error).message.split("\n").pop()})` };
    }
  }
  return { python, venv, note: "" };
}
