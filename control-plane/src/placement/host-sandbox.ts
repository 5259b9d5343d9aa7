// Host placement's confinement: the command line that runs a conversation's host agent (and so
// everything it starts: exec, kernels, language servers, debug adapters, checkers, vibe workers) under
// bubblewrap, as an unprivileged user, with the workspace as the only writable path. The sandbox sees
// the system read-only, a private /tmp, /proc and /dev, no network unless configured, and nothing of
// the control plane: not its data folder, not other workspaces, not its environment.
import { existsSync, lstatSync, readFileSync, readlinkSync } from "node:fs";
import { dirname } from "node:path";
import { EnclaveError } from "../errors.js";
import { giveTree } from "./give-tree.js";

/** Where things are inside a host sandbox (the same names an enclosure uses). */
export const IN_SANDBOX = {
  workspace: "/workspace",
  agentDir: "/opt/enclave/agent",
  hostTools: "/opt/enclave/host-tools",
  state: "/run/enclave/state",
  home: "/home/enclave",
} as const;

export interface HostSandboxConfig {
  /** The account host agents run as when the control plane runs as root (name or uid:gid). */
  user: string;
  /** Whether the sandbox keeps the host's network (off by default; the bridge never needs it). */
  network: boolean;
  /** Agents kept started ahead of any conversation (ENCLAVE_HOST_SPARES, default 0; see host-agents.ts). */
  spares: number;
}

export interface SandboxIdentity {
  uid: number;
  gid: number;
  /** Whether the control plane must drop to uid:gid inside the sandbox (it runs as root). */
  drop: boolean;
}

export interface SandboxMounts {
  workspace: string;
  agentBundleDir: string;
  /** The npm language servers `make host-servers` installs, when present. */
  hostToolsDir?: string;
  /** The conversation's own state folder (apply journal), kept across agent restarts. */
  stateDir: string;
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

/** Who the sandbox runs as: the configured account when we are root, else ourselves. */
export function sandboxIdentity(config: HostSandboxConfig): SandboxIdentity {
  const myUid = process.getuid?.() ?? 0;
  if (myUid !== 0) return { uid: myUid, gid: process.getgid?.() ?? myUid, drop: false };
  const numeric = /^(\d+):(\d+)$/.exec(config.user);
  if (numeric) {
    const [uid, gid] = [Number(numeric[1]), Number(numeric[2])];
    if (uid === 0 || gid === 0) bad(`ENCLAVE_HOST_USER=${config.user}: host agents never run as root; name an unprivileged account`);
    return { uid, gid, drop: true };
  }
  const entry = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .map((line) => line.split(":"))
    .find((f) => f[0] === config.user);
  if (!entry) {
    bad(`the account \`${config.user}\` that host agents run as does not exist: run \`make run\` (or \`bash scripts/ensure-host-sandbox.sh\`), or set ENCLAVE_HOST_USER to an unprivileged uid:gid`);
  }
  const uid = Number(entry[2]);
  const gid = Number(entry[3]);
  if (uid === 0 || gid === 0) bad(`the account \`${config.user}\` is root; host agents never run as root`);
  return { uid, gid, drop: true };
}

let bwrapPath: string | undefined;
function bubblewrap(): string {
  if (bwrapPath) return bwrapPath;
  for (const p of ["/usr/bin/bwrap", "/usr/local/bin/bwrap"]) if (existsSync(p)) return (bwrapPath = p);
  return bad("bubblewrap (bwrap) is not installed, and host placement runs only inside it: run `make run` (or `bash scripts/ensure-host-sandbox.sh`, which installs Debian's bubblewrap)");
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
 * bubblewrap's arguments and the command to run in it. The listening socket the agent accepts on
 * is inherited as fd 3; nothing in the sandbox names a host path.
 */
export function sandboxedAgentCommand(
  config: HostSandboxConfig,
  id: SandboxIdentity,
  mounts: SandboxMounts,
  agentArgs: string[],
): { file: string; args: string[]; env: Record<string, string> } {
  const env = sandboxEnvironment(mounts);
  const args = [
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
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    // Folders bubblewrap makes are root's: the account must be able to enter them, and to write its
    // private /tmp and home (each a fresh tmpfs only this sandbox sees).
    ...["/opt", "/opt/enclave", "/run", "/run/enclave", "/home"].flatMap((d) => ["--perms", "0755", "--dir", d]),
    "--perms",
    "1777",
    "--tmpfs",
    "/tmp",
    "--perms",
    "1777",
    "--tmpfs",
    IN_SANDBOX.home,
    "--ro-bind",
    mounts.agentBundleDir,
    IN_SANDBOX.agentDir,
    ...(mounts.hostToolsDir ? ["--ro-bind", mounts.hostToolsDir, IN_SANDBOX.hostTools] : []),
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
    "--",
  ];
  const node = [process.execPath, `${IN_SANDBOX.agentDir}/enclave-agent.mjs`, ...agentArgs];
  if (id.drop) {
    args.push(
      "/usr/bin/setpriv",
      `--reuid=${id.uid}`,
      `--regid=${id.gid}`,
      "--clear-groups",
      "--inh-caps=-all",
      "--bounding-set=-all",
      "--",
      ...node,
    );
  } else {
    args.push(...node);
  }
  return { file: bubblewrap(), args, env };
}

/** Gives the workspace to the sandbox's account, when the sandbox runs as one of its own. */
export async function giveWorkspaceTo(workspace: string, id: SandboxIdentity): Promise<void> {
  if (id.drop) await giveTree(workspace, id.uid, id.gid);
}
