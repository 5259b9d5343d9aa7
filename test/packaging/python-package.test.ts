// The Python client as a user gets it: the wheel scripts/build-python-sdk.sh builds with Debian's pip and
// setuptools, installed by one pip command into a fresh virtual environment of Debian's Python (which
// sees Debian's grpcio and protobuf), type-checked from there by mypy --strict, then its pytest
// scenarios and the README's Python example (docs/examples/quickstart.py) run against a control plane
// started here (host placement, the host's language servers on PATH for lsp).
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";
import { type ControlPlaneProcess, startControlPlaneProcess, stopControlPlaneProcess } from "../helpers/control-plane-process.js";
import { ensureHostServers } from "../helpers/lsp-fixture.js";

// Debian's Python, not whatever `python3` is first on PATH: only it sees Debian's grpcio and protobuf.
const SYSTEM_PYTHON = "/usr/bin/python3";

let scratch = "";
let wheel = "";
let venvPython = "";

/** Runs a program; its status and both outputs, never throwing (the assertion shows the output). */
function run(file: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeout?: number } = {}): { status: number | null; out: string } {
  const r = spawnSync(file, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, encoding: "utf8", timeout: opts.timeout ?? 120_000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}${r.error ? String(r.error) : ""}` };
}

beforeAll(() => {
  execFileSync("bash", [join(repoRoot, "scripts", "ensure-python-sdk-tools.sh")], { stdio: ["ignore", "ignore", "inherit"], timeout: 600_000 });
  scratch = mkdtempSync(join(tmpdir(), "enclave-python-package-"));
  wheel = execFileSync("bash", [join(repoRoot, "scripts", "build-python-sdk.sh"), join(scratch, "dist")], { encoding: "utf8" }).trim();
  execFileSync(SYSTEM_PYTHON, ["-m", "venv", "--system-site-packages", join(scratch, "venv")]);
  venvPython = join(scratch, "venv", "bin", "python");
  // The one command a user types.
  execFileSync(join(scratch, "venv", "bin", "pip"), ["install", "--no-index", "--quiet", wheel], { stdio: "pipe" });
  // A scratch project: the example and the tests, away from the sources (so the installed package is the one imported).
  const project = join(scratch, "project");
  mkdirSync(project);
  cpSync(join(repoRoot, "docs", "examples", "quickstart.py"), join(project, "quickstart.py"));
  cpSync(join(repoRoot, "clients", "python", "tests"), join(project, "tests"), { recursive: true, filter: (src) => !src.includes("__pycache__") });
}, 600_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe("the Python package", () => {
  it("is a pure wheel named enclave-sandbox-client holding the package, its generated stubs and py.typed, depending on grpcio and protobuf only", () => {
    expect(wheel).toMatch(/\/enclave_sandbox_client-\d+\.\d+\.\d+-py3-none-any\.whl$/);
    const script =
      "import sys, zipfile, json\nz = zipfile.ZipFile(sys.argv[1])\nmeta = [n for n in z.namelist() if n.endswith('.dist-info/METADATA')][0]\n" +
      "print(json.dumps({'names': z.namelist(), 'meta': z.read(meta).decode()}))";
    const { names, meta } = JSON.parse(execFileSync(venvPython, ["-c", script, wheel], { encoding: "utf8" })) as { names: string[]; meta: string };
    expect(names).toEqual(
      expect.arrayContaining([
        "enclave_client/__init__.py",
        "enclave_client/py.typed",
        "enclave_client/_gen/enclave/control/v1/control_pb2.py",
        "enclave_client/_gen/enclave/control/v1/control_pb2.pyi",
        "enclave_client/_gen/enclave/control/v1/control_pb2_grpc.py",
      ]),
    );
    expect(names.filter((n) => n.includes("/tests/") || n.startsWith("tests/"))).toEqual([]);
    const requires = meta
      .split("\n")
      .filter((l) => l.startsWith("Requires-Dist: "))
      .map((l) => l.slice("Requires-Dist: ".length).split(/[ <>=!;]/)[0])
      .sort();
    expect(requires).toEqual(["grpcio", "protobuf"]);
    expect(meta).toMatch(/^Requires-Python: >=3\.9$/m);
  });

  it("installs against Debian's grpcio and protobuf, which satisfy what it declares", () => {
    const versions = run(venvPython, [
      "-c",
      "import enclave_client, grpc, google.protobuf as p; print(enclave_client.__file__, grpc.__version__, p.__version__)",
    ]);
    expect(versions.status, versions.out).toBe(0);
    expect(versions.out).toContain(join(scratch, "venv"));
    const check = run(venvPython, ["-m", "pip", "check"]);
    expect(check.status, check.out).toBe(0);
  });

  it("type-checks, installed, under mypy --strict: the README example and the tests (py.typed makes the package's types visible)", () => {
    const project = join(scratch, "project");
    const r = run(venvPython, ["-m", "mypy", "--strict", "--ignore-missing-imports", "--no-incremental", "quickstart.py", "tests"], { cwd: project });
    expect(r.status, r.out).toBe(0);
  });

  it("its sources pass mypy --strict as Python 3.9 (the oldest it declares), generated types included", () => {
    const r = run(SYSTEM_PYTHON, ["-m", "mypy", "--cache-dir=/dev/null"], { cwd: join(repoRoot, "clients", "python") });
    expect(r.status, r.out).toBe(0);
  });

  it("makes a typo in a tool's arguments a type error (the typed tool calls take each tool's arguments as a TypedDict)", () => {
    const project = join(scratch, "project");
    writeFileSync(join(project, "typo.py"), 'from enclave_client import EnclaveClient\n\nEnclaveClient().tools("run").exec({"comand": "ls"})\n');
    const r = run(venvPython, ["-m", "mypy", "--strict", "--ignore-missing-imports", "--no-incremental", "typo.py"], { cwd: project });
    expect(r.status, r.out).toBe(1);
    expect(r.out).toMatch(/typo\.py:3: error: Extra key "comand"/);
  });

  describe("against a control plane", () => {
    let cp: ControlPlaneProcess | undefined;
    let dataDir = "";
    beforeAll(async () => {
      ensureHostServers();
      dataDir = mkdtempSync(join(tmpdir(), "enclave-python-package-cp-"));
      cp = await startControlPlaneProcess(dataDir);
    });
    afterAll(async () => {
      if (cp) await stopControlPlaneProcess(cp, "SIGTERM");
      rmSync(dataDir, { recursive: true, force: true });
    });

    it("passes the client's pytest scenarios, none skipped or expected to fail", () => {
      const r = run(venvPython, ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-rxXs", "tests"], {
        cwd: join(scratch, "project"),
        env: { ENCLAVE_ADDRESS: cp?.address ?? "" },
        timeout: 600_000,
      });
      expect(r.status, r.out).toBe(0);
      // Only passes: a skip or an xfail would be a scenario that proved nothing.
      expect(r.out.split("\n").filter((l) => /\d+ (passed|failed|skipped|xfailed|xpassed|errors?)/.test(l))).toEqual([
        expect.stringMatching(/^\d+ passed in /),
      ]);
      expect(r.out).not.toMatch(/\d+ (failed|skipped|error)/);
    }, 600_000);

    it("runs the README's Python example unchanged", () => {
      const r = run(venvPython, ["quickstart.py"], { cwd: join(scratch, "project"), env: { ENCLAVE_ADDRESS: cp?.address ?? "" }, timeout: 300_000 });
      expect(r.status, r.out).toBe(0);
      // What each line prints: exec's output and status, the table's MIME types, the error's name, the file after the staged rewrite.
      expect(r.out.trimEnd().split("\n")).toEqual([
        "hello",
        " exit code 3",
        "['text/markdown', 'text/html', 'text/plain']",
        "ZeroDivisionError",
        'print("hello", flush=True)',
      ]);
    }, 300_000);
  });
});
