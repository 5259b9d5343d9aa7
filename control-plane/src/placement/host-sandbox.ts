// Host placement's confinement: the command line that runs a conversation's host agent (and so
// everything it starts: exec, kernels, language servers, debug adapters, checkers, vibe workers) under
// bubblewrap, as an unprivileged user, with the workspace as the only writable path. The sandbox sees
// the system read-only, a private /tmp, /proc and /dev, no network unless configured, and nothing of
// the control plane: not its data folder, not other workspaces, not its environment.
import { existsSync, lstatSync, readFileSync, readlinkSync } from "node:fs";
import { dirname } from "node:path";
import { AGENT_NODE_FLAGS } from "@enclave/proto/agent-node-flags.js";
import { EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";
import { giveTree } from "./give-tree.js";
import { type HostSandboxConfig, IN_SANDBOX, type SandboxIdentity } from "../model/host-sandbox.js";

export interface SandboxMounts {
  workspace: string;
  agentBundleDir: string;
  /** The npm language servers `make host-servers` installs, when present. */
  hostToolsDir?: string;
  /** The conversation's own state folder (apply journal), kept across agent restarts. */
  stateDir: string;
  /** Python installations the workspace's virtual environments were made from, judged safe to show (venv-base.ts). */
  pythonBases?: readonly string[];
}

/**
 * The operator's settings a host agent reads itself (interpreters for kernels), passed on when set;
 * and the crash test hook (the agent kills itself mid-commit), which only a test sets, in the control
 * plane's own environment, never anything a workspace or an enclosure can reach.
 */
const AGENT_SETTINGS = ["ENCLAVE_PYTHON", "ENCLAVE_NODE", "ENCLAVE_TEST_CRASH_AFTER_RENAMES"] as const;

/** Every variable a sandbox may carry (for the audit): the allow-list, and PWD, which bubblewrap sets. */
export const SANDBOX_ENV_ALLOWED: readonly string[] = ["PATH", "HOME", "TMPDIR", "LANG", "MPLBACKEND", "PYTHONUNBUFFERED", ...AGENT_SETTINGS, "PWD"];

/** The environment a sandboxed agent gets: an allow-list, never the control plane's own. */
export function sandboxEnvironment(mounts: Pick<SandboxMounts, "hostToolsDir">): Record<string, string> {
  const path = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"];
  if (mounts.hostToolsDir) path.unshift(`${IN_SANDBOX.hostTools}/node_modules/.bin`);
  const env: Record<string, string> = {
    PATH: path.join(":"),
    HOME: IN_SANDBOX.home,
    TMPDIR: "/tmp",
    LANG: "C.UTF-8",
    MPLBACKEND: "Agg",
    PYTHONUNBUFFERED: "1",
  };
  for (const name of AGENT_SETTINGS) {
    const value = process.env[name];
    if (value) env[name] = value;
  }
  return env;
}

function bad(message: string): never {
  throw new EnclaveError("placement_unavailable", message);
}

/** Who the sandbox runs as: `uid` (its own, allocated by the caller) when we are root, else ourselves. */
export function sandboxIdentity(uid: () => number): SandboxIdentity {
  const myUid = process.getuid?.() ?? 0;
  if (myUid !== 0) return { uid: myUid, gid: process.getgid?.() ?? myUid, drop: false };
  const own = uid();
  if (own === 0) bad("host agents never run as root: ENCLAVE_HOST_UID_BASE must not be 0");
  return { uid: own, gid: own, drop: true };
}

/** Every host sandbox's account name: the uid behind it is the sandbox's own. */
const ACCOUNT = "enclave";

let hostAccounts: { passwd: string; group: string } | undefined;

/** The host's /etc/passwd and /etc/group with the sandbox's account added (tools ask who they are). */
function accountFiles(id: SandboxIdentity): { passwd: string; group: string } {
  hostAccounts ??= {
    passwd: readFileSync("/etc/passwd", "utf8"),
    group: readFileSync("/etc/group", "utf8"),
  };
  const nl = (s: string): string => (s === "" || s.endsWith("\n") ? s : `${s}\n`);
  return {
    passwd: `${nl(hostAccounts.passwd)}${ACCOUNT}:x:${id.uid}:${id.gid}:Enclave sandbox:${IN_SANDBOX.home}:/bin/sh\n`,
    group: `${nl(hostAccounts.group)}${ACCOUNT}:x:${id.gid}:\n`,
  };
}

let bwrapPath: string | undefined;
function bubblewrap(): string {
  if (bwrapPath) return bwrapPath;
  for (const p of ["/usr/bin/bwrap", "/usr/local/bin/bwrap"]) if (existsSync(p)) return (bwrapPath = p);
  return bad(
    "bubblewrap (bwrap) is not installed, and host placement runs only inside it: run `make run` (or `bash scripts/ensure-host-sandbox.sh`, which installs Debian's bubblewrap)",
  );
}

/** The host's top-level system folders, as bubblewrap arguments: merged-/usr links stay links. */
function systemMounts(): string[] {
  const args = ["--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc"];
  for (const top of ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"]) {
    let st;
    try {
      st = lstatSync(top);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) args.push("--symlink", readlinkSync(top), top);
    else if (st.isDirectory()) args.push("--ro-bind", top, top);
  }
  // A Node installed outside /usr (nvm, /opt) must be visible to run the agent.
  const nodeRoot = dirname(dirname(process.execPath));
  if (!nodeRoot.startsWith("/usr")) args.push("--ro-bind", nodeRoot, nodeRoot);
  return args;
}

/**
 * Each Python installation read-only at its own path, where the venvs' links and pyvenv.cfg point.
 * The folders above it are made enterable (bubblewrap would make them root's and private), empty
 * but for the way down: nothing else of a home the installation is in shows.
 */
function pythonBaseMounts(prefixes: readonly string[]): string[] {
  return prefixes.flatMap((prefix) => {
    const parts = prefix.split("/").filter(Boolean);
    const above = parts.slice(0, -1).map((_, i) => `/${parts.slice(0, i + 1).join("/")}`);
    return [...above.flatMap((d) => ["--perms", "0755", "--dir", d]), "--ro-bind", prefix, prefix];
  });
}

/** The descriptors a sandbox's start reads, after the agent's listening socket (fd 3). */
const FD = { args: 4, seccomp: 5, passwd: 6, group: 7 } as const;

export interface SandboxCommand {
  file: string;
  /** What the host's process table shows: no host folder (those are in bubblewrap's arguments' descriptor). */
  args: string[];
  env: Record<string, string>;
  /** What to write, in order, on descriptors 4, 5, … of the child (each then closed). */
  fdData: Buffer[];
}

/**
 * Joins the cgroup's controllers (the shell moves itself through the `tasks` files given first, up
 * to `--`), then becomes the command: bubblewrap and everything in the sandbox start inside the
 * cgroup, with no moment outside it.
 */
const JOIN_CGROUP = 'for f; do [ "$f" = -- ] && break; echo 0 > "$f" || exit 125; shift; done; shift; exec "$@"';

/**
 * bubblewrap's arguments and the command to run in it. The listening socket the agent accepts on
 * is inherited as fd 3. bubblewrap reads its options (every host folder among them) from a
 * descriptor, so the sandbox's pid 1 shows none; the seccomp program and the account files come on
 * descriptors too. The sandbox's processes start in `cgroupJoin`'s cgroup when given.
 */
export function sandboxedAgentCommand(
  config: HostSandboxConfig,
  id: SandboxIdentity,
  mounts: SandboxMounts,
  agentArgs: string[],
  start: { seccomp: Buffer; cgroupJoin: string[] },
): SandboxCommand {
  const env = sandboxEnvironment(mounts);
  const accounts = accountFiles(id);
  const options = [
    "--die-with-parent",
    "--new-session",
    "--unshare-ipc",
    "--unshare-pid",
    "--unshare-uts",
    "--unshare-cgroup-try",
    ...(config.network ? [] : ["--unshare-net"]),
    // Unprivileged, bubblewrap needs a user namespace for its mounts; as root it must not make one
    // (the sandbox's uid would map to root outside): it drops to the account with setpriv instead.
    ...(id.drop ? [] : ["--unshare-user"]),
    "--hostname",
    "enclave-host",
    ...systemMounts(),
    ...(id.drop
      ? ["--perms", "0644", "--ro-bind-data", String(FD.passwd), "/etc/passwd", "--perms", "0644", "--ro-bind-data", String(FD.group), "/etc/group"]
      : []),
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    // bubblewrap's /dev has a /dev/shm only root may write: POSIX semaphores and shared memory
    // (multiprocessing's locks and queues) need a writable one, bounded and the sandbox's own.
    "--perms",
    "1777",
    "--size",
    String(LIMITS.sandboxShmBytes),
    "--tmpfs",
    "/dev/shm",
    // Folders bubblewrap makes are root's: the account must be able to enter them, and to write its
    // private /tmp and home (each a fresh tmpfs only this sandbox sees).
    ...["/opt", "/opt/enclave", "/run", "/run/enclave", "/home"].flatMap((d) => ["--perms", "0755", "--dir", d]),
    "--perms",
    "1777",
    "--size",
    String(LIMITS.sandboxTmpBytes),
    "--tmpfs",
    "/tmp",
    "--perms",
    "1777",
    "--size",
    String(LIMITS.sandboxHomeBytes),
    "--tmpfs",
    IN_SANDBOX.home,
    "--ro-bind",
    mounts.agentBundleDir,
    IN_SANDBOX.agentDir,
    ...(mounts.hostToolsDir ? ["--ro-bind", mounts.hostToolsDir, IN_SANDBOX.hostTools] : []),
    ...pythonBaseMounts(mounts.pythonBases ?? []),
    "--bind",
    mounts.stateDir,
    IN_SANDBOX.state,
    "--bind",
    mounts.workspace,
    IN_SANDBOX.workspace,
    "--chdir",
    IN_SANDBOX.workspace,
    "--clearenv",
    ...Object.entries(env).flatMap(([k, v]) => ["--setenv", k, v]),
    "--seccomp",
    String(FD.seccomp),
  ];
  const node = [process.execPath, ...AGENT_NODE_FLAGS, `${IN_SANDBOX.agentDir}/enclave-agent.mjs`, ...agentArgs];
  const command = id.drop
    ? ["/usr/bin/setpriv", `--reuid=${id.uid}`, `--regid=${id.gid}`, "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--", ...node]
    : node;
  const bwrapArgs = ["--args", String(FD.args), "--", ...command];
  const fdData = [Buffer.from(options.map((o) => `${o}\0`).join("")), start.seccomp, Buffer.from(accounts.passwd), Buffer.from(accounts.group)];
  if (start.cgroupJoin.length === 0) return { file: bubblewrap(), args: bwrapArgs, env, fdData };
  return { file: "/bin/sh", args: ["-c", JOIN_CGROUP, "enclave-sandbox", ...start.cgroupJoin, "--", bubblewrap(), ...bwrapArgs], env, fdData };
}

/** Gives the workspace to the sandbox's account, when the sandbox runs as one of its own. */
export async function giveWorkspaceTo(workspace: string, id: SandboxIdentity): Promise<void> {
  if (id.drop) await giveTree(workspace, id.uid, id.gid);
}
