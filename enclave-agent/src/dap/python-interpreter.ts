// Which Python debugpy uses for a project. A project-local `.venv/bin/python` or `venv/bin/python`
// wins over `$PATH` (a `$PATH` python is a different environment: imports that work in the project fail
// under it, which reads like broken code). The adapter itself may run under another interpreter
// that has debugpy (Debian's python3-debugpy) as long as the project's interpreter can load it too.
// Only a launch runs the project's interpreter to check that: describing (`adapters`, Describe) runs
// nothing from the workspace, whose files are whoever-wrote-them's programs.
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { PROJECT_LOCAL_NOTE, searchPath } from "../exec/resolve-binary.js";
import { probe } from "../exec/probe.js";
import { brokenVenvMessage, configuredPython, projectVenvPython } from "../python/project-python.js";

export interface PythonChoice {
  /** The interpreter that runs the program (the debuggee). */
  interpreter: string;
  /** Why this one: "project .venv", "first python3 on PATH with debugpy", … */
  origin: string;
  /** The interpreter that runs `-m debugpy.adapter`. */
  adapterPython: string;
  /** The project's own interpreter, named but not run to check it (describing only). */
  unchecked?: boolean;
}

export type PythonResolution = { ok: true; choice: PythonChoice } | { ok: false; missingBinary: boolean; detail: string };

const FIND_DEBUGPY = "import debugpy, os; print(os.path.dirname(os.path.dirname(debugpy.__file__)))";
// A project's own debugpy must also load its debugger (pydevd and its dependencies), not just import.
const LOAD_DEBUGPY = "import debugpy, debugpy.server, os; print(os.path.dirname(os.path.dirname(debugpy.__file__)))";

function lastLine(s: string): string {
  return s.split("\n").filter(Boolean).pop() ?? s;
}

/** The configured interpreter (ENCLAVE_PYTHON), then every `python3` along PATH, in order, deduplicated by real path. */
function pathPythons(): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  const configured = configuredPython();
  for (const p of [...(configured ? [configured] : []), ...searchPath().map((dir) => join(dir, "python3"))]) {
    if (!existsSync(p)) continue;
    let real = p;
    try {
      real = realpathSync(p);
    } catch {
      continue;
    }
    if (seen.has(real)) continue;
    seen.add(real);
    out.push(p);
  }
  return out;
}

/** launch: about to run the program, so the project's interpreter may be run to check it; describe: it may not. */
export type PythonPurpose = "launch" | "describe";

/**
 * The project's interpreter named without running it. Whether it can load debugpy (its own, or a PATH
 * python's) is learnt at launch; the PATH pythons, which are the host's or the image's, may be asked.
 */
async function describeVenv(venv: string, candidates: string[]): Promise<PythonResolution> {
  for (const py of candidates) {
    if (!(await probe(py, ["-c", FIND_DEBUGPY])).ok) continue;
    const origin = `project virtual environment (${venv}, ${PROJECT_LOCAL_NOTE}: a launch uses its own debugpy, else ${py}'s if it can load that one)`;
    return { ok: true, choice: { interpreter: venv, origin, adapterPython: py, unchecked: true } };
  }
  const origin = `project virtual environment (${venv}, ${PROJECT_LOCAL_NOTE}: a launch needs debugpy installed in it, as no python3 on PATH has one)`;
  return { ok: true, choice: { interpreter: venv, origin, adapterPython: venv, unchecked: true } };
}

/** What pyvenv.cfg says about a virtual environment whose python is `venvPython`. */
function venvConfig(venvPython: string): { systemSite: boolean } {
  try {
    const cfg = readFileSync(join(dirname(dirname(venvPython)), "pyvenv.cfg"), "utf8");
    return { systemSite: /^\s*include-system-site-packages\s*=\s*true\s*$/im.test(cfg) };
  } catch {
    return { systemSite: false };
  }
}

/**
 * How to give a venv debugpy, leaving out what was already done: no "recreate it with
 * --system-site-packages" for one that has them, no "pip install" through a pip it lacks.
 */
function venvFixes(venv: string, donor: string | undefined): string {
  const bin = dirname(venv);
  const hasPip = existsSync(join(bin, "pip")) || existsSync(join(bin, "pip3"));
  const install = hasPip
    ? `install it there (\`${venv} -m pip install debugpy\`)`
    : `install it there (it has no pip: \`${venv} -m ensurepip && ${venv} -m pip install debugpy\`)`;
  const { systemSite } = venvConfig(venv);
  if (systemSite) return `${install}; it already sees the system's site-packages, so what fails to import there is named above`;
  return donor ? `${install}, or recreate the environment with --system-site-packages so it sees ${donor}'s debugpy` : install;
}

export async function resolvePython(projectFolders: string[], purpose: PythonPurpose): Promise<PythonResolution> {
  const found = projectVenvPython(projectFolders);
  if (found && !found.runnable) return { ok: false, missingBinary: true, detail: brokenVenvMessage(found) };
  const venv = found?.python;
  const candidates = pathPythons();
  if (venv && purpose === "describe") return describeVenv(venv, candidates);
  if (venv) {
    const own = await probe(venv, ["-c", LOAD_DEBUGPY]);
    const where = venv;
    if (own.ok) return { ok: true, choice: { interpreter: venv, origin: `project virtual environment (${where}), which has debugpy`, adapterPython: venv } };
    // The venv lacks debugpy: run the adapter under a PATH python that has it, provided the venv's
    // interpreter can load that debugpy (and its dependencies) when the launcher points it there.
    const reasons: string[] = [];
    let donor: string | undefined;
    for (const py of candidates) {
      const found = await probe(py, ["-c", FIND_DEBUGPY]);
      if (!found.ok) continue;
      donor ??= py;
      // As debugpy's launcher does: its parent folder on sys.path only while `import debugpy` runs
      // (debugpy/__main__.py removes it again), so its other imports must resolve in the venv itself.
      const load = await probe(venv, [
        "-c",
        `import sys; sys.path.insert(0, ${JSON.stringify(found.output)}); import debugpy; del sys.path[0]; import debugpy.server`,
      ]);
      if (load.ok) {
        return { ok: true, choice: { interpreter: venv, origin: `project virtual environment (${where}), debugpy from ${py}`, adapterPython: py } };
      }
      reasons.push(`it cannot load the debugpy of ${py}: ${lastLine(load.output)}`);
    }
    return {
      ok: false,
      missingBinary: true,
      detail: `the project's interpreter ${venv} has no debugpy${reasons.length ? ` and ${reasons.join("; ")}` : " and no python3 on PATH has one"}; ${venvFixes(venv, donor)}`,
    };
  }
  const skipped: string[] = [];
  for (const py of candidates) {
    const found = await probe(py, ["-c", FIND_DEBUGPY]);
    if (found.ok) {
      const origin = skipped.length ? `first python3 on PATH with debugpy (skipped ${skipped.join(", ")}: no debugpy)` : "python3 on PATH";
      return { ok: true, choice: { interpreter: py, origin, adapterPython: py } };
    }
    skipped.push(py);
  }
  return {
    ok: false,
    missingBinary: true,
    detail: candidates.length
      ? `no python3 on PATH can import debugpy (tried ${candidates.join(", ")}) and the project has no .venv or venv; apt-get install python3-debugpy, or create a .venv with debugpy`
      : "`python3` is not on PATH and the project has no .venv or venv; apt-get install python3 python3-debugpy",
  };
}
