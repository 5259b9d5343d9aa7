// A kernel environment made without running Python: what `python -m venv --without-pip
// --system-site-packages` makes on a POSIX system (pyvenv.cfg, the interpreter's links, an empty
// site-packages), written directly. Running the venv module costs a Python start-up and its imports
// (about 0.2 s of CPU here) on a new conversation's first cell; writing a dozen small files does not.
// Made in a temporary folder beside it and renamed into place, so a half-made environment never
// stands at the path a kernel would use. Only for an interpreter whose real file says its version
// (python3.11); anything else is left to the venv module.
import { existsSync, mkdirSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** The X.Y of an interpreter from its real file's name, or undefined when the name does not say. */
export function pythonVersionOf(base: string): string | undefined {
  let real: string;
  try {
    real = realpathSync(base);
  } catch {
    return undefined;
  }
  return /^python(\d+\.\d+)$/.exec(basename(real))?.[1];
}

/**
 * Writes a venv at `venv` for `base`; false (nothing written) when the interpreter's version cannot
 * be told from its file name. Throws on a file-system failure (nothing left behind).
 */
export function writeKernelVenv(base: string, venv: string, shims: (python: string) => Record<string, string>): boolean {
  const version = pythonVersionOf(base);
  if (!version) return false;
  const real = realpathSync(base);
  const tmp = `${venv}.tmp-${process.pid}-${Date.now()}`;
  try {
    mkdirSync(join(tmp, "bin"), { recursive: true, mode: 0o700 });
    mkdirSync(join(tmp, "include"));
    mkdirSync(join(tmp, "lib", `python${version}`, "site-packages"), { recursive: true });
    symlinkSync("lib", join(tmp, "lib64"));
    symlinkSync(base, join(tmp, "bin", "python3"));
    symlinkSync("python3", join(tmp, "bin", "python"));
    symlinkSync("python3", join(tmp, "bin", `python${version}`));
    for (const [name, text] of Object.entries(shims(join(venv, "bin", "python")))) writeFileSync(join(tmp, "bin", name), text, { mode: 0o755 });
    // What Python reads at start-up: `home` (where the base interpreter is) and whether the
    // system's packages are seen; the rest is what the venv module writes too.
    writeFileSync(
      join(tmp, "pyvenv.cfg"),
      `home = ${dirname(real)}\ninclude-system-site-packages = true\nversion = ${version}\nexecutable = ${real}\ncommand = (written by the enclave agent, as ${base} -m venv --without-pip --system-site-packages ${venv})\n`,
    );
    renameSync(tmp, venv);
    return true;
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    // Another kernel starting at the same moment made it first: use that one.
    if (existsSync(join(venv, "bin", "python"))) return true;
    throw err;
  }
}
