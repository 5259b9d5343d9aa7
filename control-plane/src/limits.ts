// The control plane's limits, in one table: tool caps, timeouts, sizes.
import { PROTOCOL_LIMITS } from "@enclave/proto/limits.js";

export const LIMITS = {
  ...PROTOCOL_LIMITS,
  /** Tries at removing a container the engine refuses to remove for a moment (a sandbox still being torn down). */
  containerRemoveAttempts: 5,
  /** The pause before the next try grows by this much each time. */
  containerRemoveRetryMs: 500,
  /** Between looks at the engine while a pause or resume waits for a container or exec to change state. */
  checkpointPollMs: 50,
  /** A pause waits this long for the relays' execs to end once their connections are closed (a live exec makes a restore fail). */
  checkpointExecsEndMs: 5_000,
  /** A pause waits this long for the checkpointed container to be reported stopped. */
  checkpointStopMs: 15_000,
  /** Tries at a restore the engine refused while the container stayed stopped (a transient upload collision). */
  restoreAttempts: 3,
  /** The pause before the next try grows by this much each time. */
  restoreRetryMs: 300,
  /** A resumed enclosure's agent must answer within this long, or the resume is reported failed. */
  resumeAgentMs: 10_000,
  /** A copy back that failed resumes the paused container; the engine can be slow to take the resume
   * while it tears down the archive it was sending (it holds the container until then). */
  containerResumeAttempts: 8,
  containerResumeRetryMs: 250,
  /** Bytes of a file the read tool returns by default (the agent caps at its own maximum). */
  readToolDefaultBytes: 256 * 1024,
  readToolMaxBytes: 4 * 1024 * 1024,
  /** Bytes of command output kept in the exec tool's final result (head and tail); the stream has all. */
  execResultBytes: 64 * 1024,
  execDefaultTimeoutSeconds: 120,
  execMaxTimeoutSeconds: 3600,
  listToolDefaultEntries: 500,
  listToolMaxEntries: 5000,
  /** Largest arguments JSON a tool call may carry. */
  argumentsMaxBytes: 16 * 1024 * 1024,
  /** Deadline of one unary agent call (file operations). */
  agentCallTimeoutMs: 60_000,
  /** How long the host agent or an enclosure's agent gets to answer Health when (re)started. */
  agentReadyTimeoutMs: 30_000,
  /** One readiness attempt; a relay waits this long for the agent's socket before the container is checked again. */
  agentReadyProbeMs: 3_000,
  /** Most warm-pool enclosures kept per profile (ENCLAVE_WARM_POOL_SIZE is checked against it). */
  warmPoolMaxSize: 64,
  /** Host agents kept started ahead of any conversation, at most. */
  hostSparesMax: 16,
  /** The host uids reserved for host sandboxes, one per conversation (ENCLAVE_HOST_UID_BASE/COUNT): above
   * the ranges systemd, Docker and subuid files hand out, below 2^31. */
  hostUidBaseDefault: 1_900_000_000,
  hostUidCountDefault: 65_536,
  /** The host uids reserved for enclosures (ENCLAVE_ENCLOSURE_UID_BASE/COUNT): right after the host sandboxes' range. */
  enclosureUidBaseDefault: 1_900_065_536,
  enclosureUidCountDefault: 65_536,
  /** Each host sandbox's cgroup by default (ENCLAVE_HOST_PIDS, ENCLAVE_HOST_MEMORY_BYTES, ENCLAVE_HOST_CPU_SHARES): as an enclosure's. */
  hostSandboxPidsDefault: 512,
  hostSandboxMemoryBytesDefault: 2 * 1024 ** 3,
  hostSandboxCpuSharesDefault: 1024,
  /**
   * Each sandbox's own /dev/shm (POSIX semaphores and shared memory: multiprocessing's locks, queues
   * and shared_memory), host sandbox and enclosure alike: a tmpfs of this size that no other sandbox
   * sees; what is written there is also charged to the sandbox's memory limit. Above the engine's
   * default of 64 MiB, which data loaders' shared batches outgrow.
   */
  sandboxShmBytes: 256 * 1024 ** 2,
  /**
   * Each sandbox's private /tmp and home, host sandbox and enclosure alike: tmpfs of these sizes
   * (writes past them fail with ENOSPC), so one conversation cannot fill the host's memory through them.
   */
  sandboxTmpBytes: 512 * 1024 ** 2,
  sandboxHomeBytes: 256 * 1024 ** 2,
  /** After a pool enclosure failed to start, the next try waits this long (doubling up to the max). */
  warmPoolRetryMs: 2_000,
  warmPoolRetryMaxMs: 60_000,
  /** A line an enclosure's relay writes to its stderr is logged at most this long (it is the enclosure's text). */
  relayLogLineChars: 500,
  /** What one enclosure relay's standard error may put in the control plane's log; the rest is dropped. */
  relayLogMaxBytes: 64 * 1024,
  /** A host agent's log file (its standard error) per conversation: past it the file is rotated once at the next start, and the agent's further output dropped. */
  hostAgentLogMaxBytes: 16 * 1024 * 1024,
  /** How long a host agent gets to stop its kernels and servers once its lifeline closes. */
  hostAgentStopGraceMs: 3_000,
  /** How long the gRPC server waits for calls in flight when closing before it cuts them. */
  serverShutdownGraceMs: 3_000,
  /** On SIGTERM, how long calls already in flight may run on (new ones are refused as draining) before they are cut. */
  drainMaxMs: 30_000,
  /**
   * What a copy-mode stop brings back from the enclosure's /workspace at most: bytes of file content
   * written (blocks of zeros stay holes and are not counted; ENCLAVE_COPY_BACK_MAX_BYTES overrides),
   * bytes as the archive states them (a sparse file in full: its zeros still stream through, so
   * this bounds how long a stop takes) and entries. Past any, nothing is copied back, the stop says
   * so, and the enclosure is removed all the same.
   */
  copyBackMaxBytes: 16 * 1024 ** 3,
  copyBackMaxApparentBytes: 32 * 1024 ** 3,
  copyBackMaxEntries: 1_000_000,
  /** Lines of "not copied back" a stop reports (the rest are counted). */
  notCopiedBackListed: 200,
  /** Deadline of the Health probe made before a call when the channel is not connected. */
  agentProbeTimeoutMs: 10_000,
  /** The Docker events stream is re-subscribed after a failure, waiting from the first to the last, doubling. */
  /** How long a remote engine may take to answer an inspect or info before it counts as gone. */
  engineAnswerTimeoutMs: 10_000,
  deathWatchRetryFirstMs: 250,
  deathWatchRetryMaxMs: 30_000,
  /** Calls on one agent call stream that may be past their deadline and still unanswered; past it the stream is replaced. */
  muxAbandonedCallsMax: 1000,
  /** Larger requests (a big lsp argument) go unary rather than hold every call on the stream behind them. */
  muxMaxRequestBytes: 1024 * 1024,
  /** Streamed output one exec or eval call takes from its agent: above every agent cap, so only an agent that is not ours reaches it. */
  agentStreamedOutputMaxBytes: 64 * 1024 * 1024,
  /** An agent's error text kept on a muxed call's failure. */
  muxErrorMessageChars: 4096,
  /**
   * ListConversations answers a page at a time: this many without a page_size, at most the maximum
   * (a reply of every conversation of thousands would pass gRPC's 4 MiB default message limit).
   */
  listConversationsDefaultPage: 100,
  listConversationsMaxPage: 1000,
  /** Conversations the console's overview table shows, the newest (it is rendered again on every refresh). */
  consoleOverviewRows: 500,
  /** Most audit events one history request returns (the database keeps what its retention allows). */
  auditHistoryEvents: 10_000,
  /** SubscribeAudit reads its history this many events at a time, as its reader takes them. */
  auditReplayPageEvents: 200,
  /** Audit retention by default: events younger than this many days, within this many MiB; pruned at start and then this often. */
  auditRetentionDefaultDays: 90,
  auditMaxDefaultMib: 1024,
  /** What one tenant's events may hold by default (its oldest go past it, at the next pruning). */
  auditMaxPerTenantDefaultMib: 256,
  auditPruneIntervalMs: 60 * 60_000,
  /** How long a tool call's audit event may wait in the journal for its group commit into the database (more calls share one transaction). */
  auditFlushDelayMs: 20,
  /** The audit journal (events written before their group commit) is emptied after a commit once it holds this much. */
  auditJournalClearBytes: 1024 * 1024,
  /** Events in the journal that the database has not taken (it is failing); past this nothing more is recorded and calls are refused. */
  auditUnflushedEventsMax: 10_000,
  /** Question port: how long a card waits by default (ENCLAVE_QUESTION_TIMEOUT_SECONDS) and at most. */
  questionDefaultTimeoutSeconds: 600,
  questionMaxTimeoutSeconds: 24 * 3600,
  questionMaxOptions: 20,
  questionTextMaxChars: 4000,
  /** Free text an answerer may write. */
  answerFreeTextMaxChars: 16 * 1024,
  /**
   * Arguments shown in a permission card's context, and the preview in its arguments_json (both
   * say when they are cut); the complete arguments come in pages of at most cardArgumentsPageChars.
   */
  permissionContextChars: 2000,
  permissionArgumentsChars: 64 * 1024,
  cardArgumentsPageChars: 1024 * 1024,
  /** Closed cards kept per conversation for ListCards. */
  closedCardsKept: 200,
  /** Vibe workers: live ones per conversation, kept ones (oldest settled dropped), their bounded logs. */
  vibeMaxLiveWorkers: 8,
  vibeMaxKeptWorkers: 100,
  vibeResultChars: 32 * 1024,
  vibeOutputTailChars: 4 * 1024,
  /** The longest timeout_seconds vibe_wait takes (without one it waits until the worker settles). */
  vibeWaitMaxSeconds: 3600,
  /** A built-in worker runs at most this long (ENCLAVE_VIBE_TIMEOUT_SECONDS) before it is killed. */
  vibeWorkerDefaultTimeoutSeconds: 3600,
  /** Grace between SIGTERM and SIGKILL when a worker's process group is killed. */
  vibeKillGraceMs: 2_000,
  /** Deadline of a structural search or rewrite over a folder (parsing a large tree takes a while). */
  astCallTimeoutMs: 10 * 60_000,
  /** Characters of unified diff an ast_edit result shows (the staged change itself is complete). */
  astToolPreviewChars: 20_000,
  /**
   * Staged changes one run may hold unresolved, and the bytes they may keep (ast_edit's new contents,
   * labels and details, as the state database stores them), in one run and across a tenant's runs: each
   * is held in memory and written to the state database, so a tenant that stages over and over without
   * resolving is refused past these.
   */
  pendingActionsPerRunMax: 64,
  pendingBytesPerRunMax: 64 * 1024 * 1024,
  pendingBytesPerTenantMax: 128 * 1024 * 1024,
  /** lsp: caps on what one answer lists, and the deadline of one server request. */
  lspReferencesCap: 50,
  lspWorkspaceSymbolsCap: 100,
  lspDocumentSymbolsCap: 200,
  lspCodeActionsCap: 30,
  lspDiagnosticsCap: 100,
  lspHoverChars: 4_000,
  lspCallTimeoutMs: 30_000,
  lspCheckerTimeoutMs: 180_000,
  lspCheckerResultBytes: 64 * 1024,
  /** How long write/edit/apply_patch wait for fresh diagnostics (ENCLAVE_LSP_DIAGNOSTICS_WAIT_MS overrides). */
  lspWriteDiagnosticsWaitMs: 4_000,
  /** Files one SyncWrites call may name. */
  syncWritesMaxPaths: 200,
  /** debug: frames a stack shows, children a variables call shows, characters of one value. */
  debugStackFrames: 30,
  debugVariables: 50,
  debugValueChars: 400,
  /** Longest stdin text a launch takes (the agent caps it at 8 MiB of UTF-8). */
  debugStdinChars: 8 * 1024 * 1024,
  /** How long continue and the steps wait for the next stop when the call gives no wait_seconds. */
  debugStopWaitSeconds: 60,
  /** Deadline of a debug call; launch, attach, continue and the steps wait for the program to stop. */
  debugCallTimeoutMs: 60_000,
  debugLaunchCallTimeoutMs: 240_000,
  /** An eval cell's idle budget (suspended while its bridge calls run), by default and at most. */
  evalDefaultTimeoutSeconds: 300,
  evalMaxTimeoutSeconds: 6 * 60 * 60,
  /** Text of one cell kept in the eval result (head and tail); images kept per cell. */
  evalResultTextBytes: 64 * 1024,
  evalMaxImages: 20,
  /** Bytes of display bundles (as sent: text, or images in base64) one eval result's details keep; bundles past it are left out and counted. */
  evalDetailsOutputsMaxBytes: 4 * 1024 * 1024,
  /**
   * A harness tool host: how long a cell's call to a harness tool waits for its answer, and how long
   * an intercepted call waits for the harness's verdict (then it is refused: interception fails
   * closed). Both are cancelled on the stream when they run out.
   */
  toolHostCallTimeoutMs: 10 * 60_000,
  toolHostInterceptTimeoutMs: 60_000,
  /** Tools one tool host may declare, and the size of one tool's JSON Schema and description. */
  toolHostMaxTools: 128,
  toolHostSchemaMaxBytes: 64 * 1024,
  toolHostDescriptionMaxChars: 4 * 1024,
  /**
   * A run the command line keeps for a (conversation, surface) closes after this long with no call
   * (ENCLAVE_CLI_RUN_IDLE_SECONDS overrides); its staged changes go with it. Checked this often at most.
   */
  cliRunIdleSeconds: 30 * 60,
  cliRunSweepMaxMs: 60_000,
  /**
   * A workspace's devcontainer.json (read by the control plane as data), the build context sent to
   * the engine for its Dockerfile, remoteEnv entries and one value's size, and its postCreateCommand:
   * how long it may run inside the enclosure and how much of its output an error quotes.
   */
  devcontainerConfigBytes: 256 * 1024,
  devcontainerContextBytes: 512 * 1024 ** 2,
  devcontainerEnvEntries: 200,
  devcontainerEnvValueChars: 32 * 1024,
  devcontainerPostCreateTimeoutMs: 10 * 60_000,
  devcontainerPostCreateOutputChars: 4 * 1024,
  /** A dev container's Dockerfile build, and the Node image's (an ADD of one tarball), at most. */
  devcontainerBuildTimeoutMs: 30 * 60_000,
  /** Processes one dev container build's RUN steps may hold at once (its cgroup's pids.max). */
  devcontainerBuildPids: 512,
  nodeImageBuildTimeoutMs: 5 * 60_000,
  /** How long a start waits for another control plane's fill of the shared Node volume, and how often it looks. */
  nodeVolumeFillWaitMs: 120_000,
  nodeVolumeFillPollMs: 500,
  /** Destinations one egress policy (a conversation's, or a tenant's operator maximum) may list. */
  egressMaxDestinations: 64,
  /** Ports one egress destination may list. */
  egressMaxPorts: 32,
  /** Egress proxy connections open at once for one conversation, and for one tenant's conversations together. */
  egressConnectionsPerConversation: 32,
  egressConnectionsPerTenant: 128,
  /** Bytes one egress connection may carry, both ways together; past it the connection is cut. */
  egressMaxBytesPerConnection: 4 * 1024 ** 3,
  /** An egress connection with no byte either way for this long is closed (and one whose request head does not arrive). */
  egressIdleMs: 120_000,
  /** The most a proxy request's head (request line and headers) may be. */
  egressHeadMaxBytes: 16 * 1024,
  /** How long the proxy waits for its upstream to accept a connection. */
  egressConnectTimeoutMs: 10_000,
  /** The most a tunnel's TLS ClientHello may be (it may come in many records and segments); past it the tunnel is refused. */
  egressHelloMaxBytes: 64 * 1024,
  /**
   * Egress name lookups in flight at once, every tenant's together, one per tenant: the system
   * resolver runs on Node's four shared worker threads (file work's too) and a lookup cannot be
   * cancelled, so a tenant with slow names must not hold them all. Waiting lookups are served a
   * tenant at a time, at most this many per tenant and this long each (then `resolver_busy`).
   */
  egressLookupsInFlight: 2,
  egressLookupsQueuedPerTenant: 16,
  egressLookupWaitMs: 10_000,
  /** How often open egress connections are checked again against the policy and maximum now (a narrowing cuts them). */
  egressRecheckMs: 1_000,
  /** Refused or failed egress requests recorded per conversation per second; the rest are counted into the next record. */
  egressRefusalsAuditedPerSecond: 10,
  /**
   * A tenant's quotas when its entry in the token file sets none: enclosures running (or starting)
   * at once, tool calls in flight at once, and kernels alive across its conversations. The implicit
   * tenant of a control plane without tokens has none.
   */
  tenantRunningEnclosures: 4,
  tenantConcurrentCalls: 16,
  tenantKernels: 8,
  /** Host agents running at once across a tenant's conversations, when its entry sets none. */
  tenantHostAgents: 8,
  /**
   * The most one enclosure of a tenant may ask for when its entry sets no maximum (memory, pids,
   * CPUs, copy mode's disk); a request above is refused. The enclosure defaults fit under them.
   */
  tenantMaxMemoryBytes: 4 * 1024 ** 3,
  tenantMaxPids: 1024,
  tenantMaxCpus: 2,
  tenantMaxDiskBytes: 16 * 1024 ** 3,
  /**
   * A conversation's placement is put to sleep after this long with nothing going on (no call in
   * flight, no cell running, no debug session stopped at a breakpoint, no open card) by default
   * (ENCLAVE_IDLE_TIMEOUT_SECONDS). Kernels are persistent in the product's terms, and sleeping under
   * runc or on the host loses them: an hour keeps a working session's kernels across a pause for
   * thought or a meeting, and still frees what a conversation left alone holds (see docs/concepts/lifecycle.md).
   */
  idleTimeoutSecondsDefault: 60 * 60,
  /** A placement is put to sleep this long after it started or woke, busy or not, by default (ENCLAVE_MAX_LIFETIME_SECONDS). */
  maxLifetimeSecondsDefault: 24 * 60 * 60,
  /** The most a tenant may set a conversation's idle timeout and lifetime to, unless its token-file entry says otherwise (maxIdleSeconds, maxLifetimeSeconds). */
  tenantMaxIdleSeconds: 24 * 60 * 60,
  tenantMaxLifetimeSeconds: 7 * 24 * 60 * 60,
  /** The idle sweeper looks at every conversation this often (ENCLAVE_LIFECYCLE_SWEEP_MS): a pass reads memory only, and asks an agent only of a conversation already idle past its timeout. */
  lifecycleSweepMs: 1_000,
  /** Conversations being put to sleep at once by the sweeper; the others wait for the next pass. */
  lifecycleSleepsAtOnce: 8,
  /** How long the sweeper waits for an agent to say whether a cell runs or a debug session is stopped before it counts it as not busy. */
  lifecycleProbeTimeoutMs: 5_000,
  /** What an operator may write as the reason of a tenant's pause (kept in the audit log). */
  pauseReasonMaxChars: 1000,
  /** The token file is checked this often besides its watch, so a revocation holds within a second. */
  tokenFilePollMs: 250,
  /** Tokens and tenants one token file may hold, and the longest tenant name. */
  tokenFileMaxTokens: 10_000,
  tenantNameMaxChars: 64,
  /**
   * Health Watch streams open at once, server-wide. Watch answers without a token (Kubernetes' probes
   * and load balancers ask before they hold one), so a stranger could otherwise hold streams without
   * bound; probes use Check, which is unbounded since it answers at once.
   */
  healthWatchStreamsMax: 64,
  /** Calls refused for want of a valid token are audited at most once this often (with a count of the rest). */
  refusedCallAuditIntervalMs: 100,
  /** Events a CallTools session holds for a client that is not reading them; past this the session is reset and its calls cancelled. */
  toolSessionUnreadEventsMax: 1024,
  /** Log lines waiting for standard error (a reader that stopped reading): past this they are dropped, the audit log keeps the record. */
  logBufferMaxBytes: 16 * 1024 * 1024,
  /** How long a log line to standard error may wait to go out with the next ones (one write for many). */
  logBatchMs: 20,
  /** A batch of log lines this large goes out at once. */
  logBatchMaxBytes: 64 * 1024,
  /**
   * Streams the control plane writes to, by kind: bytes written to one and not yet taken by its
   * reader; past this the reader is cut off (a final event or status with code slow_reader) and
   * nothing more is queued for it. Tool sessions and tool hosts carry whole results and arguments (a
   * read of 4 MiB, arguments of 16 MiB), several at once. A cut console stream whose socket still
   * holds its bytes after the grace is destroyed.
   */
  streamBufferedBytes: {
    console_events: 4 * 1024 ** 2,
    subscribe_audit: 4 * 1024 ** 2,
    subscribe_cards: 4 * 1024 ** 2,
    tool_session: 32 * 1024 ** 2,
    worker_host: 4 * 1024 ** 2,
    tool_host: 32 * 1024 ** 2,
  },
  streamCutGraceMs: 2_000,
  /** Streams of each kind one tenant may hold open at once; past it a new one is refused with quota_exceeded. */
  tenantStreams: { console_events: 8, subscribe_audit: 16, subscribe_cards: 16, tool_session: 32, worker_host: 16, tool_host: 32 },
  /**
   * A tool call's arguments JSON, checked by one pass over its text before it is parsed: nesting
   * depth, and object keys plus array elements in all (a flood of tiny keys costs the event loop far
   * more than their bytes suggest).
   */
  argumentsMaxDepth: 64,
  argumentsMaxItems: 100_000,
  /** The most of a caller's string an error message quotes (the rest is cut, its length said). */
  errorQuoteMaxChars: 200,
} as const;
