// Which Python a project means, one answer for every part of the agent that runs the project's code
// (eval's kernel, debug's debuggee), so a cell and a debug session never disagree on it. A project's
// own virtual environment wins, in the nearest folder that has one from the code's own folder up to
// the workspace root; else the interpreter configured for the agent (ENCLAVE_PYTHON); else python3
// from PATH, which the caller picks among by what it needs.
import { existsSync, lstatSync } from "node:fs";
import { dirname, join } from "node:path";
import { resolveBinary } from "../exec/resolve-binary.js";

export const VENV_PYTHONS = [".venv/bin/python", "venv/bin/python"] as const;

export interface ProjectVenv {
  /** The environment's python, as the project names it (not resolved through its link). */
  python: string;
  /** False when it is there but cannot run (a broken link, a file without the execute bit): the
   * project still means it, so callers report it rather than quietly run another Python. */
  runnable: boolean;
}

/** The project's own virtual environment in the nearest of `folders` (nearest first) that has one. */
export function projectVenvPython(folders: readonly string[]): ProjectVenv | undefined {
  for (const folder of folders) {
    for (const rel of VENV_PYTHONS) {
      const p = join(folder, rel);
      let present = existsSync(p);
      if (!present) {
        try {
          // A dangling link is still the project's environment, broken.
          present = lstatSync(p).isSymbolicLink();
        } catch {
          present = false;
        }
      }
      if (present) return { python: p, runnable: resolveBinary(p) !== undefined };
    }
  }
  return undefined;
}

/** The interpreter configured for the agent (ENCLAVE_PYTHON), resolved, when set and runnable. */
export function configuredPython(): string | undefined {
  const configured = process.env.ENCLAVE_PYTHON;
  return configured ? resolveBinary(configured) : undefined;
}

/** Why the host's control plane did not show a venv's base Python in the sandbox, by the venv's folder. */
const refusedBases = new Map<string, { code: string; message: string }>();

/** Notes the control plane's refusals (`--venv-refused FOLDER<TAB>CODE<TAB>MESSAGE`), so a broken venv says why. */
export function noteVenvRefusals(entries: readonly string[]): void {
  for (const entry of entries) {
    const [folder, code, ...rest] = entry.split("\t");
    if (folder && code) refusedBases.set(folder, { code, message: rest.join("\t") });
  }
}

/** What to tell the user about a project environment that cannot run. */
export function brokenVenvMessage(venv: ProjectVenv): string {
  const refused = refusedBases.get(dirname(dirname(venv.python)));
  if (refused) return `the project's interpreter ${venv.python} cannot run here: ${refused.message} [${refused.code}]`;
  return `the project's interpreter ${venv.python} is not an executable file; recreate the environment (python3 -m venv ${venv.python.split("/").slice(-3, -2)[0] ?? ".venv"})`;
}
