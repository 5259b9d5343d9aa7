// A client for one enclave agent, over a unix socket (the host agent's own, or an enclosure's relay). Unary calls become promises with deadlines;
// the agent's statuses become EnclaveErrors whose messages say where the agent runs and what to do.
import {
  type CallOptions,
  type ChannelOptions,
  type ClientDuplexStream,
  connectivityState,
  credentials,
  type Interceptor,
  InterceptingCall,
  Metadata,
  type ServiceError,
  status,
} from "@grpc/grpc-js";
import {
  type ApplyEditsRequest,
  type ApplyEditsResponse,
  type AstRewriteRequest,
  type AstRewriteResponse,
  type AstSearchRequest,
  type AstSearchResponse,
  AstClient,
} from "@enclave/proto/gen/enclave/agent/v1/ast.js";
import {
  type ApplyPatchRequest,
  type ApplyPatchResponse,
  type EditFileRequest,
  type EditFileResponse,
  FilesClient,
  FilesService,
  type ListDirRequest,
  type ListDirResponse,
  type ReadFileRequest,
  type ReadFileResponse,
  type StatRequest,
  type StatResponse,
  type WriteFileRequest,
  type WriteFileResponse,
} from "@enclave/proto/gen/enclave/agent/v1/files.js";
import {
  AgentInfoClient,
  AgentInfoService,
  type AssignResponse,
  type CheckpointPrepareResponse,
  type DescribeResponse,
  type HealthResponse,
  type SelfAuditResponse,
} from "@enclave/proto/gen/enclave/agent/v1/info.js";
import { type ExecEvent, type ExecRequest, ProcessClient } from "@enclave/proto/gen/enclave/agent/v1/process.js";
import {
  type LspCheckerRequest,
  type LspCheckerResponse,
  LspClient,
  LspService,
  type LspQueryRequest,
  type LspQueryResponse,
  type LspReloadRequest,
  type LspReloadResponse,
  type LspRenameRequest,
  type LspRenameResponse,
  type LspStatusResponse,
  type LspSyncRequest,
  type LspSyncResponse,
} from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import {
  type EvalEvent,
  type EvalRequest,
  KernelsClient,
  KernelsService,
  type ListKernelsResponse,
  type StopKernelRequest,
  type StopKernelResponse,
} from "@enclave/proto/gen/enclave/agent/v1/kernel.js";
import { AgentErrorCode } from "@enclave/proto/gen/enclave/agent/v1/errors.js";
import { trailerErrorCode } from "@enclave/proto/agent-error-trailer.js";
import { EgressClient } from "@enclave/proto/gen/enclave/agent/v1/egress.js";
import { CallMuxClient, CallMuxService } from "@enclave/proto/gen/enclave/agent/v1/mux.js";
import { CallMuxChannel, type MuxMethod, NotForMux } from "./call-mux-client.js";
import { EnclaveError, type EnclaveErrorCode } from "../errors.js";
import { TRACEPARENT_METADATA, trailerSpans } from "@enclave/proto/agent-trace.js";
import { startAgentCallSpan } from "../observability/trace-scope.js";
import { LIMITS } from "../limits.js";

const channelOptions: ChannelOptions = {
  "grpc.max_receive_message_length": LIMITS.grpcMaxMessageBytes,
  "grpc.max_send_message_length": LIMITS.grpcMaxMessageBytes,
  // An agent that restarts comes back within a second: reconnect quickly.
  "grpc.initial_reconnect_backoff_ms": 100,
  "grpc.max_reconnect_backoff_ms": 1000,
  // Nothing reads channelz here; left on, grpc-js keeps per-call statistics and traces on every call.
  "grpc.enable_channelz": 0,
};

/**
 * A traced API call's agent calls (unary and streams alike): a span each, its context sent as the
 * call's traceparent, the agent's spans read from its trailers. The mux's own stream outlives any one
 * call and is not a call of its own: its calls are traced one by one (call-mux-client.ts).
 */
const traceAgentCalls: Interceptor = (options, nextCall) => {
  const path = options.method_definition.path;
  const traced = path === CallMuxService.calls.path ? undefined : startAgentCallSpan(path);
  if (!traced) return new InterceptingCall(nextCall(options));
  return new InterceptingCall(nextCall(options), {
    start(metadata, listener, next) {
      metadata.set(TRACEPARENT_METADATA, traced.traceparent);
      next(metadata, {
        onReceiveStatus(s, nextStatus) {
          traced.end(s.code, trailerSpans(s.metadata));
          nextStatus(s);
        },
      });
    },
  });
};

