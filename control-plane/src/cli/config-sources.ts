// `enclave config`: each value of the effective configuration (config.ts: loadConfig) and where it
// came from: a flag, an environment variable, or the default. Tokens are never shown, only whether
// one is set.
import type { ControlPlaneConfig } from "../config.js";
import { DEFAULT_LISTEN } from "../config.js";
import type { CliOptions, OptionName } from "./options.js";

export interface ConfigRow {
  /** The path in ControlPlaneConfig ("enclosure.memoryBytes"), or client.* for the CLI's own side. */
  name: string;
  value: unknown;
  /** "flag --x", "env NAME", or "default". */
  source: string;
}

interface Source {
  /** The dotted path into ControlPlaneConfig. */
  path: string;
  /** The variables that set it, in the order loadConfig reads them. */
  env: string[];
  flag?: OptionName;
}

/** Every value loadConfig resolves; a unit test keeps this list covering the whole configuration. */
export const CONFIG_SOURCES: readonly Source[] = [
  { path: "listen", env: ["ENCLAVE_LISTEN"], flag: "listen" },
  { path: "dataDir", env: ["ENCLAVE_DATA_DIR"], flag: "data-dir" },
  { path: "agentBundleDir", env: ["ENCLAVE_AGENT_BUNDLE"] },
  { path: "customToolsDir", env: ["ENCLAVE_CUSTOM_TOOLS_DIR"] },
  { path: "api.tlsCertFile", env: ["ENCLAVE_TLS_CERT"], flag: "tls-cert" },
  { path: "api.tlsKeyFile", env: ["ENCLAVE_TLS_KEY"], flag: "tls-key" },
  { path: "api.tlsClientCaFile", env: ["ENCLAVE_TLS_CLIENT_CA"], flag: "tls-client-ca" },
  { path: "api.tokensFile", env: ["ENCLAVE_TOKENS_FILE"], flag: "tokens-file" },
  { path: "api.allowInsecureRemote", env: ["ENCLAVE_INSECURE_REMOTE"], flag: "insecure-remote" },
  { path: "enclosure.image", env: ["ENCLAVE_IMAGE"] },
  { path: "enclosure.imageRegistry", env: ["ENCLAVE_IMAGE_REGISTRY"] },
  { path: "enclosure.allowedImages", env: ["ENCLAVE_ALLOWED_IMAGES"] },
  { path: "enclosure.runtime", env: ["ENCLAVE_ENCLOSURE_RUNTIME"] },
  { path: "enclosure.memoryBytes", env: ["ENCLAVE_ENCLOSURE_MEMORY_BYTES"] },
  { path: "enclosure.cpus", env: ["ENCLAVE_ENCLOSURE_CPUS"] },
  { path: "enclosure.pidsLimit", env: ["ENCLAVE_ENCLOSURE_PIDS"] },
  { path: "enclosure.tmpSizeBytes", env: [] },
  { path: "enclosure.homeSizeBytes", env: [] },
  { path: "enclosure.diskBytes", env: ["ENCLAVE_ENCLOSURE_DISK_BYTES"] },
  { path: "enclosure.diskImageDir", env: ["ENCLAVE_DATA_DIR"], flag: "data-dir" },
  { path: "enclosure.copyBackMaxBytes", env: ["ENCLAVE_COPY_BACK_MAX_BYTES"] },
  { path: "enclosure.uids", env: ["ENCLAVE_ENCLOSURE_UID_BASE", "ENCLAVE_ENCLOSURE_UID_COUNT"] },
  { path: "questionTimeoutMs", env: ["ENCLAVE_QUESTION_TIMEOUT_SECONDS"] },
  { path: "vibe.commands.fast", env: ["ENCLAVE_VIBE_COMMAND_FAST", "ENCLAVE_VIBE_COMMAND"] },
  { path: "vibe.commands.good", env: ["ENCLAVE_VIBE_COMMAND_GOOD", "ENCLAVE_VIBE_COMMAND"] },
  { path: "vibe.workerTimeoutMs", env: ["ENCLAVE_VIBE_TIMEOUT_SECONDS"] },
  { path: "debugSessionTtlMs", env: ["ENCLAVE_DEBUG_TTL_SECONDS"] },
  { path: "hostSandbox.network", env: ["ENCLAVE_HOST_NETWORK"] },
  { path: "hostSandbox.spares", env: ["ENCLAVE_HOST_SPARES"] },
  { path: "hostSandbox.uids", env: ["ENCLAVE_HOST_UID_BASE", "ENCLAVE_HOST_UID_COUNT"] },
  { path: "hostSandbox.cgroups", env: ["ENCLAVE_HOST_CGROUPS"] },
  { path: "hostSandbox.pythonRoots", env: ["ENCLAVE_HOST_PYTHON_ROOTS"] },
  { path: "hostSandbox.limits.pidsMax", env: ["ENCLAVE_HOST_PIDS"] },
  { path: "hostSandbox.limits.memoryBytes", env: ["ENCLAVE_HOST_MEMORY_BYTES"] },
  { path: "hostSandbox.limits.cpuShares", env: ["ENCLAVE_HOST_CPU_SHARES"] },
  { path: "auditRetention.maxAgeMs", env: ["ENCLAVE_AUDIT_RETENTION_DAYS"] },
  { path: "auditRetention.maxBytes", env: ["ENCLAVE_AUDIT_MAX_MIB"] },
  { path: "auditRetention.maxBytesPerTenant", env: ["ENCLAVE_AUDIT_MAX_MIB_PER_TENANT"] },
  { path: "auditRetention.pruneIntervalMs", env: [] },
  { path: "cliRunIdleMs", env: ["ENCLAVE_CLI_RUN_IDLE_SECONDS"] },
  { path: "lifecycle.idleTimeoutSeconds", env: ["ENCLAVE_IDLE_TIMEOUT_SECONDS"] },
  { path: "lifecycle.maxLifetimeSeconds", env: ["ENCLAVE_MAX_LIFETIME_SECONDS"] },
  { path: "lifecycle.sweepMs", env: ["ENCLAVE_LIFECYCLE_SWEEP_MS"] },
  { path: "engines", env: ["ENCLAVE_ENGINES_FILE", "DOCKER_HOST", "DOCKER_CERT_PATH", "DOCKER_TLS_VERIFY", "ENCLAVE_ENGINE_CAP"] },
  { path: "warmPool.size", env: ["ENCLAVE_WARM_POOL_SIZE"] },
  { path: "warmPool.profiles", env: ["ENCLAVE_WARM_POOL_PROFILES"] },
  { path: "tracing.otlpEndpoint", env: ["OTEL_EXPORTER_OTLP_ENDPOINT"], flag: "otlp-endpoint" },
  { path: "tracing.serviceName", env: ["OTEL_SERVICE_NAME"] },
];

