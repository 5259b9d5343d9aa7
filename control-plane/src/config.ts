// The control plane's configuration: flags over environment over defaults, resolved once.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import type { AuditRetention } from "./audit/audit-retention.js";
import { EnclaveError } from "./errors.js";
import { LIMITS } from "./limits.js";
import {
  ENCLOSURE_RUNTIMES,
  type EnclosureDefaults,
  type EnclosureRequest,
  type EnclosureRuntime,
  isEnclosureRuntime,
  type WarmPoolConfig,
} from "./model/enclosure.js";
import { type EngineConfig, enginesFromEnv } from "./placement/engines.js";
import { DEFAULT_PYTHON_ROOTS, type HostSandboxConfig } from "./model/host-sandbox.js";
import { parseAllowedImages } from "./placement/image-access.js";
import { checkImageReference } from "./placement/image-reference.js";
import type { ApiSecurityConfig } from "./tenants/api-security-config.js";
import { agentBundleDir, repoRoot } from "./repo-paths.js";
import { DEFAULT_SERVICE_NAME, type TracingConfig, tracesUrl } from "./observability/tracing.js";

export interface LifecycleConfig {
  /** Seconds idle before a placement sleeps, when the conversation sets none (ENCLAVE_IDLE_TIMEOUT_SECONDS; 0: never). */
  idleTimeoutSeconds: number;
  /** Seconds a placement runs from its start or wake before it sleeps, when the conversation sets none (ENCLAVE_MAX_LIFETIME_SECONDS; 0: no limit). */
  maxLifetimeSeconds: number;
  /** How often the sweeper looks (ENCLAVE_LIFECYCLE_SWEEP_MS). */
  sweepMs: number;
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
  /** Host placement's bubblewrap sandbox: the account it runs as, and whether it keeps the network. */
  hostSandbox: HostSandboxConfig;
  /** What the audit log keeps (ENCLAVE_AUDIT_RETENTION_DAYS, ENCLAVE_AUDIT_MAX_MIB, ENCLAVE_AUDIT_MAX_MIB_PER_TENANT; 0 for no limit). */
  auditRetention: AuditRetention;
  /** How long a run kept for the command line lives with no call (ENCLAVE_CLI_RUN_IDLE_SECONDS). */
  cliRunIdleMs: number;
  /** The idle policy's server-wide defaults (see lifecycle/lifecycle-policy.ts). */
  lifecycle: LifecycleConfig;
  /** TLS, client certificates, the token file and the explicit weakening for a non-loopback address. */
  api: ApiSecurityConfig;
  /** The Docker engines enclosures may run on (ENCLAVE_ENGINES_FILE, else DOCKER_HOST and friends), the default first. */
  engines: EngineConfig[];
  /** Enclosures kept started ahead of any conversation (see placement/warm-pool.ts). */
  warmPool: WarmPoolConfig;
  /** OpenTelemetry traces over OTLP/HTTP (--otlp-endpoint, OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME); off without an endpoint. */
  tracing: TracingConfig;
}

function tracingFrom(endpoint: string | undefined): TracingConfig {
  const otlpEndpoint = endpoint || process.env.OTEL_EXPORTER_OTLP_ENDPOINT || "";
  // A bad endpoint is refused at start, not discovered when the first export fails.
  if (otlpEndpoint) tracesUrl(otlpEndpoint);
  return { otlpEndpoint, serviceName: process.env.OTEL_SERVICE_NAME || DEFAULT_SERVICE_NAME };
}

function hostSparesFromEnv(): number {
  const n = limitFromEnv("ENCLAVE_HOST_SPARES", 1);
  if (!Number.isInteger(n) || n > LIMITS.hostSparesMax) throw new Error(`ENCLAVE_HOST_SPARES=${n} must be a whole number from 0 to ${LIMITS.hostSparesMax}`);
  return n;
}

function hostUidsFromEnv(): { base: number; count: number } {
  if (process.env.ENCLAVE_HOST_USER) {
    throw new Error(
      "ENCLAVE_HOST_USER is no longer read: each conversation's host sandbox runs as a uid of its own from ENCLAVE_HOST_UID_BASE (count ENCLAVE_HOST_UID_COUNT); unset it",
    );
  }
  return uidRangeFromEnv("ENCLAVE_HOST", LIMITS.hostUidBaseDefault, LIMITS.hostUidCountDefault);
}