type Callback<Res> = (err: ServiceError | null, res?: Res) => void;

/** Where the agent runs, for messages: "host placement" or "enclosure abc123". */
export type DescribeWhere = () => string;

export class AgentClient {
  readonly info: AgentInfoClient;
  readonly files: FilesClient;
  readonly process: ProcessClient;
  readonly ast: AstClient;
  readonly lsp: LspClient;
  readonly kernels: KernelsClient;
  /** The egress tunnel (see egress/egress-tunnels.ts): opened only for a conversation with an egress policy. */
  readonly egress: EgressClient;
  private readonly muxClient: CallMuxClient;
  /** Small unary calls go over one long-lived stream (an older agent without it: unary). */
  private readonly mux: CallMuxChannel;

  constructor(
    readonly socketPath: string,
    private readonly where: DescribeWhere,
    /** Releases what carries the connection (an enclosure's exec relay), after the channels close. */
    private readonly onClose: () => void = () => undefined,
  ) {
    const address = `unix://${socketPath}`;
    const creds = credentials.createInsecure();
    this.info = new AgentInfoClient(address, creds, { ...channelOptions, interceptors: [traceAgentCalls] });
    // One channel for every service: the others share the first client's channel.
    const shared = { ...channelOptions, channelOverride: this.info.getChannel(), interceptors: [traceAgentCalls] } as Partial<ChannelOptions>;
    this.files = new FilesClient(address, creds, shared);
    this.process = new ProcessClient(address, creds, shared);
    this.ast = new AstClient(address, creds, shared);
    this.lsp = new LspClient(address, creds, shared);
    this.kernels = new KernelsClient(address, creds, shared);
    // Not traced: the tunnel outlives any one call.
    this.egress = new EgressClient(address, creds, { ...channelOptions, channelOverride: this.info.getChannel() } as Partial<ChannelOptions>);
    this.muxClient = new CallMuxClient(address, creds, shared);
    this.mux = new CallMuxChannel(this.muxClient);
  }

  get connected(): boolean {
    return this.info.getChannel().getConnectivityState(false) === connectivityState.READY;
  }

  close(): void {
    this.mux.close();
    this.muxClient.close();
    this.files.close();
    this.process.close();
    this.ast.close();
    this.lsp.close();
    this.kernels.close();
    this.egress.close();
    this.info.close();
    this.onClose();
  }

  options(timeoutMs: number = LIMITS.agentCallTimeoutMs): Partial<CallOptions> {
    return { deadline: Date.now() + timeoutMs };
  }

  private unary<Res>(start: (cb: Callback<Res>) => void): Promise<Res> {
    return new Promise((resolve, reject) => {
      start((err, res) => {
        if (err) reject(this.translate(err));
        else resolve(res as Res);
      });
    });
  }

  /**
   * A unary call over the call mux, or as a unary call when the agent has no mux (an older agent).
   * An agent that refuses the mux stream ran nothing, so its calls are asked again unary; a request
   * too large to share the stream goes unary too.
   */
  private muxed<Req, Res>(
    method: MuxMethod<Req, Res>,
    req: Req,
    timeoutMs: number,
    start: (cb: Callback<Res>, options: Partial<CallOptions>) => void,
  ): Promise<Res> {
    const unary = (): Promise<Res> => this.unary((cb) => start(cb, this.options(timeoutMs)));
    if (this.mux.unsupported) return unary();
    return this.mux.call(method, req, timeoutMs).catch((err: ServiceError | NotForMux) => {
      if (err instanceof NotForMux) return unary();
      // Only an agent that refused the stream itself (an older one) is asked again: nothing ran there.
      if (this.mux.unsupported && err.code === status.UNIMPLEMENTED && agentErrorCode(err) === undefined) return unary();
      throw this.translate(err);
    });
  }

  /** Health, waiting for the agent to come up (or back) for at most timeoutMs. */
  async health(timeoutMs: number = LIMITS.agentProbeTimeoutMs): Promise<HealthResponse> {
    const deadline = Date.now() + timeoutMs;
    await new Promise<void>((resolve, reject) =>
      this.info.waitForReady(deadline, (err) =>
        err
          ? reject(new EnclaveError("placement_unavailable", `the enclave agent (${this.where()}) did not accept a connection within ${timeoutMs} ms`))
          : resolve(),
      ),
    );
    return this.unary((cb) => this.info.health({}, new Metadata(), { deadline }, cb));
  }

  describe(): Promise<DescribeResponse> {
    return this.muxed(AgentInfoService.describe, {}, LIMITS.agentCallTimeoutMs, (cb, o) => this.info.describe({}, new Metadata(), o, cb));
  }

