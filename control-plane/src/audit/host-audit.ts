// The audit of host placement: the conversation's sandboxed host agent checked from outside, through
// the kernel's own /proc tables of its process (its status, namespaces, network devices, mount table
// and environment) — never a file the sandbox can write. What the sandbox promises (an unprivileged
// account, no capabilities, its own namespaces, no network, the workspace and its state folder the
// only writable host paths, an allow-listed environment) is checked item by item; a weakening made by
// configuration (the host network) is listed as a relaxation.
import { readFileSync, readlinkSync } from "node:fs";
import type { HostSandboxConfig, SandboxIdentity } from "../placement/host-sandbox.js";
import { IN_SANDBOX } from "../placement/host-sandbox.js";
import { capsEmpty, engineSocketMounts, interfacesIn, parseMountinfo, statusField, statusIds } from "./proc-tables.js";
import type { AuditCheck } from "./enclosure-audit.js";

/** Filesystems that are the sandbox's own (made for it, gone with it), not the host's. */
const SANDBOX_OWN_FS = new Set(["tmpfs", "proc", "devtmpfs", "devpts", "mqueue", "sysfs", "cgroup", "cgroup2"]);
const NAMESPACES = ["pid", "ipc", "uts", "mnt", "net"] as const;

export interface HostAuditInput {
  /** The agent's pid as the host sees it. */
  agentPid: number;
  identity: SandboxIdentity;
  config: HostSandboxConfig;
  /** The environment variables a sandbox may carry. */
  allowedEnv: readonly string[];
}

function read(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

function namespaceOf(pid: number | "self", ns: string): string {
  try {
    return readlinkSync(`/proc/${pid}/ns/${ns}`);
  } catch {
    return "";
  }
}

const OUTSIDE_ONLY = "(host placement: read from the host only; the sandbox is not asked)";

export function hostChecks(input: HostAuditInput): AuditCheck[] {
  const { agentPid, identity, config } = input;
  const status = read(`/proc/${agentPid}/status`);
  const uids = statusIds(status, "Uid");
  const gids = statusIds(status, "Gid");
  const caps = ["CapEff", "CapPrm", "CapInh", "CapBnd", "CapAmb"].map((c) => [c, statusField(status, c)] as const);
  const nnp = statusField(status, "NoNewPrivs");
  const shared = NAMESPACES.filter((ns) => namespaceOf(agentPid, ns) === namespaceOf("self", ns));
  const sharedExpected = config.network ? ["net"] : [];
  const interfaces = interfacesIn(read(`/proc/${agentPid}/net/dev`));
  const mounts = parseMountinfo(read(`/proc/${agentPid}/mountinfo`));
  const writableHost = mounts
    .filter((m) => !m.options.includes("ro") && !SANDBOX_OWN_FS.has(m.fsType))
    .map((m) => m.mountPoint)
    .sort();
  const allowedWritable = [IN_SANDBOX.state, IN_SANDBOX.workspace].sort();
  const engineSockets = engineSocketMounts(mounts);
  const envKeys = read(`/proc/${agentPid}/environ`)
    .split("\0")
    .filter(Boolean)
    .map((kv) => kv.slice(0, kv.indexOf("=")));
  const strayEnv = envKeys.filter((k) => !input.allowedEnv.includes(k));
  return [
    {
      item: "user",
      expected: `the unprivileged account ${identity.uid}:${identity.gid}, never root`,
      outside: `uids ${uids.join(" ")}; gids ${gids.join(" ")}`,
      inside: OUTSIDE_ONLY,
      ok: uids.length === 4 && uids.every((u) => u === identity.uid && u !== 0) && gids.every((g) => g === identity.gid && g !== 0),
    },
    {
      item: "capabilities",
      expected: "no capability in any set; no-new-privileges",
      outside: `${caps.map(([c, v]) => `${c} ${v}`).join(", ")}; NoNewPrivs ${nnp}`,
      inside: OUTSIDE_ONLY,
      ok: caps.every(([, v]) => v !== "" && capsEmpty(v)) && nnp === "1",
    },
    {
      item: "namespaces",
      expected: `its own ${NAMESPACES.filter((ns) => !sharedExpected.includes(ns)).join(", ")} namespaces${config.network ? " (the network is the host's: ENCLAVE_HOST_NETWORK=on)" : ""}`,
      outside: shared.length ? `shares the control plane's ${shared.join(", ")}` : "shares none of the control plane's",
      inside: OUTSIDE_ONLY,
      ok: status !== "" && shared.join(",") === sharedExpected.join(","),
    },
    {
      item: "network",
      expected: config.network ? "the host's network (relaxed by ENCLAVE_HOST_NETWORK=on)" : "only the loopback interface",
      outside: `interfaces ${interfaces.join(", ") || "none"}`,
      inside: OUTSIDE_ONLY,
      ok: config.network || interfaces.join(",") === "lo",
    },
    {
      item: "writable host paths",
      expected: `only ${allowedWritable.join(" and ")} (the rest of the host read-only; /tmp and home the sandbox's own)`,
      outside: `writable mounts of host filesystems: ${writableHost.join(", ") || "none"}`,
      inside: OUTSIDE_ONLY,
      ok: mounts.length > 0 && writableHost.join(",") === allowedWritable.join(","),
    },
    {
      item: "engine sockets",
      expected: "no container engine's socket mounted",
      outside: engineSockets.length ? engineSockets.join(", ") : "none",
      inside: OUTSIDE_ONLY,
      ok: mounts.length > 0 && engineSockets.length === 0,
    },
    {
      item: "environment",
      expected: `only ${input.allowedEnv.join(", ")}`,
      outside: strayEnv.length ? `also ${strayEnv.join(", ")}` : `${envKeys.length} allowed variables`,
      inside: OUTSIDE_ONLY,
      ok: envKeys.length > 0 && strayEnv.length === 0,
    },
  ];
}