/** The value at a dotted path. */
export function valueAt(config: unknown, path: string): unknown {
  let v: unknown = config;
  for (const key of path.split(".")) v = v !== null && typeof v === "object" ? (v as Record<string, unknown>)[key] : undefined;
  return v;
}

function sourceOf(opts: CliOptions, env: readonly string[], flag: OptionName | undefined, environment: NodeJS.ProcessEnv): string {
  if (flag && opts[flag] !== undefined) return `flag --${flag}`;
  const set = env.filter((name) => (environment[name] ?? "") !== "");
  return set.length ? `env ${set.join(", ")}` : "default";
}

/** A secret is shown only as whether it is set. */
function secretRow(name: string, opts: CliOptions, flag: OptionName | undefined, env: string, environment: NodeJS.ProcessEnv): ConfigRow {
  const source = sourceOf(opts, [env], flag, environment);
  return { name, value: source === "default" ? "(not set)" : "(set; not shown)", source };
}

/** The control plane's configuration row by row, then the command line's own (address, token). */
export function configRows(config: ControlPlaneConfig, opts: CliOptions, environment: NodeJS.ProcessEnv = process.env): ConfigRow[] {
  const rows: ConfigRow[] = CONFIG_SOURCES.map((s) => ({ name: s.path, value: valueAt(config, s.path), source: sourceOf(opts, s.env, s.flag, environment) }));
  // The tokens file is found beside the data when none is named.
  const tokens = rows.find((r) => r.name === "api.tokensFile");
  if (tokens && tokens.source === "default" && tokens.value !== "") tokens.source = "default (tokens.json in the data folder)";
  rows.push(secretRow("console.token", opts, undefined, "ENCLAVE_CONSOLE_TOKEN", environment));
  rows.push({
    name: "client.address",
    value: opts.address ?? environment.ENCLAVE_ADDRESS ?? DEFAULT_LISTEN,
    source: sourceOf(opts, ["ENCLAVE_ADDRESS"], "address", environment),
  });
  rows.push(secretRow("client.token", opts, "token", "ENCLAVE_TOKEN", environment));
  return rows;
}
