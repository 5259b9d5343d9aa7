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
  /** lsp: caps on what one answer lists, and the deadline of one server request. */
  lspReferencesCap: 50,
  lspWorkspaceSymbolsCap: 100,
  lspDocumentSymbolsCap: 200,
  lspCodeActionsCap: 30,
  lspDiagnosticsCap: 100,
  lspHoverChars: 4_000,
  lspRequestTimeoutMs: 30_000,
  lspCheckerTimeoutMs: 180_000,
  lspCheckerResultBytes: 64 * 1024,
  /** How long write/edit/apply_patch wait for fresh diagnostics (ENCLAVE_LSP_DIAGNOSTICS_WAIT_MS overrides). */
  lspWriteDiagnosticsWaitMs: 4_000,
} as const;
