// What `make run` installs for host placement, each checked on this machine without installing
// anything, with the fix for each missing part. The package lists are the ensure scripts' own
// (scripts/ensure-*.sh); a unit test keeps them equal.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import { SANDBOX_CONTROLLERS } from "../model/host-sandbox.js";
import { parseMountinfo } from "../procfs/proc-tables.js";
import { hostToolsBin, repoRoot } from "../repo-paths.js";

const run = promisify(execFile);

/** Debian packages each ensure script installs (the words after its tag). */
export const ENSURED_DEBS = {
  "host-sandbox": ["bubblewrap", "python3-seccomp"],
  "host-kernels": ["python3", "python3-pip", "python3-venv", "python3-pandas", "python3-matplotlib", "python3-ipykernel", "python3-jupyter-client"],
  "host-debuggers": ["python3-debugpy", "lldb-15", "delve", "golang-go", "gcc"],
  "static-cc": ["gcc", "libc6-dev"],
} as const;

export interface DoctorCheck {
  /** Stable: scripts and tests branch on it. */
  id: string;
  what: string;
  ok: boolean;
  /** What was found, or what is missing. */
  detail: string;
  /** How to put it right when missing: the make target, and the apt line where Debian has it. */
  fix?: { make?: string; apt?: string; other?: string };
}

function onPath(binary: string, extraDirs: string[] = []): string | undefined {
  const dirs = [...extraDirs, ...(process.env.PATH ?? "").split(delimiter)].filter(Boolean);
  return dirs.map((d) => join(d, binary)).find((p) => existsSync(p));
}

/** The packages of `names` dpkg does not have installed (all of them where there is no dpkg). */
async function missingDebs(names: readonly string[]): Promise<string[]> {
  const missing: string[] = [];
  for (const name of names) {
    const status = await run("dpkg-query", ["-W", "-f=${Status}", name], { timeout: 10_000 }).then(
      (r) => r.stdout,
      () => "",
    );
    if (!status.includes("install ok installed")) missing.push(name);
  }
  return missing;
}

async function debsCheck(id: keyof typeof ENSURED_DEBS, what: string): Promise<DoctorCheck> {
  const names = ENSURED_DEBS[id];
  const missing = await missingDebs(names);
  return missing.length === 0
    ? { id, what, ok: true, detail: `installed: ${names.join(" ")}` }
    : { id, what, ok: false, detail: `missing: ${missing.join(" ")}`, fix: { make: `make ${id}`, apt: `apt-get install -y ${missing.join(" ")}` } };
}

async function pythonImports(modules: string): Promise<boolean> {
  return run("/usr/bin/python3", ["-c", `import ${modules}`], { timeout: 30_000 }).then(
    () => true,
    () => false,
  );
}

async function sandboxCheck(): Promise<DoctorCheck> {
  const what = "bubblewrap and its seccomp filter (host sandboxes)";
  const [bubblewrap, seccomp] = ENSURED_DEBS["host-sandbox"];
  const missing: string[] = [];
  if (!onPath("bwrap")) missing.push(bubblewrap);
  if (!(await pythonImports("seccomp"))) missing.push(seccomp);
  return missing.length === 0
    ? { id: "host-sandbox", what, ok: true, detail: "bwrap on PATH; /usr/bin/python3 imports seccomp" }
    : {
        id: "host-sandbox",
        what,
        ok: false,
        detail: `missing: ${missing.join(" ")}`,
        fix: { make: "make host-sandbox", apt: `apt-get install -y ${missing.join(" ")}` },
      };
}

function sandboxAccountCheck(): DoctorCheck {
  // Each sandbox runs as a uid of its own from the reserved range; switching to it needs root.
  const what = "the sandbox account: root, to run each sandbox as a uid of its own";
  const uid = process.getuid?.() ?? -1;
  return uid === 0
    ? { id: "sandbox-account", what, ok: true, detail: "running as root" }
    : { id: "sandbox-account", what, ok: false, detail: `running as uid ${uid}`, fix: { other: "run `enclave serve` (or `make run`) as root" } };
}

