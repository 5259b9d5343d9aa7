// The Python installations a workspace's virtual environments were made from, for host placement's
// sandbox to show read-only. A venv's bin/python is a link to its base interpreter (pyenv under a
// user's home, /opt/python…), which the sandbox does not see unless it is bound in. The workspace is
// hostile input: its pyvenv.cfg may name any folder (/etc, the data folder, another workspace). So a
// base is bound only when it is a real Python installation (bin/python3.N a regular executable file,
// lib/python3.N/os.py a regular file), reached without a link, under a root the operator allows
// (ENCLAVE_HOST_PYTHON_ROOTS) and outside every folder the control plane keeps from sandboxes;
// anything else is refused with a code, and nothing is mounted for it. The workspace's files are read
// without following links, and the folder named is only examined (lstat), never run.
import { constants, promises as fsp, type Stats } from "node:fs";
import { dirname, isAbsolute, join, normalize } from "node:path";
import { atFd, openDirBelow } from "../fs/fd-path.js";

/** Where a project's environment is, as the agent looks for it (python/project-python.ts). */
const VENV_FOLDERS = [".venv", "venv"] as const;
/** Subfolders of the workspace searched for a project environment (beside the root's own). */
const MAX_SUBFOLDERS = 200;
const MAX_CFG_BYTES = 64 * 1024;

/** Folders the sandbox makes itself (its own mounts, the system's configuration): never a base. */
const SANDBOX_OWN = ["/etc", "/proc", "/dev", "/run", "/workspace", "/opt/enclave", "/home/enclave"] as const;

/** The roots the sandbox already sees (its system mounts): a base there needs no mount. */
const VISIBLE_ROOTS = ["/usr"] as const;

export type VenvBaseRefusal = "venv_base_not_allowed" | "venv_base_not_python" | "venv_base_unreadable";

export interface VenvBase {
  /** The environment's folder, workspace-relative. */
  venv: string;
  /** The installation prefix its pyvenv.cfg names (its `home` without the trailing bin). */
  prefix: string;
  /** Set when it is not bound, with why (a stable code and words for the user). */
  refused?: { code: VenvBaseRefusal; message: string };
  /** True when the sandbox sees it already (a system Python): nothing to bind. */
  visible?: boolean;
}

export interface VenvBasePolicy {
  /** Folders a base may be under (the operator's; /usr and /opt by default). */
  roots: readonly string[];
  /** Folders a base may not be in nor contain (the data folder, the workspace, the agent bundle). */
  forbidden: readonly string[];
}

function within(path: string, root: string): boolean {
  return root === "/" || path === root || path.startsWith(`${root}/`);
}

/** lstat of each component from the root down: undefined when one is a link or missing. */
async function lstatNoLinks(path: string): Promise<Stats | undefined> {
  let current = "";
  let st: Stats | undefined;
  for (const part of path.split("/").filter(Boolean)) {
    current = `${current}/${part}`;
    try {
      st = await fsp.lstat(current);
    } catch {
      return undefined;
    }
    if (st.isSymbolicLink()) return undefined;
  }
  return st;
}

/** The `home = …` of a pyvenv.cfg, read without following a link. */
async function venvHome(rootFd: number, parts: readonly string[]): Promise<string | undefined> {
  const dir = await openDirBelow(rootFd, parts).catch(() => undefined);
  if (!dir) return undefined;
  try {
    const handle = await fsp.open(atFd(dir.fd, "pyvenv.cfg"), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => undefined);
    if (!handle) return undefined;
    try {
      if (!(await handle.stat()).isFile()) return undefined;
      const buf = Buffer.alloc(MAX_CFG_BYTES);
      const { bytesRead } = await handle.read(buf, 0, MAX_CFG_BYTES, 0);
      const m = /^\s*home\s*=\s*(.*?)\s*$/m.exec(buf.subarray(0, bytesRead).toString("utf8"));
      return m?.[1];
    } finally {
      await handle.close();
    }
  } finally {
    await dir.close();
  }
}

