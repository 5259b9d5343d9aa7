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
  /** A cell's default budget of running time (suspended while a bridge call is pending), and its cap. */
  kernelIdleBudgetMs: 300_000,
  kernelMaxIdleBudgetMs: 6 * 60 * 60 * 1000,
  /** After the SIGINT that ends an over-budget cell, how long before the kernel is killed. */
  kernelInterruptGraceMs: 5_000,
  /** How long a kernel may take to say it is ready. */
  kernelStartTimeoutMs: 60_000,
  /** After a kernel exits, how long its pipes may still drain. */
  kernelExitDrainMs: 500,
  /** Stdout + stderr bytes one cell may stream before the rest is dropped. */
  kernelCellOutputBytes: 8 * 1024 * 1024,
  /** Display data (tables, images) one cell may send before the rest is dropped. */
  kernelCellDisplayBytes: 32 * 1024 * 1024,
  /** Output printed between cells (threads, timers), kept for the next cell. */
  kernelStrayOutputBytes: 64 * 1024,
  /** Longest cell the agent accepts. */
  kernelMaxCodeBytes: 4 * 1024 * 1024,
} as const;
