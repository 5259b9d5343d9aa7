// The control plane's limits, in one table: tool caps, timeouts, sizes.
export const LIMITS = {
  /** Bytes of a file the read tool returns by default (the agent caps at its own maximum). */
  readDefaultBytes: 256 * 1024,
  readMaxBytes: 4 * 1024 * 1024,
  /** Bytes of command output kept in the exec tool's final result (head and tail); the stream has all. */
  execResultBytes: 64 * 1024,
  execDefaultTimeoutSeconds: 120,
  execMaxTimeoutSeconds: 3600,
  listDefaultEntries: 500,
  listMaxEntries: 5000,
  /** Largest arguments JSON a tool call may carry. */
  argumentsMaxBytes: 16 * 1024 * 1024,
  /** Deadline of one unary agent call (file operations). */
  agentCallTimeoutMs: 60_000,
  /** How long the host agent or an enclosure's agent gets to answer Health when (re)started. */
  agentReadyTimeoutMs: 30_000,
  /** Deadline of the Health probe made before a call when the channel is not connected. */
  agentProbeTimeoutMs: 10_000,
  grpcMaxMessageBytes: 64 * 1024 * 1024,
  /** Audit events kept in memory for subscribers asking for history (the file keeps everything). */
  auditMemoryEvents: 10_000,
  /** An eval cell's idle budget (suspended while its bridge calls run), by default and at most. */
  evalDefaultTimeoutSeconds: 300,
  evalMaxTimeoutSeconds: 6 * 60 * 60,
  /** Text of one cell kept in the eval result (head and tail); images kept per cell. */
  evalResultTextBytes: 64 * 1024,
  evalMaxImages: 20,
} as const;
