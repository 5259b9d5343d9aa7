// debug on host placement with a project .venv made by a Python the sandbox does not see (pyenv
// under a home, /opt/python…): the control plane shows that installation read-only, and only when it
// is one under a root the operator allows; a venv naming /etc or the data folder gets nothing mounted.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DebugHarness, openHarness } from "../helpers/debug-scenarios.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";

const WHOAMI = `import sys
print("prefix=" + sys.prefix)
print("base=" + sys.base_prefix)
`;

/**
 * A Python installation outside every folder the sandbox sees: pyenv's, where this machine has one;
 * else one made here, Debian's python3.11 and its standard library copied into a prefix of its own
 * (a Python finds its library beside its executable, so the copy runs as an installation of its own).
 */
function outsidePython(scratch: string): { prefix: string; version: string; root: string } {
  const pyenv = join(process.env.PYENV_ROOT ?? join(process.env.HOME ?? "/root", ".pyenv"), "versions");
  for (const v of ["3.11.7", "3.12.1", "3.13.0"]) {
    const prefix = join(pyenv, v);
    const version = v.split(".").slice(0, 2).join(".");
    if (existsSync(join(prefix, "bin", `python${version}`))) return { prefix, version, root: pyenv };
  }
  const version = "3.11";
  const root = join(scratch, "pythons");
  const prefix = join(root, "copied");
  mkdirSync(join(prefix, "bin"), { recursive: true });
  cpSync(`/usr/bin/python${version}`, join(prefix, "bin", `python${version}`));
  cpSync(`/usr/lib/python${version}`, join(prefix, "lib", `python${version}`), { recursive: true, verbatimSymlinks: true });
  return { prefix, version, root };
}

describe("debug on host placement: a project .venv made by a Python outside the sandbox", () => {
  let fx: Fixture;
  let scratch: string;
  let py: { prefix: string; version: string; root: string };

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), "enclave-venv-base-"));
    py = outsidePython(scratch);
    fx = await startFixture((config) => {
      config.hostSandbox.pythonRoots = ["/usr", "/opt", py.root, join(scratch, "allowed")];
    });
  });
  afterAll(async () => {
    await fx?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  /** The conversation's workspace on the host, with a pyproject.toml and whoami.py, before its agent starts. */
  async function project(id: string) {
    const h = await openHarness(fx, id, "host");
    const ws = fx.cp.getConversation(id).workspacePath;
    writeFileSync(join(ws, "pyproject.toml"), '[project]\nname = "v"\n');
    writeFileSync(join(ws, "whoami.py"), WHOAMI);
    return { h, ws };
  }

  /** The mount points the sandbox's processes see. */
  async function mountPoints(h: DebugHarness): Promise<string[]> {
    const info = await h.tool("exec", { command: "cut -d' ' -f5 /proc/self/mountinfo | sort -u" });
    return info.split("\n").filter((l) => l.startsWith("/"));
  }

  it("launches under that venv: its base installation is visible read-only, and nothing else of the host", async () => {
    const { h, ws } = await project("venv-outside");
    // Made on the host, as a user's own pyenv would: bin/python links to the installation's python.
    execFileSync(join(py.prefix, "bin", `python${py.version}`), ["-m", "venv", "--without-pip", join(ws, ".venv")]);
    // debugpy from Debian's packages (no network to install it here), as a .pth adds a folder.
    writeFileSync(join(ws, ".venv", "lib", `python${py.version}`, "site-packages", "debian.pth"), "/usr/lib/python3/dist-packages\n");
    await h.ok({ op: "breakpoints", file: "whoami.py", lines: [3] });
    const launched = await h.ok({ op: "launch", program: "whoami.py" });
    expect(launched).toContain("is stopped at whoami.py:3");
    expect(await h.ok({ op: "evaluate", expression: "sys.base_prefix" })).toContain(py.prefix);
    const ended = await h.ok({ op: "continue" });
    expect(ended).toContain("exited with code 0");
    const out = await h.ok({ op: "output" });
    expect(out).toMatch(/^prefix=\/workspace\/\.venv$/m);
    expect(out).toContain(`base=${py.prefix}`);
    // Read-only, and only the installation: not its parent, not the rest of the home it is in.
    const probe = await h.tool("exec", {
      command: `touch ${py.prefix}/bin/planted 2>/dev/null && echo writable || echo read-only; ls ${dirname(py.prefix)}`,
    });
    expect(probe).toContain("read-only");
    expect(probe.split("\n").filter((l) => l.trim() !== "" && !/read-only|exit code/.test(l))).toEqual([py.prefix.split("/").pop()]);
  });

  for (const [name, home] of [
    ["/etc", () => "/etc/bin"],
    ["the data folder", () => join(fx.dataDir, "bin")],
    ["a folder under an allowed root that is no Python installation", () => join(scratch, "allowed", "not-python", "bin")],
  ] as const) {
    it(`refuses a venv whose pyvenv.cfg names ${name}, with a code, and mounts nothing`, async () => {
      const id = `venv-hostile-${name.replace(/\W+/g, "-").slice(0, 30)}`;
      const { h, ws } = await project(id);
      const target = home();
      if (name.startsWith("a folder")) mkdirSync(target, { recursive: true });
      mkdirSync(join(ws, ".venv", "bin"), { recursive: true });
      writeFileSync(join(ws, ".venv", "pyvenv.cfg"), `home = ${target}\ninclude-system-site-packages = false\nversion = 3.11.7\n`);
      symlinkSync(join(target, "python3"), join(ws, ".venv", "bin", "python"));
      const refused = await h.call({ op: "launch", program: "whoami.py" });
      expect(refused.isError).toBe(true);
      expect(refused.code).toBe("failed_precondition");
      expect(refused.text).toMatch(/\[venv_base_not_(allowed|python)\]/);
      // The sandbox's mounts are a clean one's: nothing was bound for the venv.
      expect(await mountPoints(h)).toEqual(await mountPoints((await project(`${id}-clean`)).h));
    });
  }
});
