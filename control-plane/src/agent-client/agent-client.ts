// A client for one enclave agent, over a unix socket (the host agent's own, or an enclosure's relay). Unary calls become promises with deadlines;
// the agent's statuses become EnclaveErrors whose messages say where the agent runs and what to do.
import {
  type CallOptions,
  type ChannelOptions,
  type ClientDuplexStream,
  connectivityState,
  credentials,
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
} from "../../../proto/gen/enclave/agent/v1/ast.js";
import {
  type ApplyPatchRequest,
  type ApplyPatchResponse,
  type EditFileRequest,
  type EditFileResponse,
  FilesClient,
  type ListDirRequest,
  type ListDirResponse,
  type ReadFileRequest,
  type ReadFileResponse,
  type StatRequest,
  type StatResponse,
  type WriteFileRequest,
  type WriteFileResponse,
} from "../../../proto/gen/enclave/agent/v1/files.js";
import { AgentInfoClient, type DescribeResponse, type HealthResponse, type SelfAuditResponse } from "../../../proto/gen/enclave/agent/v1/info.js";
import { type ExecEvent, type ExecRequest, ProcessClient } from "../../../proto/gen/enclave/agent/v1/process.js";
import {
  type LspCheckerRequest,
  type LspCheckerResponse,
  LspClient,
  type LspQueryRequest,
  type LspQueryResponse,
  type LspReloadRequest,
  type LspReloadResponse,
  type LspRenameRequest,
  type LspRenameResponse,
  type LspStatusResponse,
  type LspSyncRequest,
  type LspSyncResponse,
} from "../../../proto/gen/enclave/agent/v1/lsp.js";
import { type EvalEvent, type EvalRequest, KernelsClient, type ListKernelsResponse } from "../../../proto/gen/enclave/agent/v1/kernel.js";
import { EnclaveError, type EnclaveErrorCode } from "../errors.js";
import { LIMITS } from "../limits.js";

const channelOptions: ChannelOptions = {
  "grpc.max_receive_message_length": LIMITS.grpcMaxMessageBytes,
  "grpc.max_send_message_length": LIMITS.grpcMaxMessageBytes,
  // An agent that restarts comes back within a second: reconnect quickly.
  "grpc.initial_reconnect_backoff_ms": 100,
  "grpc.max_reconnect_backoff_ms": 1000,
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

  constructor(
    readonly socketPath: string,
    private readonly where: DescribeWhere,
    /** Releases what carries the connection (an enclosure's exec relay), after the channels close. */
    private readonly onClose: () => void = () => undefined,
  ) {
    const address = `unix://${socketPath}`;
    const creds = credentials.createInsecure();
    this.info = new AgentInfoClient(address, creds, channelOptions);
    // One channel for every service: the others share the first client's channel.
    const shared = { ...channelOptions, channelOverride: this.info.getChannel() } as Partial<ChannelOptions>;
    this.files = new FilesClient(address, creds, shared);
    this.process = new ProcessClient(address, creds, shared);
    this.ast = new AstClient(address, creds, shared);
    this.lsp = new LspClient(address, creds, shared);
    this.kernels = new KernelsClient(address, creds, shared);
  }

  get connected(): boolean {
    return this.info.getChannel().getConnectivityState(false) === connectivityState.READY;
  }

  close(): void {
    this.files.close();
    this.process.close();
    this.ast.close();
    this.lsp.close();
    this.kernels.close();
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
    return this.unary((cb) => this.info.describe({}, new Metadata(), this.options(), cb));
  }

  selfAudit(): Promise<SelfAuditResponse> {
    return this.unary((cb) => this.info.selfAudit({}, new Metadata(), this.options(), cb));
  }

  readFile(req: ReadFileRequest): Promise<ReadFileResponse> {
    return this.unary((cb) => this.files.readFile(req, new Metadata(), this.options(), cb));
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
    return this.unary((cb) => this.files.listDir(req, new Metadata(), this.options(), cb));
  }

  stat(req: StatRequest): Promise<StatResponse> {
    return this.unary((cb) => this.files.stat(req, new Metadata(), this.options(), cb));
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
    return this.unary((cb) => this.lsp.status({}, new Metadata(), this.options(), cb));
  }

  lspReload(req: LspReloadRequest): Promise<LspReloadResponse> {
    return this.unary((cb) => this.lsp.reload(req, new Metadata(), this.options(), cb));
  }

  lspQuery(req: LspQueryRequest, timeoutMs: number): Promise<LspQueryResponse> {
    return this.unary((cb) => this.lsp.query(req, new Metadata(), this.options(timeoutMs + LIMITS.agentCallTimeoutMs), cb));
  }

  lspRename(req: LspRenameRequest, timeoutMs: number): Promise<LspRenameResponse> {
    return this.unary((cb) => this.lsp.rename(req, new Metadata(), this.options(timeoutMs + LIMITS.agentCallTimeoutMs), cb));
  }

  lspSync(req: LspSyncRequest): Promise<LspSyncResponse> {
    return this.unary((cb) => this.lsp.sync(req, new Metadata(), this.options(req.waitMs + LIMITS.agentCallTimeoutMs), cb));
  }

  lspRunChecker(req: LspCheckerRequest): Promise<LspCheckerResponse> {
    return this.unary((cb) => this.lsp.runChecker(req, new Metadata(), this.options(req.timeoutMs + LIMITS.agentCallTimeoutMs), cb));
  }

  listKernels(): Promise<ListKernelsResponse> {
    return this.unary((cb) => this.kernels.listKernels({}, new Metadata(), this.options(), cb));
  }

  /** One eval cell. No deadline: the agent keeps the cell's idle budget, and the caller cancels. */
  eval(): ClientDuplexStream<EvalRequest, EvalEvent> {
    return this.kernels.eval(new Metadata());
  }

  /** Maps an agent status to an EnclaveError; the agent's own messages already say what to do. */
  translate(err: ServiceError): EnclaveError {
    const details = err.details || err.message;
    const byStatus: Partial<Record<status, EnclaveErrorCode>> = {
      [status.INVALID_ARGUMENT]: "invalid_arguments",
      [status.PERMISSION_DENIED]: "outside_workspace",
      [status.NOT_FOUND]: "not_found",
      [status.ALREADY_EXISTS]: "already_exists",
      [status.FAILED_PRECONDITION]: "failed_precondition",
      [status.RESOURCE_EXHAUSTED]: "too_large",
    };
    const code = byStatus[err.code];
    if (code) return new EnclaveError(code, details);
    if (err.code === status.DEADLINE_EXCEEDED) {
      return new EnclaveError("timeout", `the enclave agent (${this.where()}) did not answer in time: ${details}`);
    }
    if (err.code === status.UNAVAILABLE || err.code === status.CANCELLED || err.code === status.INTERNAL && /connection|stream|RST_STREAM/i.test(details)) {
      return new EnclaveError(
        "agent_lost",
        `the enclave agent (${this.where()}) went away during the call (${details}); ` +
          `the call may not have completed. The agent is restarted on the next call: check the result and call again.`,
      );
    }
    return new EnclaveError("failed", `the enclave agent (${this.where()}) failed: ${details}`);
  }
}
