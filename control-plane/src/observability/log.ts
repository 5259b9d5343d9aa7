// The control plane's one logger (pino): JSON lines on standard error for a log pipeline, or with
// --log-format pretty a view for a person (pino-pretty). A line about a conversation carries its
// conversation, run and tenant as fields (see scopeOf), never only inside the message.
// Log text can come from an enclosure (a relay's complaint, a container's exit detail): JSON escapes
// it, and the pretty view passes every string through terminalSafe first, so nothing written inside
// an enclosure reaches an operator's terminal as an escape sequence.
import { tenantOf } from "../tenants/implicit-tenant.js";
import { fstatSync } from "node:fs";
import { pino, type DestinationStream, type Logger } from "pino";
import pretty from "pino-pretty";
import { LIMITS } from "../limits.js";
import { terminalSafe } from "../text/terminal-safe.js";

export const LOG_FORMATS = ["json", "pretty"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export function isLogFormat(s: string): s is LogFormat {
  return (LOG_FORMATS as readonly string[]).includes(s);
}

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function isLogLevel(s: string): s is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(s);
}

export interface LogSettings {
  format: LogFormat;
  level: LogLevel;
  /** Where lines go; standard error when absent (tests pass a stream to read them back). */
  destination?: DestinationStream;
}

/** The fields every line about a conversation carries. */
export interface LogScope {
  conversation?: string;
  run?: string;
  tenant: string;
}

/** conversation, run and tenant of a record (an audit event, a run); the tenant is "local" when it has none. */
export function scopeOf(record: { conversationId?: string; runId?: string; tenant?: unknown }): LogScope {
  const scope: LogScope = { tenant: tenantOf(record) };
  if (record.conversationId) scope.conversation = record.conversationId;
  if (record.runId) scope.run = record.runId;
  return scope;
}

function safeValue(v: unknown, depth: number): unknown {
  if (typeof v === "string") return terminalSafe(v);
  if (depth > 4 || v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) return v.map((x) => safeValue(x, depth + 1));
  return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [terminalSafe(k), safeValue(x, depth + 1)]));
}

function stderrIsFile(): boolean {
  try {
    return fstatSync(2).isFile();
  } catch {
    return false;
  }
}

function make(settings: LogSettings): Logger {
  const base = {
    level: settings.level,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (settings.format === "json") {
    // To a pipe or socket, written asynchronously: a log reader that stalls must not stall the control
    // plane (lines that pile up while a write is in flight go out together; pino flushes what is left
    // synchronously when the process exits). To a regular file, written at once: a file has no reader
    // to wait on, and a line per tool call then costs one write(2) on this thread instead of a
    // round trip through libuv's thread pool.
    return pino(base, settings.destination ?? pino.destination({ fd: 2, sync: stderrIsFile(), maxLength: LIMITS.logBufferMaxBytes }));
  }
  const view = pretty({
    destination: settings.destination ?? 2,
    sync: true,
    colorize: !settings.destination && Boolean(process.stderr.isTTY),
    translateTime: "SYS:HH:MM:ss.l",
    ignore: "pid,hostname",
  });
  return pino(
    {
      ...base,
      formatters: { log: (obj) => safeValue(obj, 0) as Record<string, unknown> },
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map((a) => (typeof a === "string" ? terminalSafe(a) : a)) as Parameters<typeof method>);
        },
      },
    },
    view,
  );
}

/** What a process that never calls configureLogging logs by (an embedding, a test): the environment's settings when valid. */
function fromEnvironment(): LogSettings {
  try {
    return resolveLogSettings(process.env.ENCLAVE_LOG_FORMAT, process.env.ENCLAVE_LOG_LEVEL);
  } catch {
    return { format: "json", level: "info" };
  }
}

let current: Logger = make(fromEnvironment());

/** Sets the format and level for the rest of the process (enclave serve does, from its options). */
export function configureLogging(settings: LogSettings): Logger {
  current = make(settings);
  return current;
}

/** The process's logger. Ask for it when logging, not at import: configureLogging may replace it. */
export function log(): Logger {
  return current;
}

/** --log-format / ENCLAVE_LOG_FORMAT (json by default) and ENCLAVE_LOG_LEVEL (info by default). */
export function resolveLogSettings(format: string | undefined, level: string | undefined): LogSettings {
  const f = (format ?? "").trim() || "json";
  if (!isLogFormat(f)) throw new Error(`log format \`${f}\` is not one of ${LOG_FORMATS.join(", ")}`);
  const l = (level ?? "").trim() || "info";
  if (!isLogLevel(l)) throw new Error(`log level \`${l}\` is not one of ${LOG_LEVELS.join(", ")}`);
  return { format: f, level: l };
}
