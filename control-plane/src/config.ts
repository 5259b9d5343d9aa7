// The control plane's configuration: flags over environment over defaults, resolved once.
import { join, resolve } from "node:path";
import { LIMITS } from "./limits.js";
import { agentBundleDir, repoRoot } from "./repo-paths.js";

/** The container runtimes an enclosure can run under: runc (namespaces of the host's kernel) or
 * runsc (gVisor, a user-space kernel between the enclosure and the host's). */
export const ENCLOSURE_RUNTIMES = ["runc", "runsc"] as const;
export type EnclosureRuntime = (typeof ENCLOSURE_RUNTIMES)[number];

export function isEnclosureRuntime(s: string): s is EnclosureRuntime {
  return (ENCLOSURE_RUNTIMES as readonly string[]).includes(s);
}

export interface EnclosureDefaults {
  /** Image to start enclosures from; empty means the runtime image built by `make images`. */
  image: string;
  /** The runtime an enclosure runs under when its options name none (ENCLAVE_ENCLOSURE_RUNTIME). */
  runtime: EnclosureRuntime;
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
  /** How long a question or permission card waits when the run sets no timeout. */
  questionTimeoutMs: number;
  vibe: VibeConfig;
  /** Folder of custom tool modules loaded at start (ENCLAVE_CUSTOM_TOOLS_DIR); empty for none. */
  customToolsDir: string;
  /** Hard lifetime of a debug session (ENCLAVE_DEBUG_TTL_SECONDS, default 30 minutes). */
  debugSessionTtlMs: number;
}

/** The built-in worker host: a command line per tier (run by /bin/sh -c), or none. */
export interface VibeConfig {
  commands: { fast: string; good: string };
  workerTimeoutMs: number;
}

export const DEFAULT_LISTEN = "127.0.0.1:7400";

function numberFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name}=${raw} is not a positive number`);
  return n;
}

function runtimeFromEnv(): EnclosureRuntime {
  const raw = process.env.ENCLAVE_ENCLOSURE_RUNTIME ?? "";
  if (raw === "") return "runc";
  if (!isEnclosureRuntime(raw)) throw new Error(`ENCLAVE_ENCLOSURE_RUNTIME=${raw} is not one of ${ENCLOSURE_RUNTIMES.join(", ")}`);
  return raw;
}

export function loadConfig(overrides: Partial<Pick<ControlPlaneConfig, "dataDir" | "listen">> = {}): ControlPlaneConfig {
  return {
    dataDir: resolve(overrides.dataDir ?? process.env.ENCLAVE_DATA_DIR ?? join(repoRoot, ".enclave", "data")),
    listen: overrides.listen ?? process.env.ENCLAVE_LISTEN ?? DEFAULT_LISTEN,
    agentBundleDir: process.env.ENCLAVE_AGENT_BUNDLE ?? agentBundleDir,
    customToolsDir: process.env.ENCLAVE_CUSTOM_TOOLS_DIR ?? "",
    enclosure: {
      image: process.env.ENCLAVE_IMAGE ?? "",
      runtime: runtimeFromEnv(),
      memoryBytes: numberFromEnv("ENCLAVE_ENCLOSURE_MEMORY_BYTES", 2 * 1024 ** 3),
      cpus: numberFromEnv("ENCLAVE_ENCLOSURE_CPUS", 1),
      pidsLimit: numberFromEnv("ENCLAVE_ENCLOSURE_PIDS", 512),
      tmpSizeBytes: 512 * 1024 ** 2,
      homeSizeBytes: 256 * 1024 ** 2,
    },
    questionTimeoutMs: numberFromEnv("ENCLAVE_QUESTION_TIMEOUT_SECONDS", LIMITS.questionDefaultTimeoutSeconds) * 1000,
    vibe: {
      commands: {
        fast: process.env.ENCLAVE_VIBE_COMMAND_FAST || process.env.ENCLAVE_VIBE_COMMAND || "",
        good: process.env.ENCLAVE_VIBE_COMMAND_GOOD || process.env.ENCLAVE_VIBE_COMMAND || "",
      },
      workerTimeoutMs: numberFromEnv("ENCLAVE_VIBE_TIMEOUT_SECONDS", LIMITS.vibeWorkerDefaultTimeoutSeconds) * 1000,
    },
    debugSessionTtlMs: Math.round(numberFromEnv("ENCLAVE_DEBUG_TTL_SECONDS", 30 * 60) * 1000),
  };
}
