// The control plane's configuration: flags over environment over defaults, resolved once.
import { join, resolve } from "node:path";
import { agentBundleDir, repoRoot } from "./repo-paths.js";

export interface EnclosureDefaults {
  /** Image to start enclosures from; empty means the runtime image built by `make images`. */
  image: string;
  memoryBytes: number;
  cpus: number;
  pidsLimit: number;
  tmpSizeBytes: number;
  homeSizeBytes: number;
}

export interface ControlPlaneConfig {
  /** Conversations, workspaces, the audit log. */
  dataDir: string;
  /** host:port or unix:///path for the harness-facing gRPC API. */
  listen: string;
  /** The built agent bundle folder (enclave-agent.mjs, supervise.sh). */
  agentBundleDir: string;
  enclosure: EnclosureDefaults;
  /** Hard lifetime of a debug session (ENCLAVE_DEBUG_TTL_SECONDS, default 30 minutes). */
  debugSessionTtlMs: number;
}

export const DEFAULT_LISTEN = "127.0.0.1:7400";

function numberFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name}=${raw} is not a positive number`);
  return n;
}

export function loadConfig(overrides: Partial<Pick<ControlPlaneConfig, "dataDir" | "listen">> = {}): ControlPlaneConfig {
  return {
    dataDir: resolve(overrides.dataDir ?? process.env.ENCLAVE_DATA_DIR ?? join(repoRoot, ".enclave", "data")),
    listen: overrides.listen ?? process.env.ENCLAVE_LISTEN ?? DEFAULT_LISTEN,
    agentBundleDir: process.env.ENCLAVE_AGENT_BUNDLE ?? agentBundleDir,
    enclosure: {
      image: process.env.ENCLAVE_IMAGE ?? "",
      memoryBytes: numberFromEnv("ENCLAVE_ENCLOSURE_MEMORY_BYTES", 2 * 1024 ** 3),
      cpus: numberFromEnv("ENCLAVE_ENCLOSURE_CPUS", 1),
      pidsLimit: numberFromEnv("ENCLAVE_ENCLOSURE_PIDS", 512),
      tmpSizeBytes: 512 * 1024 ** 2,
      homeSizeBytes: 256 * 1024 ** 2,
    },
    debugSessionTtlMs: Math.round(numberFromEnv("ENCLAVE_DEBUG_TTL_SECONDS", 30 * 60) * 1000),
  };
}