/** Whether `prefix` is a Python installation: some bin/python3.N runnable by anyone, with its lib/python3.N/os.py. */
async function isPythonInstallation(prefix: string): Promise<boolean> {
  let names: string[];
  try {
    names = await fsp.readdir(join(prefix, "bin"));
  } catch {
    return false;
  }
  for (const name of names) {
    if (!/^python3\.\d+$/.test(name)) continue;
    const exe = await fsp.lstat(join(prefix, "bin", name)).catch(() => undefined);
    if (!exe?.isFile() || (exe.mode & 0o001) === 0) continue;
    const os = await fsp.lstat(join(prefix, "lib", name, "os.py")).catch(() => undefined);
    if (os?.isFile()) return true;
  }
  return false;
}

/** Judges one pyvenv.cfg `home`: the prefix to bind, or why not. */
export async function judgeVenvHome(venv: string, home: string, policy: VenvBasePolicy): Promise<VenvBase> {
  const prefix = home.endsWith("/bin") ? dirname(home) : home;
  const refuse = (code: VenvBaseRefusal, why: string): VenvBase => ({
    venv,
    prefix,
    refused: {
      code,
      message: `the Python ${venv} was made from (${prefix}) is not shown in the sandbox: ${why}; recreate the environment from a Python the sandbox sees (python3 -m venv ${venv})`,
    },
  });
  if (!isAbsolute(prefix) || normalize(prefix) !== prefix || prefix === "/")
    return refuse("venv_base_not_allowed", "its pyvenv.cfg names no absolute, plain folder");
  if ([...SANDBOX_OWN, ...policy.forbidden].some((f) => within(prefix, f) || within(f, prefix)))
    return refuse("venv_base_not_allowed", "that folder is kept from sandboxes");
  if (!policy.roots.some((r) => within(prefix, r)))
    // The operator's roots are host paths: named by setting only, never listed to the sandbox.
    return refuse("venv_base_not_allowed", "it is under none of the folders the operator allows for Python installations (ENCLAVE_HOST_PYTHON_ROOTS)");
  const st = await lstatNoLinks(prefix);
  if (!st?.isDirectory()) return refuse("venv_base_unreadable", "it is not a folder reached without links");
  if (!(await isPythonInstallation(prefix))) return refuse("venv_base_not_python", "it is not a Python installation (bin/python3.N and lib/python3.N/os.py)");
  return VISIBLE_ROOTS.some((r) => within(prefix, r)) ? { venv, prefix, visible: true } : { venv, prefix };
}

/** The workspace's project environments (at its root and one folder down) and the base each was made from. */
export async function workspaceVenvBases(workspace: string, policy: VenvBasePolicy): Promise<VenvBase[]> {
  let root;
  try {
    root = await fsp.open(workspace, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch {
    return [];
  }
  try {
    const folders: string[][] = [[]];
    const entries = await fsp.readdir(atFd(root.fd), { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (folders.length > MAX_SUBFOLDERS) break;
      if (e.isDirectory() && !VENV_FOLDERS.includes(e.name as (typeof VENV_FOLDERS)[number])) folders.push([e.name]);
    }
    const out: VenvBase[] = [];
    for (const folder of folders) {
      for (const name of VENV_FOLDERS) {
        const home = await venvHome(root.fd, [...folder, name]);
        if (home === undefined) continue;
        out.push(await judgeVenvHome([...folder, name].join("/"), home, policy));
      }
    }
    return out;
  } finally {
    await root.close();
  }
}

/** The prefixes to bind: each allowed base the sandbox does not see already, once. */
export function venvBasesToBind(bases: readonly VenvBase[]): string[] {
  return [...new Set(bases.filter((b) => !b.refused && !b.visible).map((b) => b.prefix))];
}