/** A range of host uids reserved for Enclave (PREFIX_UID_BASE, PREFIX_UID_COUNT). */
function uidRangeFromEnv(prefix: string, baseDefault: number, countDefault: number): { base: number; count: number } {
  const base = numberFromEnv(`${prefix}_UID_BASE`, baseDefault);
  const count = numberFromEnv(`${prefix}_UID_COUNT`, countDefault);
  if (!Number.isInteger(base) || !Number.isInteger(count) || count < 1 || base < 1000 || base + count > 2 ** 31 - 1) {
    throw new Error(
      `${prefix}_UID_BASE=${base} and ${prefix}_UID_COUNT=${count} must be whole numbers naming uids from 1000 to ${2 ** 31 - 2}, reserved for Enclave`,
    );
  }
  return { base, count };
}

/** Enclosures' uids: a range of their own, apart from host sandboxes' (one uid is never two tenants'). */
function enclosureUidsFromEnv(host: { base: number; count: number }): { base: number; count: number } {
  const r = uidRangeFromEnv("ENCLAVE_ENCLOSURE", LIMITS.enclosureUidBaseDefault, LIMITS.enclosureUidCountDefault);
  if (r.base < host.base + host.count && host.base < r.base + r.count) {
    throw new Error(
      `ENCLAVE_ENCLOSURE_UID_BASE/COUNT (${r.base}+${r.count}) overlap ENCLAVE_HOST_UID_BASE/COUNT (${host.base}+${host.count}): give enclosures a range of their own`,
    );
  }
  return r;
}

function warmPoolFromEnv(): WarmPoolConfig {
  const size = limitFromEnv("ENCLAVE_WARM_POOL_SIZE", 0);
  if (!Number.isInteger(size) || size > LIMITS.warmPoolMaxSize) {
    throw new Error(`ENCLAVE_WARM_POOL_SIZE=${size} must be a whole number from 0 to ${LIMITS.warmPoolMaxSize}`);
  }
  const raw = process.env.ENCLAVE_WARM_POOL_PROFILES ?? "";
  let profiles: EnclosureRequest[] = [{}];
  if (raw !== "") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (err) {
      throw new Error(
        `ENCLAVE_WARM_POOL_PROFILES is not JSON (${(err as Error).message}); give an array of enclosure option objects, such as [{"workspaceMode":"copy"}]`,
      );
    }
    if (!Array.isArray(parsed) || parsed.some((p) => typeof p !== "object" || p === null || Array.isArray(p))) {
      throw new Error('ENCLAVE_WARM_POOL_PROFILES must be a JSON array of enclosure option objects, such as [{}, {"workspaceMode":"copy"}]');
    }
    profiles = parsed as EnclosureRequest[];
    // An operator's image names go through the same grammar as a tenant's, before any engine call.
    profiles.forEach((p, i) => {
      const image: unknown = p.image;
      const what = `ENCLAVE_WARM_POOL_PROFILES[${i}].image`;
      if (image !== undefined && typeof image !== "string") throw new EnclaveError("invalid_arguments", `${what} must be a string naming an image`);
      if (image) checkImageReference(image, what);
    });
  }
  return { size, profiles };
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

/** Folders, colon-separated, each absolute and not the root itself. */
function foldersFromEnv(name: string, fallback: readonly string[]): string[] {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return [...fallback];
  const folders = raw
    .split(":")
    .filter(Boolean)
    .map((f) => f.replace(/\/+$/, ""));
  for (const f of folders) if (!f.startsWith("/") || f === "") throw new Error(`${name}: \`${f || "/"}\` must be an absolute folder other than /`);
  return folders;
}

function onOffFromEnv(name: string, fallback: boolean): boolean {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  if (raw === "on") return true;
  if (raw === "off") return false;
  throw new Error(`${name}=${raw} must be on or off`);
}

/** A limit where 0 means none. */
function wholeSecondsFromEnv(name: string, fallback: number): number {
  const n = limitFromEnv(name, fallback);
  if (!Number.isSafeInteger(n)) throw new Error(`${name}=${process.env[name]} is not a whole number of seconds (0 for none)`);
  return n;
}

function limitFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name}=${raw} is not a number of 0 or more (0 for no limit)`);
  return n;
}

/** The token file: named, else the data folder's tokens.json when it exists (`enclave tokens add` writes there). */
export function tokensFileFor(dataDir: string, named: string | undefined): string {
  if (named) return resolve(named);
  const beside = join(dataDir, "tokens.json");
  return existsSync(beside) ? beside : "";
}

export function loadConfig(
  overrides: Partial<Pick<ControlPlaneConfig, "dataDir" | "listen">> & { api?: Partial<ApiSecurityConfig>; otlpEndpoint?: string } = {},
): ControlPlaneConfig {
  const dataDir = resolve(overrides.dataDir ?? process.env.ENCLAVE_DATA_DIR ?? join(repoRoot, ".enclave", "data"));
  const hostUids = hostUidsFromEnv();
  const api = overrides.api ?? {};
  return {
    api: {
      tlsCertFile: api.tlsCertFile || process.env.ENCLAVE_TLS_CERT || "",
      tlsKeyFile: api.tlsKeyFile || process.env.ENCLAVE_TLS_KEY || "",
      tlsClientCaFile: api.tlsClientCaFile || process.env.ENCLAVE_TLS_CLIENT_CA || "",
      tokensFile: tokensFileFor(dataDir, api.tokensFile || process.env.ENCLAVE_TOKENS_FILE),
      allowInsecureRemote: api.allowInsecureRemote || onOffFromEnv("ENCLAVE_INSECURE_REMOTE", false),
    },
    dataDir,
    listen: overrides.listen ?? process.env.ENCLAVE_LISTEN ?? DEFAULT_LISTEN,
    agentBundleDir: process.env.ENCLAVE_AGENT_BUNDLE ?? agentBundleDir,
    customToolsDir: process.env.ENCLAVE_CUSTOM_TOOLS_DIR ?? "",
    enclosure: {
      image: process.env.ENCLAVE_IMAGE ?? "",
      imageRegistry: process.env.ENCLAVE_IMAGE_REGISTRY ?? "",
      allowedImages: parseAllowedImages(process.env.ENCLAVE_ALLOWED_IMAGES ?? "", "ENCLAVE_ALLOWED_IMAGES"),
      runtime: runtimeFromEnv(),
      memoryBytes: numberFromEnv("ENCLAVE_ENCLOSURE_MEMORY_BYTES", 2 * 1024 ** 3),
      cpus: numberFromEnv("ENCLAVE_ENCLOSURE_CPUS", 1),
      pidsLimit: numberFromEnv("ENCLAVE_ENCLOSURE_PIDS", 512),
      tmpSizeBytes: LIMITS.sandboxTmpBytes,
      homeSizeBytes: LIMITS.sandboxHomeBytes,
      diskBytes: numberFromEnv("ENCLAVE_ENCLOSURE_DISK_BYTES", 10 * 1024 ** 3),
      diskImageDir: join(dataDir, "enclosure-disks"),
      copyBackMaxBytes: numberFromEnv("ENCLAVE_COPY_BACK_MAX_BYTES", LIMITS.copyBackMaxBytes),
      uids: enclosureUidsFromEnv(hostUids),
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
    hostSandbox: {
      network: onOffFromEnv("ENCLAVE_HOST_NETWORK", false),
      spares: hostSparesFromEnv(),
      uids: hostUids,
      cgroups: onOffFromEnv("ENCLAVE_HOST_CGROUPS", true),
      pythonRoots: foldersFromEnv("ENCLAVE_HOST_PYTHON_ROOTS", DEFAULT_PYTHON_ROOTS),
      limits: {
        pidsMax: numberFromEnv("ENCLAVE_HOST_PIDS", LIMITS.hostSandboxPidsDefault),
        memoryBytes: numberFromEnv("ENCLAVE_HOST_MEMORY_BYTES", LIMITS.hostSandboxMemoryBytesDefault),
        cpuShares: numberFromEnv("ENCLAVE_HOST_CPU_SHARES", LIMITS.hostSandboxCpuSharesDefault),
      },
    },
    auditRetention: {
      maxAgeMs: Math.round(limitFromEnv("ENCLAVE_AUDIT_RETENTION_DAYS", LIMITS.auditRetentionDefaultDays) * 86_400_000),
      maxBytes: Math.round(limitFromEnv("ENCLAVE_AUDIT_MAX_MIB", LIMITS.auditMaxDefaultMib) * 1024 ** 2),
      maxBytesPerTenant: Math.round(limitFromEnv("ENCLAVE_AUDIT_MAX_MIB_PER_TENANT", LIMITS.auditMaxPerTenantDefaultMib) * 1024 ** 2),
      pruneIntervalMs: LIMITS.auditPruneIntervalMs,
    },
    cliRunIdleMs: Math.round(numberFromEnv("ENCLAVE_CLI_RUN_IDLE_SECONDS", LIMITS.cliRunIdleSeconds) * 1000),
    lifecycle: {
      // 0 turns the policy off (nothing sleeps on its own); a conversation's own value still applies.
      idleTimeoutSeconds: wholeSecondsFromEnv("ENCLAVE_IDLE_TIMEOUT_SECONDS", LIMITS.idleTimeoutSecondsDefault),
      maxLifetimeSeconds: wholeSecondsFromEnv("ENCLAVE_MAX_LIFETIME_SECONDS", LIMITS.maxLifetimeSecondsDefault),
      sweepMs: Math.round(numberFromEnv("ENCLAVE_LIFECYCLE_SWEEP_MS", LIMITS.lifecycleSweepMs)),
    },
    engines: enginesFromEnv(),
    warmPool: warmPoolFromEnv(),
    tracing: tracingFrom(overrides.otlpEndpoint),
  };
}
