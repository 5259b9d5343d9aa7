// The control plane's one logger (pino): JSON lines on standard error for a log pipeline, or with
// --log-format human a line a person reads (`12:03:04 info  control plane serving  api=…`). The
// default, auto, is human when standard error is a terminal and JSON otherwise, so a person running
// `make run` reads lines and CI and log shippers keep JSON. A line about a conversation carries its
// conversation, run and tenant as fields (see scopeOf), never only inside the message.
// Log text can come from an enclosure (a relay's complaint, a container's exit detail): JSON escapes
// it, and the human view passes every string through terminalSafe first, so nothing written inside
// an enclosure reaches an operator's terminal as an escape sequence.
import { tenantOf } from "../tenants/implicit-tenant.js";
import { fstatSync } from "node:fs";
import { pino, type DestinationStream, type Logger } from "pino";
import pretty from "pino-pretty";
import { LIMITS } from "../limits.js";
import { LineBatch } from "./line-batch.js";
import { terminalSafe } from "../text/terminal-safe.js";

/** What --log-format takes ("pretty", its former name, still means human). */
export const LOG_FORMATS = ["auto", "json", "human"] as const;
export type LogFormatChoice = (typeof LOG_FORMATS)[number];
/** The format lines are written in, once auto is decided. */
export type LogFormat = Exclude<LogFormatChoice, "auto">;

export function isLogFormat(s: string): s is LogFormatChoice {
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

/** The batch the JSON lines to standard error go through now. */
let batch: LineBatch | undefined;

function make(settings: LogSettings): Logger {
  const base = {
    level: settings.level,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  batch?.close();
  batch = undefined;
  if (settings.format === "json") {
    if (settings.destination) return pino(base, settings.destination);
    // To a regular file, written at once: a file has no reader to wait on, a line per tool call then
    // costs one write(2) on this thread instead of a round trip through libuv's thread pool, and a
    // line is in the file when the call that logged it returns.
    if (stderrIsFile()) return pino(base, pino.destination({ fd: 2, sync: true, maxLength: LIMITS.logBufferMaxBytes }));
    // To a pipe or socket, written asynchronously: a log reader that stalls must not stall the control
    // plane (pino flushes what is left synchronously when the process exits). The lines of a burst (a
    // line per tool call) are kept briefly and go out in one write (see line-batch.ts).
    batch = new LineBatch(pino.destination({ fd: 2, sync: false, maxLength: LIMITS.logBufferMaxBytes }));
    return pino(base, batch);
  }
  const colors = !settings.destination && Boolean(process.stderr.isTTY);
  const view = pretty({
    destination: settings.destination ?? 2,
    sync: true,
    colorize: false,
    // The whole line is messageFormat's: pino-pretty's own time, level and object views are off.
    ignore: "pid,hostname,time,level",
    hideObject: true,
    messageFormat: (line, messageKey) => humanLine(line, messageKey, colors),
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

const LEVEL_COLORS: Record<string, string> = {
  fatal: "\u001b[35m",
  error: "\u001b[31m",
  warn: "\u001b[33m",
  info: "\u001b[32m",
  debug: "\u001b[90m",
  trace: "\u001b[90m",
};

function fieldText(v: unknown): string {
  return typeof v === "string" && v !== "" && !/\s/.test(v) ? v : JSON.stringify(v);
}

/** `12:03:04 info  the message  key=value …`: local time, the level, the message, then the fields. */
function humanLine(line: Record<string, unknown>, messageKey: string, colors: boolean): string {
  const time = typeof line.time === "string" || typeof line.time === "number" ? new Date(line.time) : new Date();
  const hms = [time.getHours(), time.getMinutes(), time.getSeconds()].map((n) => String(n).padStart(2, "0")).join(":");
  const level = typeof line.level === "number" ? (pino.levels.labels[line.level] ?? String(line.level)) : String(line.level);
  const label = level.padEnd(5);
  const fields = Object.entries(line)
    .filter(([k]) => !["time", "level", "pid", "hostname", messageKey].includes(k))
    .map(([k, v]) => `${k}=${fieldText(v)}`)
    .join(" ");
  const message = typeof line[messageKey] === "string" ? line[messageKey] : "";
  return `${hms} ${colors && LEVEL_COLORS[level] ? `${LEVEL_COLORS[level]}${label}\u001b[0m` : label} ${message}${fields ? `  ${fields}` : ""}`;
}

/** What a process that never calls configureLogging logs by (an embedding, a test): the environment's settings when valid, JSON when none is given. */
function fromEnvironment(): LogSettings {
  try {
    return resolveLogSettings(process.env.ENCLAVE_LOG_FORMAT || "json", process.env.ENCLAVE_LOG_LEVEL);
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

/**
 * --log-format / ENCLAVE_LOG_FORMAT (auto by default: human when standard error is a terminal, as
 * `terminal` says, else json) and ENCLAVE_LOG_LEVEL (info by default).
 */
export function resolveLogSettings(format: string | undefined, level: string | undefined, terminal = Boolean(process.stderr.isTTY)): LogSettings {
  const given = (format ?? "").trim() || "auto";
  const f = given === "pretty" ? "human" : given;
  if (!isLogFormat(f)) throw new Error(`log format \`${f}\` is not one of ${LOG_FORMATS.join(", ")}`);
  const l = (level ?? "").trim() || "info";
  if (!isLogLevel(l)) throw new Error(`log level \`${l}\` is not one of ${LOG_LEVELS.join(", ")}`);
  return { format: f === "auto" ? (terminal ? "human" : "json") : f, level: l };
}
