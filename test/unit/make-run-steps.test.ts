// `make run`'s set-up, for a person: the step runner prints one line with the step's time when it
// passes and, when it fails, the last lines of its output and a non-zero status; the root check says
// up front, all at once, which Debian packages are missing and the one command that installs them.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";

const dir = mkdtempSync(join(tmpdir(), "enclave-make-run-steps-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(script: string, args: string[], env: NodeJS.ProcessEnv = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync("bash", [join(repoRoot, "scripts", script), ...args], {
    encoding: "utf8",
    env: { ...process.env, ENCLAVE_STEP_LOG_DIR: join(dir, "logs"), ...env },
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("scripts/step.sh", () => {
  it("prints one line with the step's name and time when it passes, and keeps its output in the log", () => {
    const r = run("step.sh", ["host sandbox (bubblewrap, seccomp)", "--", "bash", "-c", "echo apt says a lot; echo more >&2"]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^✓ host sandbox \(bubblewrap, seccomp\) \d+\.\d s\n$/);
    expect(r.stderr).toBe("");
    expect(readFileSync(join(dir, "logs", "host-sandbox-bubblewrap-seccomp.log"), "utf8")).toBe("apt says a lot\nmore\n");
  });

  it("when the step fails: its last 30 lines, where the whole log is, and the step's exit status", () => {
    const r = run("step.sh", ["failing step", "--", "bash", "-c", "for i in $(seq 1 50); do echo dpkg line $i; done; exit 7"]);
    expect(r.status).toBe(7);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^✗ failing step failed after \d+\.\d s \(exit status 7\); its last lines:$/);
    expect(lines.slice(1, -1)).toEqual(Array.from({ length: 30 }, (_, i) => `    dpkg line ${i + 21}`));
    expect(lines.at(-1)).toBe(`  (all of it: ${join(dir, "logs", "failing-step.log")})`);
  });

  it("refuses a call without `--` and a command", () => {
    expect(run("step.sh", ["name", "true"]).status).toBe(2);
  });
});

describe("scripts/needs-root.sh", () => {
  // Not root, and dpkg knows no package: what a fresh machine without sudo looks like to the scripts.
  const bin = join(dir, "bin");
  spawnSync("mkdir", ["-p", bin]);
  writeFileSync(join(bin, "id"), '#!/bin/sh\ncase "$1" in -u) echo 1000;; -un) echo someone;; *) exec /usr/bin/id "$@";; esac\n');
  writeFileSync(join(bin, "dpkg-query"), "#!/bin/sh\nexit 1\n");
  chmodSync(join(bin, "id"), 0o755);
  chmodSync(join(bin, "dpkg-query"), 0o755);
  const notRoot = { PATH: `${bin}:${process.env.PATH ?? ""}` };

  it("says what needs root and the one command that installs it, before anything runs, and exits 1", () => {
    const r = run("needs-root.sh", ["scripts/ensure-static-cc.sh", "scripts/ensure-host-kernels.sh"], notRoot);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain("make run needs Debian packages that are not installed, and installing them needs root");
    expect(r.stdout).toContain("(you are someone, uid 1000)");
    expect(r.stdout).toMatch(/^ {2}static-cc +gcc libc6-dev$/m);
    // One command for all of it, each package once.
    expect(r.stdout).toContain("  sudo apt-get install -y --no-install-recommends gcc libc6-dev python3 python3-pip");
    // Asking installed nothing and printed no apt output.
    expect(r.stderr).toBe("");
  });

  it("is quiet and lets the steps run when nothing is missing, or when it is root", () => {
    expect(run("needs-root.sh", [], notRoot)).toEqual({ status: 0, stdout: "", stderr: "" });
    const root = join(dir, "root-bin");
    spawnSync("mkdir", ["-p", root]);
    writeFileSync(join(root, "id"), "#!/bin/sh\necho 0\n");
    chmodSync(join(root, "id"), 0o755);
    expect(run("needs-root.sh", ["scripts/ensure-static-cc.sh"], { PATH: `${root}:${bin}:${process.env.PATH ?? ""}` })).toEqual({
      status: 0,
      stdout: "",
      stderr: "",
    });
  });
});
