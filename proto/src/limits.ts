// The limits both ends of a call enforce, in one table: a message size or cap that one side sends
// and the other checks must not differ between them. Each side's own table (the agent's and the
// control plane's LIMITS) spreads this one in, so a key name means one thing everywhere.
export const PROTOCOL_LIMITS = {
  /** Largest gRPC message either side accepts (file contents travel in one message). */
  grpcMaxMessageBytes: 64 * 1024 * 1024,
  /**
   * The most a gRPC status message may take once percent-encoded into its grpc-message trailer (either
   * side's): a trailer past what an HTTP/2 peer takes in one header block is never delivered, and the
   * call waits out its deadline with its connection stuck.
   */
  statusMessageMaxBytes: 8 * 1024,
  /** Structural search: matches returned by default and at most (the tool's cap is the agent's). */
  astDefaultMaxResults: 50,
  astMaxResults: 10_000,
  /** Tool calls in flight at once on one CallTools session (the client library sends more over CallTool). */
  toolSessionCallsInFlight: 64,
  /**
   * Bridge calls (tool() in a cell) one cell may make. Past it each further call fails at once with
   * bridge_limit: the agent answers it itself, without reaching the control plane and without pausing
   * the cell's idle budget (the kernel lives on); the control plane refuses the same calls on its side.
   */
  bridgeCallsPerCell: 1000,
} as const;
