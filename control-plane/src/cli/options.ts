// The command line's options, parsed once; every command reads the ones it needs.
import { type ParseArgsConfig, parseArgs } from "node:util";

const OPTIONS = {
  address: { type: "string" },
  token: { type: "string" },
  "tls-ca": { type: "string" },
  "tls-cert": { type: "string" },
  "tls-key": { type: "string" },
  "tls-client-ca": { type: "string" },
  "tls-server-name": { type: "string" },
  "tokens-file": { type: "string" },
  "insecure-remote": { type: "boolean" },
  operator: { type: "boolean" },
  force: { type: "boolean" },
  label: { type: "string" },
  listen: { type: "string" },
  console: { type: "string" },
  metrics: { type: "string" },
  "otlp-endpoint": { type: "string" },
  "log-format": { type: "string" },
  "data-dir": { type: "string" },
  conversation: { type: "string", short: "c" },
  surface: { type: "string" },
  approval: { type: "string" },
  workspace: { type: "string" },
  idle: { type: "string" },
  lifetime: { type: "string" },
  reason: { type: "string" },
  "workspace-mode": { type: "string" },
  "workspace-only": { type: "boolean" },
  memory: { type: "string" },
  cpus: { type: "string" },
  pids: { type: "string" },
  disk: { type: "string" },
  runtime: { type: "string" },
  image: { type: "string" },
  devcontainer: { type: "boolean" },
  registry: { type: "string" },
  agent: { type: "boolean" },
  follow: { type: "boolean" },
  log: { type: "boolean" },
  all: { type: "boolean" },
  full: { type: "boolean" },
  text: { type: "string" },
  skip: { type: "boolean" },
  vibe: { type: "boolean" },
  json: { type: "boolean" },
  "new-run": { type: "boolean" },
  run: { type: "string" },
  yes: { type: "boolean", short: "y" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
} as const satisfies NonNullable<ParseArgsConfig["options"]>;

export function parseCommandLine(args: string[] = process.argv.slice(2)) {
  return parseArgs({ args, allowPositionals: true, options: OPTIONS });
}

/**
 * The command and the options no command takes, read leniently: for the usage error of a line the
 * strict parse refused, so it can name the command's options.
 */
export function unknownOptions(args: string[] = process.argv.slice(2)): { command: string; unknown: string[] } {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: OPTIONS, strict: false });
  return { command: positionals[0] ?? "", unknown: Object.keys(values).filter((name) => !Object.hasOwn(OPTIONS, name)) };
}

export type CliOptions = ReturnType<typeof parseCommandLine>["values"];
export type OptionName = keyof typeof OPTIONS;

/** How the command line reaches a control plane. */
const CONNECTION: readonly OptionName[] = ["address", "token", "tls-ca", "tls-cert", "tls-key", "tls-server-name"];
/** Which run a tool command uses. */
const RUN: readonly OptionName[] = ["conversation", "surface", "approval", "new-run", "run", "vibe"];
/** What `serve` reads from its flags, and `config` shows. */
const SERVE: readonly OptionName[] = [
  "listen",
  "data-dir",
  "console",
  "metrics",
  "otlp-endpoint",
  "log-format",
  "tls-cert",
  "tls-key",
  "tls-client-ca",
  "tokens-file",
  "insecure-remote",
];

/** The options each command takes (besides --help); any other is refused as a usage error. */
export const COMMAND_OPTIONS: Record<string, readonly OptionName[]> = {
  /** `enclave --version` (no command). */
  "": ["version", "json"],
  serve: SERVE,
  config: ["listen", "data-dir", "tls-cert", "tls-key", "tls-client-ca", "tokens-file", "insecure-remote", "otlp-endpoint", "address", "token", "json"],
  doctor: ["json"],
  tokens: ["tokens-file", "data-dir", "operator", "label", "all"],
  conversations: [...CONNECTION, "workspace", "workspace-only", "idle", "lifetime", "json"],
  tenants: [...CONNECTION, "reason", "json"],
  enclosure: [...CONNECTION, "workspace-mode", "memory", "cpus", "pids", "disk", "runtime", "image", "devcontainer", "force", "json"],
  tools: [...CONNECTION, ...RUN, "json"],
  tool: [...CONNECTION, ...RUN, "yes", "json"],
  runs: [...CONNECTION, "conversation", "surface", "json"],
  placement: [...CONNECTION, "conversation", "json"],
  cards: [...CONNECTION, "follow", "all", "full", "json"],
  answer: [...CONNECTION, "text", "skip", "json"],
  audit: [...CONNECTION, "log", "follow", "json"],
  calls: [...CONNECTION, "conversation", "json"],
  kernel: [...CONNECTION, "json"],
  "host-agent": [...CONNECTION, "json"],
  /** The image pipeline's (images/pipeline/cli.ts); the Docker engine comes from the environment. */
  images: ["agent", "registry", "json"],
};

/** The options given that `command` does not take. */
export function refusedOptions(command: string, opts: CliOptions): string[] {
  const takes = new Set<string>([...(COMMAND_OPTIONS[command] ?? []), "help"]);
  return Object.keys(opts).filter((name) => !takes.has(name));
}