  /** Tells the agent the conversation it serves (once; it refuses another). */
  assign(conversationId: string): Promise<AssignResponse> {
    return this.unary((cb) => this.info.assign({ conversationId }, new Metadata(), this.options(), cb));
  }

  /** Readies the agent for a checkpoint: its debug sessions end; the TCP connections left are listed. */
  checkpointPrepare(): Promise<CheckpointPrepareResponse> {
    return this.unary((cb) => this.info.checkpointPrepare({}, new Metadata(), this.options(), cb));
  }

  selfAudit(): Promise<SelfAuditResponse> {
    return this.muxed(AgentInfoService.selfAudit, {}, LIMITS.agentCallTimeoutMs, (cb, o) => this.info.selfAudit({}, new Metadata(), o, cb));
  }

  readFile(req: ReadFileRequest): Promise<ReadFileResponse> {
    return this.muxed(FilesService.readFile, req, LIMITS.agentCallTimeoutMs, (cb, o) => this.files.readFile(req, new Metadata(), o, cb));
  }

  writeFile(req: WriteFileRequest): Promise<WriteFileResponse> {
    return this.unary((cb) => this.files.writeFile(req, new Metadata(), this.options(), cb));
  }

  editFile(req: EditFileRequest): Promise<EditFileResponse> {
    return this.unary((cb) => this.files.editFile(req, new Metadata(), this.options(), cb));
  }

  applyPatch(req: ApplyPatchRequest): Promise<ApplyPatchResponse> {
    return this.unary((cb) => this.files.applyPatch(req, new Metadata(), this.options(), cb));
  }

  listDir(req: ListDirRequest): Promise<ListDirResponse> {
    return this.muxed(FilesService.listDir, req, LIMITS.agentCallTimeoutMs, (cb, o) => this.files.listDir(req, new Metadata(), o, cb));
  }

  stat(req: StatRequest): Promise<StatResponse> {
    return this.muxed(FilesService.stat, req, LIMITS.agentCallTimeoutMs, (cb, o) => this.files.stat(req, new Metadata(), o, cb));
  }

  astSearch(req: AstSearchRequest): Promise<AstSearchResponse> {
    return this.unary((cb) => this.ast.search(req, new Metadata(), this.options(LIMITS.astCallTimeoutMs), cb));
  }

  astRewrite(req: AstRewriteRequest): Promise<AstRewriteResponse> {
    return this.unary((cb) => this.ast.rewrite(req, new Metadata(), this.options(LIMITS.astCallTimeoutMs), cb));
  }

  applyEdits(req: ApplyEditsRequest): Promise<ApplyEditsResponse> {
    return this.unary((cb) => this.ast.applyEdits(req, new Metadata(), this.options(), cb));
  }

  exec(timeoutMs: number): ClientDuplexStream<ExecRequest, ExecEvent> {
    return this.process.exec(new Metadata(), { deadline: Date.now() + timeoutMs });
  }

  // The language-server supervisor. Deadlines leave room for a server's start-up.
  lspStatus(): Promise<LspStatusResponse> {
    return this.muxed(LspService.status, {}, LIMITS.agentCallTimeoutMs, (cb, o) => this.lsp.status({}, new Metadata(), o, cb));
  }

  lspReload(req: LspReloadRequest): Promise<LspReloadResponse> {
    return this.muxed(LspService.reload, req, LIMITS.agentCallTimeoutMs, (cb, o) => this.lsp.reload(req, new Metadata(), o, cb));
  }

  lspQuery(req: LspQueryRequest, timeoutMs: number): Promise<LspQueryResponse> {
    return this.muxed(LspService.query, req, timeoutMs + LIMITS.agentCallTimeoutMs, (cb, o) => this.lsp.query(req, new Metadata(), o, cb));
  }

  lspRename(req: LspRenameRequest, timeoutMs: number): Promise<LspRenameResponse> {
    return this.muxed(LspService.rename, req, timeoutMs + LIMITS.agentCallTimeoutMs, (cb, o) => this.lsp.rename(req, new Metadata(), o, cb));
  }

  lspSync(req: LspSyncRequest): Promise<LspSyncResponse> {
    return this.muxed(LspService.sync, req, req.waitMs + LIMITS.agentCallTimeoutMs, (cb, o) => this.lsp.sync(req, new Metadata(), o, cb));
  }

