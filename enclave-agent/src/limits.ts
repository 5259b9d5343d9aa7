// The agent's limits, in one table. Every cap a handler enforces comes from here.
export const LIMITS = {
  /** Largest gRPC message either side accepts (file contents travel in one message). */
  grpcMaxMessageBytes: 64 * 1024 * 1024,
  /** Default and hard cap on the bytes ReadFile returns. */
  readDefaultBytes: 4 * 1024 * 1024,
  readMaxBytes: 32 * 1024 * 1024,
  /** Largest file WriteFile, EditFile or ApplyPatch will write. */
  writeMaxBytes: 32 * 1024 * 1024,
  patchMaxBytes: 8 * 1024 * 1024,
  listDefaultEntries: 1000,
  listMaxEntries: 20_000,
  execDefaultTimeoutMs: 120_000,
  execMaxTimeoutMs: 60 * 60 * 1000,
  /** Stdout + stderr bytes streamed per command before the rest is dropped. */
  execOutputCapBytes: 16 * 1024 * 1024,
  /** After SIGTERM on timeout, how long before SIGKILL. */
  execKillGraceMs: 2_000,
  archiveChunkBytes: 256 * 1024,
  archiveMaxEntryBytes: 512 * 1024 * 1024,
  symlinkDepth: 40,
  /** Debug sessions (dap/): the debuggee output kept for `output` (the oldest is dropped first). */
  debugOutputBufferBytes: 256 * 1024,
  debugMaxMessageBytes: 64 * 1024 * 1024,
  /** Adapter stderr kept for error messages. */
  debugDiagnosticsBytes: 8 * 1024,
  /** An adapter has this long to start (and, for delve, to print where it listens). */
  debugAdapterStartMs: 30_000,
  /** Each DAP request; launch and attach get the longer one (delve builds the program first). */
  debugRequestTimeoutMs: 30_000,
  debugLaunchTimeoutMs: 180_000,
  /** How long launch, continue and the steps wait for the program to stop before answering "running". */
  debugStopWaitMs: 60_000,
  /** Default hard lifetime of a session when the caller gives none (the spec's 30 minutes). */
  debugSessionTtlMs: 30 * 60 * 1000,
  debugProbeTimeoutMs: 20_000,
  /** How long "this python cannot load debugpy" is believed before probing again. */
  debugProbeNegativeCacheMs: 30_000,
} as const;
