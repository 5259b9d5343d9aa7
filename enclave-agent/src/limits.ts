// The agent's limits, in one table. Every cap a handler enforces comes from here.
import { PROTOCOL_LIMITS } from "@enclave/proto/limits.js";

export const LIMITS = {
  ...PROTOCOL_LIMITS,
  /** Room a call-mux reply frame needs around the answer it carries (its id and field tags). */
  muxFrameOverheadBytes: 64,
  /** Default and hard cap on the bytes ReadFile returns. */
  readDefaultBytes: 4 * 1024 * 1024,
  readMaxBytes: 32 * 1024 * 1024,
  /** A read up to this size is made on the agent's thread (a page-cached file: microseconds); larger, in the thread pool. */
  syncReadMaxBytes: 256 * 1024,
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
  /** After a command exits, how long its output may keep draining before what it left running and
   * still holding the output is killed (and again, before the output is cut off). */
  execDrainAfterExitMs: 300,
  /** After a command exits (its output closed), how long before what it left in its group is killed. */
  execGroupKillAfterExitMs: 2_000,
  symlinkDepth: 40,
  /** Largest write journal recovery reads (one entry per file of a multi-file change). */
  journalMaxBytes: 16 * 1024 * 1024,
  /** Structural search: largest file parsed (the caps on matches returned are PROTOCOL_LIMITS'). */
  astMaxFileBytes: 32 * 1024 * 1024,
  /** Structural-search worker threads (at most one per core); 0 parses in the agent's own thread. */
  astWorkers: 4,
  /** A file at least this many characters long may be parsed in top-level pieces by several workers at once. */
  astSplitMinChars: 1024 * 1024,
  /** Memory the parsed trees structural search keeps may take, over all its workers (estimated). */
  astTreeCacheBytes: 512 * 1024 * 1024,
  /** Idle structural-search workers stop after this, giving back their memory and kept trees. */
  astWorkerIdleMs: 10 * 60_000,
  /** Text of the files a search has read ahead and not yet reported (at least one file is always read). */
  astHeldBytes: 64 * 1024 * 1024,
  /** Characters of unified diff an ast_edit preview carries. */
  astPreviewChars: 64 * 1024,
  /** Language servers: per-request deadline (then $/cancelRequest), start-up deadline. */
  lspRequestTimeoutMs: 20_000,
  lspStartTimeoutMs: 60_000,
  /**
   * A workspace symbol search with no file starts and asks at most this many (server, root) pairs,
   * each opening one of its files found within this depth and this many folder entries.
   */
  lspSearchMaxServers: 6,
  lspSearchSampleDepth: 4,
  lspSearchSampleEntries: 5_000,
  /** Quiet time after a push of diagnostics before taking it as the server's answer. */
  lspDiagnosticsDebounceMs: 150,
  /** How long a query waits for a server's open indexing progress to end before asking anyway. */
  lspIndexingWaitMs: 10_000,
  /** After a server's first document is opened, how long to wait for it to announce its indexing. */
  lspProgressAnnounceMs: 1_000,
  // Open documents are re-checked by folder watches; all of them at most this often as well, in case
  // the kernel dropped an event.
  lspOpenDocumentSweepMs: 5_000,
  /**
   * clangd without a compile_commands.json: the most C/C++ sources under a root the agent lists in a
   * derived one (beyond it, project-wide operations are refused), and the folders it walks.
   */
  lspDerivedSourcesMax: 5_000,
  lspDerivedWalkEntriesMax: 100_000,
  /** How long code_actions waits for the current diagnostics it passes to the server as context. */
  lspCodeActionContextWaitMs: 5_000,
  /** shutdown/exit, then this long before the process tree is killed. */
  lspShutdownGraceMs: 1_500,
  /** A server that dies this many times, each within lspCrashWindowMs of its start, is not respawned. */
  lspMaxCrashes: 3,
  lspCrashWindowMs: 60_000,
  lspRestartBackoffMs: 250,
  lspRestartBackoffMaxMs: 5_000,
  lspStderrTailBytes: 4_096,
  /** The project's own checker (lsp diagnostics "*"). */
  checkerDefaultTimeoutMs: 180_000,
  checkerOutputBytes: 256 * 1024,
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
  /** Frames read to show the traceback of an exception the program stopped on. */
  debugExceptionFrames: 50,
  /** Largest stdin text a launch feeds the program. */
  debugStdinMaxBytes: 8 * 1024 * 1024,
  /** Default hard lifetime of a session when the caller gives none (30 minutes: long enough for a debugging conversation, short enough that a forgotten session does not hold an adapter for hours). */
  debugSessionTtlMs: 30 * 60 * 1000,
  /** How long a probe of an installed program (a server's --version, a python's imports) may take. */
  probeTimeoutMs: 20_000,
  /** How long a failed probe ("this python cannot load debugpy") is believed before probing again. */
  probeNegativeCacheMs: 30_000,
  /** A cell's default budget of running time (suspended while a bridge call is pending), and its cap. */
  kernelRunBudgetMs: 300_000,
  kernelMaxRunBudgetMs: 6 * 60 * 60 * 1000,
  /** After the SIGINT that ends an over-budget cell, how long before the kernel is killed. */
  kernelInterruptGraceMs: 5_000,
  /** How long a kernel may take to say it is ready. */
  kernelStartTimeoutMs: 60_000,
  /** The end of a starting kernel's stderr kept for the error when it fails to start. */
  kernelStartStderrChars: 8 * 1024,
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
  /**
   * Longest frame line a kernel may write on its frame pipe (fd 3). The largest legitimate frames are
   * a display at the per-cell display cap (32 MiB of image, about 43 MiB as base64) and a bridge call
   * carrying the control plane's largest arguments (16 MiB, escaped once more inside the frame). A
   * kernel past it has broken the protocol (a cell writing to fd 3 itself) and is killed; the runners
   * never send a frame this long (they shrink or refuse it first).
   */
  kernelFrameLineBytes: 64 * 1024 * 1024,
  /**
   * Output held back on stdout or stderr behind a sync marker whose frame has not come yet. Past it
   * the marker is dropped (ordering with that frame is given up, nothing is lost): a kernel cannot
   * make the agent hold its output without bound by writing a marker and never its frame.
   */
  kernelSyncHoldBytes: 8 * 1024 * 1024,
  /**
   * Frames held waiting for their markers on stdout and stderr. A runner writes the markers before
   * the frame, so only a frame or two ever wait; past this (and more than one frame) the first is
   * released as is.
   */
  kernelFrameHoldBytes: 16 * 1024 * 1024,
} as const;