async function dataStackCheck(): Promise<DoctorCheck> {
  const what = "python3 with the data stack (host kernels)";
  const debs = await debsCheck("host-kernels", what);
  if (!debs.ok) return debs;
  const imports = await pythonImports("pandas, matplotlib, ipykernel, jupyter_client");
  return imports
    ? debs
    : {
        ...debs,
        ok: false,
        detail: "installed, but /usr/bin/python3 cannot import pandas, matplotlib, ipykernel, jupyter_client",
        fix: { make: "make host-kernels" },
      };
}

function languageServersCheck(): DoctorCheck {
  const what = "language servers (pyright, typescript, bash from npm; clangd, gopls from Debian)";
  const list = join(repoRoot, "images", "runtime", "npm-packages.txt");
  const stampFile = join(repoRoot, ".enclave", "host-tools", ".stamp");
  const want = existsSync(list) ? createHash("sha256").update(readFileSync(list)).digest("hex").slice(0, 16) : "";
  const have = existsSync(stampFile) ? readFileSync(stampFile, "utf8").trim() : "";
  const missing: string[] = [];
  if (want === "" || have !== want) missing.push(`the npm servers of ${join("images", "runtime", "npm-packages.txt")} in .enclave/host-tools`);
  const debs = ["clangd", "gopls"].filter((b) => !onPath(b, [hostToolsBin]));
  missing.push(...debs);
  return missing.length === 0
    ? { id: "host-servers", what, ok: true, detail: "all installed" }
    : {
        id: "host-servers",
        what,
        ok: false,
        detail: `missing: ${missing.join(", ")}`,
        fix: { make: "make host-servers", ...(debs.length ? { apt: `apt-get install -y ${debs.join(" ")}` } : {}) },
      };
}

function cgroupsCheck(): DoctorCheck {
  const what = "cgroup v1 controllers (pids, memory, cpu) that bound host sandboxes";
  if (process.env.ENCLAVE_HOST_CGROUPS === "off")
    return { id: "cgroups", what, ok: true, detail: "not needed: ENCLAVE_HOST_CGROUPS=off (sandboxes run unbounded)" };
  let mounts: ReturnType<typeof parseMountinfo> = [];
  try {
    mounts = parseMountinfo(readFileSync("/proc/self/mountinfo", "utf8"));
  } catch {
    // No /proc: every controller counts as missing.
  }
  const missing = SANDBOX_CONTROLLERS.filter((c) => !mounts.some((m) => m.fsType === "cgroup" && m.superOptions.includes(c)));
  return missing.length === 0
    ? {
        id: "cgroups",
        what,
        ok: true,
        // cpuacct bounds nothing: without it sandboxes run bounded, and a conversation's usage has no CPU time.
        detail: `mounted: ${SANDBOX_CONTROLLERS.join(", ")}${
          mounts.some((m) => m.fsType === "cgroup" && m.superOptions.includes("cpuacct"))
            ? ", and cpuacct (each conversation's CPU time)"
            : "; cpuacct is not (conversations' usage will have no CPU time)"
        }`,
      }
    : {
        id: "cgroups",
        what,
        ok: false,
        detail: `not mounted as cgroup v1: ${missing.join(", ")}`,
        fix: {
          other: "mount the cgroup v1 hierarchies (boot with systemd.unified_cgroup_hierarchy=0), or set ENCLAVE_HOST_CGROUPS=off to run sandboxes unbounded",
        },
      };
}

/** Every check, in the order `make run` installs them. */
export async function doctorChecks(): Promise<DoctorCheck[]> {
  return [
    await sandboxCheck(),
    sandboxAccountCheck(),
    cgroupsCheck(),
    await dataStackCheck(),
    languageServersCheck(),
    await debsCheck("host-debuggers", "debug adapters (debugpy, lldb, delve) and the toolchains they debug"),
    await debsCheck("static-cc", "the static C compiler (gcc and glibc's static library) the build links with"),
  ];
}