  lspRunChecker(req: LspCheckerRequest): Promise<LspCheckerResponse> {
    return this.muxed(LspService.runChecker, req, req.timeoutMs + LIMITS.agentCallTimeoutMs, (cb, o) => this.lsp.runChecker(req, new Metadata(), o, cb));
  }

  listKernels(): Promise<ListKernelsResponse> {
    return this.muxed(KernelsService.listKernels, {}, LIMITS.agentCallTimeoutMs, (cb, o) => this.kernels.listKernels({}, new Metadata(), o, cb));
  }

  /** Kills one kernel (by id, or a language's); the agent answers NOT_FOUND when none such is alive. */
  stopKernel(req: StopKernelRequest): Promise<StopKernelResponse> {
    return this.muxed(KernelsService.stopKernel, req, LIMITS.agentCallTimeoutMs, (cb, o) => this.kernels.stopKernel(req, new Metadata(), o, cb));
  }

  /** One eval cell. No deadline: the agent keeps the cell's idle budget, and the caller cancels. */
  eval(): ClientDuplexStream<EvalRequest, EvalEvent> {
    return this.kernels.eval(new Metadata());
  }

  /**
   * Maps an agent failure to an EnclaveError by the code the agent sent beside its status (never by
   * its text; the agent's own messages already say what to do). A failure without that code did not
   * come from an agent handler: gRPC itself failed the call (the deadline passed, the connection or
   * the stream broke, a message was too large), and its status says which.
   */
  translate(err: ServiceError): EnclaveError {
    const details = err.details || err.message;
    const sent = agentErrorCode(err);
    const code = sent === undefined ? BY_STATUS[err.code] : FROM_AGENT[sent];
    if (code) return new EnclaveError(code, details);
    if (sent === undefined && err.code === status.DEADLINE_EXCEEDED) {
      return new EnclaveError("timeout", `the enclave agent (${this.where()}) did not answer in time: ${details}`);
    }
    const lost =
      sent === undefined
        ? err.code === status.UNAVAILABLE || err.code === status.CANCELLED || err.code === status.INTERNAL
        : sent === AgentErrorCode.AGENT_ERROR_CODE_STOPPING;
    if (lost) {
      return new EnclaveError(
        "agent_lost",
        `the enclave agent (${this.where()}) went away during the call (${details}); ` +
          `the call may not have completed. The agent is restarted on the next call: check the result and call again.`,
      );
    }
    return new EnclaveError("failed", `the enclave agent (${this.where()}) failed: ${details}`);
  }
}

/** gRPC's own failures that are not the agent's going away (a message over the size limit). */
const BY_STATUS: Partial<Record<status, EnclaveErrorCode>> = {
  [status.RESOURCE_EXHAUSTED]: "too_large",
};

/** The agent's codes as the control plane's; STOPPING (agent_lost) and INTERNAL (failed) are said with where the agent runs. */
const FROM_AGENT: Partial<Record<AgentErrorCode, EnclaveErrorCode>> = {
  [AgentErrorCode.AGENT_ERROR_CODE_INVALID_ARGUMENT]: "invalid_arguments",
  [AgentErrorCode.AGENT_ERROR_CODE_OUTSIDE_WORKSPACE]: "outside_workspace",
  [AgentErrorCode.AGENT_ERROR_CODE_NOT_FOUND]: "not_found",
  [AgentErrorCode.AGENT_ERROR_CODE_ALREADY_EXISTS]: "already_exists",
  [AgentErrorCode.AGENT_ERROR_CODE_FAILED_PRECONDITION]: "failed_precondition",
  [AgentErrorCode.AGENT_ERROR_CODE_TOO_LARGE]: "too_large",
  // Not the agent going away: what the call needs cannot run in this placement.
  [AgentErrorCode.AGENT_ERROR_CODE_UNAVAILABLE]: "placement_unavailable",
  [AgentErrorCode.AGENT_ERROR_CODE_LSP_TIMEOUT]: "lsp_timeout",
  [AgentErrorCode.AGENT_ERROR_CODE_LSP_SERVER_DEAD]: "lsp_server_dead",
  [AgentErrorCode.AGENT_ERROR_CODE_LSP_SERVER_ERROR]: "lsp_server_error",
  [AgentErrorCode.AGENT_ERROR_CODE_LSP_STATE_CHANGED]: "lsp_state_changed",
  [AgentErrorCode.AGENT_ERROR_CODE_LSP_NO_SERVER]: "lsp_no_server",
};

/** The AgentErrorCode an agent handler sent in the call's trailers, or undefined when none did. */
export function agentErrorCode(err: ServiceError): AgentErrorCode | undefined {
  return trailerErrorCode(err.metadata);
}
