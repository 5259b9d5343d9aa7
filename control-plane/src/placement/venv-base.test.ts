import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { judgeVenvHome, venvBasesToBind, workspaceVenvBases } from "./venv-base.js";

/** A stand-in installation: bin/python3.11 (a regular executable file) and lib/python3.11/os.py. */
function fakeInstallation(prefix: string, opts: { lib?: boolean; mode?: number } = {}): void {
  mkdirSync(join(prefix, "bin"), { recursive: true });
  writeFileSync(join(prefix, "bin", "python3.11"), "#!/bin/sh\n");
  chmodSync(join(prefix, "bin", "python3.11"), opts.mode ?? 0o755);
  if (opts.lib !== false) {
    mkdirSync(join(prefix, "lib", "python3.11"), { recursive: true });
    writeFileSync(join(prefix, "lib", "python3.11", "os.py"), "");
  }
}

describe("venv bases", () => {
  let dir: string;
  let roots: string[];
  const forbidden: string[] = [];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "venv-base-"));
    roots = [join(dir, "pythons")];
    forbidden.push(join(dir, "data"), join(dir, "ws"));
    fakeInstallation(join(dir, "pythons", "3.11.7"));
    fakeInstallation(join(dir, "pythons", "nolib"), { lib: false });
    fakeInstallation(join(dir, "pythons", "private"), { mode: 0o750 });
    fakeInstallation(join(dir, "data", "py"));
    fakeInstallation(join(dir, "elsewhere", "py"));
    symlinkSync(join(dir, "pythons", "3.11.7"), join(dir, "pythons", "linked"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const judge = (home: string) => judgeVenvHome(".venv", home, { roots, forbidden });

  it("binds a real installation under an allowed root, by its home's prefix", async () => {
    const base = await judge(join(dir, "pythons", "3.11.7", "bin"));
    expect(base.refused).toBeUndefined();
    expect(venvBasesToBind([base, base])).toEqual([join(dir, "pythons", "3.11.7")]);
  });

  it("refuses, with a stable code, whatever is not one", async () => {
    const code = async (home: string) => (await judge(home)).refused?.code;
    expect(await code("/etc/bin")).toBe("venv_base_not_allowed");
    expect(await code("relative/bin")).toBe("venv_base_not_allowed");
    expect(await code(`${dir}/pythons/../elsewhere/py/bin`)).toBe("venv_base_not_allowed");
    expect(await code(join(dir, "elsewhere", "py", "bin"))).toBe("venv_base_not_allowed");
    // Under an allowed root, still never the data folder or a workspace, nor a folder above them.
    expect(await judgeVenvHome(".venv", join(dir, "data", "py", "bin"), { roots: [dir], forbidden }).then((b) => b.refused?.code)).toBe(
      "venv_base_not_allowed",
    );
    expect(await judgeVenvHome(".venv", dir, { roots: [dir], forbidden }).then((b) => b.refused?.code)).toBe("venv_base_not_allowed");
    expect(await code("/workspace/bin")).toBe("venv_base_not_allowed");
    expect(await code(join(dir, "pythons", "linked", "bin"))).toBe("venv_base_unreadable");
    expect(await code(join(dir, "pythons", "nolib", "bin"))).toBe("venv_base_not_python");
    expect(await code(join(dir, "pythons", "private", "bin"))).toBe("venv_base_not_python");
    expect(await code(join(dir, "pythons", "missing", "bin"))).toBe("venv_base_unreadable");
  });

  it("reads the workspace's venvs without following a link to another's", async () => {
    const ws = join(dir, "ws");
    mkdirSync(join(ws, ".venv"), { recursive: true });
    writeFileSync(join(ws, ".venv", "pyvenv.cfg"), `home = ${join(dir, "pythons", "3.11.7", "bin")}\n`);
    mkdirSync(join(ws, "sub", "venv"), { recursive: true });
    writeFileSync(join(dir, "other.cfg"), `home = ${join(dir, "pythons", "nolib", "bin")}\n`);
    symlinkSync(join(dir, "other.cfg"), join(ws, "sub", "venv", "pyvenv.cfg"));
    mkdirSync(join(dir, "othervenv"));
    writeFileSync(join(dir, "othervenv", "pyvenv.cfg"), `home = ${join(dir, "pythons", "nolib", "bin")}\n`);
    mkdirSync(join(ws, "linked"));
    symlinkSync(join(dir, "othervenv"), join(ws, "linked", ".venv"));
    const bases = await workspaceVenvBases(ws, { roots, forbidden: [] });
    expect(bases.map((b) => [b.venv, b.prefix, b.refused?.code])).toEqual([[".venv", join(dir, "pythons", "3.11.7"), undefined]]);
  });
});
