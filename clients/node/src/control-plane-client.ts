// A promise-based client of the control-plane API, for the CLI, the tests and harnesses in Node.
// Harnesses import it as `enclave/client` (see index.ts): every RPC, streams as callbacks or as async
// iterables, cancellation with an AbortSignal, TLS and a bearer token.
import {
  type ChannelCredentials,
  type ChannelOptions,
  type ClientReadableStream,
  type ClientUnaryCall,
  credentials,
  Metadata,
  type ServiceError,
  status,
} from "@grpc/grpc-js";
import {
  type AuditEvent,
  type CallInFlight,
  type Card,
  CardAnswer,
  type CardArguments,
  type CardEvent,
  ControlPlaneClient as GrpcClient,
  type Conversation,
  EgressDestination,
  type EnclosureAudit,
  EnclosureOptions,
  type ListConversationsResponse,
  type ListToolsResponse,
  type SyncWritesResponse,
  type PlacementDescription,
  type Run,
  type StopKernelResponse,
  type TenantPauseState,
  type ToolCallError,
  type ToolEvent,
  type ToolResult,
  type WorkerHostCommand,
  WorkerHostHello,
  type WorkerHostMessage,
} from "@enclave/proto/gen/enclave/control/v1/control.js";
import { type EnclaveErrorCode, ERROR_CODE_TRAILER, isEnclaveErrorCode } from "@enclave/proto/control-errors.js";
import { PROTOCOL_LIMITS } from "@enclave/proto/limits.js";
import { DEFAULT_RETRY_POLICY, type RetryPolicy, retryable, retryDelayMs } from "./retry.js";
import type { ApprovalPolicy, Surface } from "./run-options.js";
import type { CallOptions, CallToolOptions } from "./call-options.js";
import { ToolCallSessions } from "./tool-call-session.js";
import { type ToolCallResult, withDetails } from "./tool-result.js";
// Where callers have always imported them from.
export { resultText, type ToolCallResult, withDetails } from "./tool-result.js";
export type { CallOptions, CallToolOptions } from "./call-options.js";
import { runTools, type RunTools } from "./run-tools.js";
import { type HarnessToolSpec, runToolHost, type ToolHostConnection, type ToolHostHandlers } from "./tool-host-client.js";

export type { HarnessAnswer, HarnessCallInfo, HarnessToolSpec, HarnessVerdict, ToolHostConnection, ToolHostHandlers } from "./tool-host-client.js";

type Callback<Res> = (err: ServiceError | null, res?: Res) => void;

/**
 * How the client reaches the control plane: TLS credentials (a control plane serving TLS, perhaps
 * requiring a client certificate) and the tenant's bearer token, sent as `authorization: Bearer` on
 * every call and stream. Neither is needed for a control plane without tokens on loopback.
 */
export interface ClientOptions {
  /** true: TLS with the system's roots; an object: the roots to trust and a client certificate. */
  tls?:
    | boolean
    | { rootCerts?: Buffer | undefined; privateKey?: Buffer | undefined; certChain?: Buffer | undefined; serverNameOverride?: string | undefined }
    | undefined;
  /** Sent as `authorization: Bearer TOKEN` with every call. */
  token?: string | undefined;
  /** Further grpc-js channel options. */
  channelOptions?: ChannelOptions | undefined;
  /**
   * Tool calls share one CallTools stream (opened when first needed, again after it broke), which
   * saves most of a fast call's cost; false: each call is a CallTool stream of its own.
   */
  toolCallSession?: boolean | undefined;
  /**
   * Calls that are safe to repeat (reads, lists, status) are retried while the control plane is
   * draining or unreachable; tool calls never are. false: no retry.
   */
  retry?: Partial<RetryPolicy> | false | undefined;
}

/** Options of openRun. */
/** A conversation's idle timeout and maximum lifetime, in seconds; 0 or absent for the server's defaults. */
export interface LifecycleOptions {
  idleTimeoutSeconds?: number;
  maxLifetimeSeconds?: number;
}

export interface OpenRunOptions extends CallOptions {
  surface?: Surface | undefined;
  resources?: string[] | undefined;
  /** Defaults to `write`; a headless harness passes `never`. */
  approvalPolicy?: ApprovalPolicy | undefined;
  targetSpace?: string | undefined;
  vibeMode?: boolean | undefined;
  questionTimeoutSeconds?: number | undefined;
  /**
   * While a change is staged, refuse every tool but `resolve` (reads too) with `failed_precondition`.
   * By default reads and staging tools still run; for a harness that cannot force its model's next tool.
   */
  strictResolve?: boolean | undefined;
}

/** Options of attachCliRun. */
export interface AttachCliRunOptions extends CallOptions {
  surface?: Surface | undefined;
  approvalPolicy?: ApprovalPolicy | undefined;
  vibeMode?: boolean | undefined;
  newRun?: boolean | undefined;
}

/** Options of the audit stream. */
export interface AuditOptions {
  conversationId?: string | undefined;
  includeHistory?: boolean | undefined;
  historyOnly?: boolean | undefined;
}

/** The error a cancelled call rejects with: name "AbortError", the signal's reason as its cause. */
export function abortError(signal: AbortSignal): Error {
  return Object.assign(new Error("the call was cancelled", { cause: signal.reason as unknown }), { name: "AbortError" });
}

function channelCredentials(tls: ClientOptions["tls"]): ChannelCredentials {
  if (!tls) return credentials.createInsecure();
  if (tls === true) return credentials.createSsl();
  return credentials.createSsl(tls.rootCerts ?? null, tls.privateKey ?? null, tls.certChain ?? null);
}

export class ControlPlaneUnreachable extends Error {
  constructor(address: string, cause: string) {
    super(`no Enclave control plane answers at ${address} (${cause}); start one with \`make run\` or \`enclave serve\`, or pass --address`);
    this.name = "ControlPlaneUnreachable";
  }
}

/**
 * A call the control plane answered with a failure: its gRPC status and its stable code are kept, so
 * callers branch on them (`grpcCode === status.NOT_FOUND`, `code === "not_found"`), never on the text.
 */
export class ControlPlaneCallError extends Error {
  constructor(
    readonly grpcCode: status,
    readonly code: EnclaveErrorCode | undefined,
    message: string,
  ) {
    super(message);
    this.name = "ControlPlaneCallError";
  }
}

/** The gRPC failure behind a ControlPlaneCallError or ControlPlaneUnreachable, for the retry's decision. */
const failures = new WeakMap<Error, ServiceError>();

/** Waits ms, or rejects with an AbortError when the signal aborts first. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortError(signal as AbortSignal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The control plane's code sent with a failure, or undefined when gRPC itself failed the call. */
function sentCode(err: ServiceError): EnclaveErrorCode | undefined {
  const [raw] = err.metadata?.get(ERROR_CODE_TRAILER) ?? [];
  return typeof raw === "string" && isEnclaveErrorCode(raw) ? raw : undefined;
}

/**
 * A failed call as an Error: unreachable when gRPC found no control plane to answer (UNAVAILABLE with
 * no code from a control plane), else the status and code kept.
 */
function callError(address: string, err: ServiceError): Error {
  const code = sentCode(err);
  if (err.code === status.UNAVAILABLE && code === undefined) return new ControlPlaneUnreachable(address, err.details);
  return new ControlPlaneCallError(err.code, code, err.details || err.message);
}

/** A CallTools error event as the error the same failure of CallTool gives. */
function callEventError(address: string, e: ToolCallError): Error {
  const metadata = new Metadata();
  metadata.set(ERROR_CODE_TRAILER, e.code);
  return callError(address, Object.assign(new Error(e.message), { code: e.grpcCode as status, details: e.message, metadata }));
}

export class ControlPlaneClient {
  private readonly grpc: GrpcClient;
  private readonly token: string;
  private readonly sessions: ToolCallSessions | undefined;
  private readonly retry: RetryPolicy;

  constructor(
    readonly address: string,
    options: ClientOptions = {},
  ) {
    const tls = options.tls;
    const override =
      typeof tls === "object" && tls.serverNameOverride
        ? { "grpc.ssl_target_name_override": tls.serverNameOverride, "grpc.default_authority": tls.serverNameOverride }
        : {};
    this.grpc = new GrpcClient(address, channelCredentials(tls), {
      "grpc.max_receive_message_length": PROTOCOL_LIMITS.grpcMaxMessageBytes,
      "grpc.max_send_message_length": PROTOCOL_LIMITS.grpcMaxMessageBytes,
      ...override,
      ...options.channelOptions,
    });
    this.token = options.token ?? "";
    const retry = options.retry === false ? { attempts: 1 } : (options.retry ?? {});
    this.retry = {
      attempts: retry.attempts ?? DEFAULT_RETRY_POLICY.attempts,
      initialDelayMs: retry.initialDelayMs ?? DEFAULT_RETRY_POLICY.initialDelayMs,
      maxDelayMs: retry.maxDelayMs ?? DEFAULT_RETRY_POLICY.maxDelayMs,
    };
    this.sessions =
      options.toolCallSession === false
        ? undefined
        : new ToolCallSessions(
            () => this.grpc.callTools(this.metadata()),
            (e) => callEventError(this.address, e),
            (err) => this.streamError(err),
          );
  }

  /** Closes the connection; tool calls still in flight on the session are cancelled on the server. */
  close(): void {
    this.sessions?.close();
    this.grpc.close();
  }

  /** `await using client = new EnclaveClient(…)` closes it when the scope ends. */
  [Symbol.asyncDispose](): Promise<void> {
    this.close();
    return Promise.resolve();
  }

  /** Each call's metadata: the bearer token when one is set. */
  private metadata(): Metadata {
    const md = new Metadata();
    if (this.token) md.set("authorization", `Bearer ${this.token}`);
    return md;
  }

  private call<Res>(start: (md: Metadata, cb: Callback<Res>) => ClientUnaryCall, opts: CallOptions = {}): Promise<Res> {
    const { signal } = opts;
    if (signal?.aborted) return Promise.reject(abortError(signal));
    return new Promise((resolve, reject) => {
      const onAbort = (): void => call.cancel();
      const call = start(this.metadata(), (err, res) => {
        signal?.removeEventListener("abort", onAbort);
        if (!err) resolve(res as Res);
        else if (signal?.aborted) reject(abortError(signal));
        else {
          const error = callError(this.address, err);
          failures.set(error, err);
          reject(error);
        }
      });
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** A call that is safe to repeat (it reads): retried by the client's policy while the control plane drains or is unreachable. */
  private async read<Res>(start: (md: Metadata, cb: Callback<Res>) => ClientUnaryCall, opts: CallOptions = {}): Promise<Res> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.call(start, opts);
      } catch (err) {
        const raw = err instanceof Error ? failures.get(err) : undefined;
        if (!raw || attempt >= this.retry.attempts || !retryable(raw.code, sentCode(raw))) throw err;
        await sleep(retryDelayMs(this.retry, attempt + 1), opts.signal);
      }
    }
  }

  /** A server stream as an async iterable: ends with the stream, throws its error, cancelled by the signal or by leaving the loop. */
  private async *iterate<T>(stream: ClientReadableStream<T>, signal: AbortSignal | undefined): AsyncGenerator<T> {
    if (signal?.aborted) {
      stream.cancel();
      throw abortError(signal);
    }
    const onAbort = (): void => stream.cancel();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      for await (const item of stream) yield item as T;
    } catch (err) {
      if (signal?.aborted) throw abortError(signal);
      throw this.streamError(err as ServiceError);
    } finally {
      signal?.removeEventListener("abort", onAbort);
      stream.cancel();
    }
  }

  /**
   * Creates a conversation. `lifecycle`: its idle timeout and maximum lifetime in seconds (0 or
   * absent for the server's defaults; past the tenant's maxima it is refused with invalid_arguments).
   * `egress`: where the conversation's code may reach through the egress proxy (default: nowhere).
   */
  createConversation(
    id = "",
    workspacePath = "",
    opts: CallOptions & { lifecycle?: LifecycleOptions; egress?: Array<Partial<EgressDestination>> } = {},
  ): Promise<Conversation> {
    const idleTimeoutSeconds = opts.lifecycle?.idleTimeoutSeconds ?? 0;
    const maxLifetimeSeconds = opts.lifecycle?.maxLifetimeSeconds ?? 0;
    const egress = opts.egress?.length ? { allow: opts.egress.map((d) => EgressDestination.fromPartial(d)) } : undefined;
    return this.call((md, cb) => this.grpc.createConversation({ id, workspacePath, idleTimeoutSeconds, maxLifetimeSeconds, egress }, md, cb), opts);
  }

  /** Sets the conversation's idle timeout and maximum lifetime (seconds; 0 or absent: the server's default). */
  setConversationLifecycle(conversationId: string, lifecycle: LifecycleOptions, opts: CallOptions = {}): Promise<Conversation> {
    const req = { conversationId, idleTimeoutSeconds: lifecycle.idleTimeoutSeconds ?? 0, maxLifetimeSeconds: lifecycle.maxLifetimeSeconds ?? 0 };
    return this.call((md, cb) => this.grpc.setConversationLifecycle(req, md, cb), opts);
  }

  /** Operators only: refuses every call of the tenant (tenant_paused) and puts its conversations to sleep. */
  pauseTenant(tenant: string, opts: CallOptions & { reason?: string } = {}): Promise<TenantPauseState> {
    return this.call((md, cb) => this.grpc.pauseTenant({ tenant, reason: opts.reason ?? "" }, md, cb), opts);
  }

  /** Operators only: the tenant's calls are taken again; its conversations wake on their next call. */
  resumeTenant(tenant: string, opts: CallOptions = {}): Promise<TenantPauseState> {
    return this.call((md, cb) => this.grpc.resumeTenant({ tenant }, md, cb), opts);
  }

  /**
   * Replaces the conversation's egress policy: destinations its code may reach through the egress
   * proxy, within the tenant's operator maximum (past it: invalid_arguments). Empty turns egress off.
   */
  setConversationEgress(conversationId: string, allow: Array<Partial<EgressDestination>>, opts: CallOptions = {}): Promise<Conversation> {
    const egress = { allow: allow.map((d) => EgressDestination.fromPartial(d)) };
    return this.call((md, cb) => this.grpc.setConversationEgress({ conversationId, egress }, md, cb), opts);
  }

  getConversation(conversationId: string, opts: CallOptions = {}): Promise<Conversation> {
    return this.read((md, cb) => this.grpc.getConversation({ conversationId }, md, cb), opts);
  }

  /** Every conversation the caller may see, oldest first: the pages followed to the last (a call per page). */
  async listConversations(opts: CallOptions & { pageSize?: number } = {}): Promise<Conversation[]> {
    const all: Conversation[] = [];
    let pageToken = "";
    do {
      const page = await this.listConversationsPage({ pageSize: opts.pageSize, pageToken }, opts);
      all.push(...page.conversations);
      pageToken = page.nextPageToken;
    } while (pageToken);
    return all;
  }

  /**
   * One page of conversations, oldest first: `pageSize` of them at most (the server's default page
   * without one), from where `pageToken` (a previous page's nextPageToken; none for the first) says.
   * nextPageToken is empty on the last page.
   */
  listConversationsPage(page: { pageSize?: number; pageToken?: string } = {}, opts: CallOptions = {}): Promise<ListConversationsResponse> {
    return this.read((md, cb) => this.grpc.listConversations({ pageSize: page.pageSize ?? 0, pageToken: page.pageToken ?? "" }, md, cb), opts);
  }

  async deleteConversation(conversationId: string, opts: CallOptions = {}): Promise<void> {
    await this.call((md, cb) => this.grpc.deleteConversation({ conversationId }, md, cb), opts);
  }

  /**
   * A new conversation from `sourceConversationId`: its workspace copied and, unless `workspaceOnly`,
   * a new enclosure with the source's options when the source has one. Memory is not forked. `id`
   * empty: generated. Not retried (it makes something).
   */
  forkConversation(sourceConversationId: string, id = "", opts: CallOptions & { workspaceOnly?: boolean } = {}): Promise<Conversation> {
    return this.call((md, cb) => this.grpc.forkConversation({ sourceConversationId, id, workspaceOnly: opts.workspaceOnly ?? false }, md, cb), opts);
  }

  startEnclosure(conversationId: string, options: Partial<EnclosureOptions> = {}, opts: CallOptions = {}): Promise<Conversation> {
    const full = EnclosureOptions.fromPartial(options);
    return this.call((md, cb) => this.grpc.startEnclosure({ conversationId, options: full }, md, cb), opts);
  }

  /** Stops the enclosure; `force` (operators only) skips copy mode's copy back. */
  stopEnclosure(conversationId: string, opts: CallOptions & { force?: boolean } = {}): Promise<Conversation> {
    return this.call((md, cb) => this.grpc.stopEnclosure({ conversationId, force: opts.force ?? false }, md, cb), opts);
  }

  /**
   * Pauses the enclosure with its memory (runsc): its kernels, language servers and agent are
   * checkpointed to the engine's disk and stop. Fails with `checkpoint_unsupported` under runc and
   * `checkpoint_failed` when the engine cannot take it (the enclosure then keeps running).
   */
  pauseEnclosure(conversationId: string, opts: CallOptions = {}): Promise<Conversation> {
    return this.call((md, cb) => this.grpc.pauseEnclosure({ conversationId }, md, cb), opts);
  }

  /** Resumes a paused enclosure from its checkpoint; `resume_failed` leaves it paused with its checkpoint. */
  resumeEnclosure(conversationId: string, opts: CallOptions = {}): Promise<Conversation> {
    return this.call((md, cb) => this.grpc.resumeEnclosure({ conversationId }, md, cb), opts);
  }

  /** Opens a run. approvalPolicy defaults to `write` (cards for write and exec tools); a headless harness passes `never`. */
  openRun(conversationId: string, opts: OpenRunOptions = {}): Promise<Run> {
    return this.call(
      (md, cb) =>
        this.grpc.openRun(
          {
            conversationId,
            surface: opts.surface ?? "",
            resources: opts.resources ?? [],
            approvalPolicy: opts.approvalPolicy ?? "",
            targetSpace: opts.targetSpace ?? "",
            vibeMode: opts.vibeMode ?? false,
            questionTimeoutSeconds: opts.questionTimeoutSeconds ?? 0,
            strictResolve: opts.strictResolve ?? false,
          },
          md,
          cb,
        ),
      opts,
    );
  }

  /** The command line's kept run for (conversation, surface); opened when none is kept or newRun asks. */
  attachCliRun(conversationId: string, opts: AttachCliRunOptions = {}): Promise<Run> {
    return this.call(
      (md, cb) =>
        this.grpc.attachCliRun(
          {
            conversationId,
            surface: opts.surface ?? "",
            approvalPolicy: opts.approvalPolicy ?? "",
            vibeMode: opts.vibeMode ?? false,
            newRun: opts.newRun ?? false,
          },
          md,
          cb,
        ),
      opts,
    );
  }

  /** Open runs of a conversation, or of every conversation with "". */
  async listRuns(conversationId = "", opts: CallOptions = {}): Promise<Run[]> {
    return (await this.read<{ runs: Run[] }>((md, cb) => this.grpc.listRuns({ conversationId }, md, cb), opts)).runs;
  }

  setVibeMode(runId: string, enabled: boolean, opts: CallOptions = {}): Promise<Run> {
    return this.call((md, cb) => this.grpc.setVibeMode({ runId, enabled }, md, cb), opts);
  }

  /**
   * Attaches to a conversation's cards (every conversation's with ""): onEvent sees the open cards,
   * then each card opened or closed. `ready` resolves once attached, after the open cards arrived.
   */
  subscribeCards(conversationId: string, onEvent: (e: CardEvent) => void): { ready: Promise<void>; done: Promise<void>; cancel(): void } {
    const stream = this.grpc.subscribeCards({ conversationId }, this.metadata());
    let markReady: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => (markReady = resolve));
    stream.on("data", (e: CardEvent) => {
      if (e.event?.$case === "subscribed") markReady();
      onEvent(e);
    });
    const done = new Promise<void>((resolve, reject) => {
      const settle = (err?: Error): void => (err ? reject(err) : resolve());
      stream.on("end", () => settle());
      stream.on("error", (err: ServiceError) => (err.code === status.CANCELLED ? settle() : settle(this.streamError(err))));
    });
    // A subscription that fails before it is attached must not leave `ready` pending forever.
    const readyOrFail = Promise.race([ready, done.then(() => Promise.reject(new Error("the card subscription ended before it was attached")))]);
    readyOrFail.catch(() => undefined);
    return { ready: readyOrFail, done, cancel: () => stream.cancel() };
  }

  /**
   * The same events as an async iterable: the open cards, `subscribed`, then each card opened or
   * closed, until the signal aborts or the loop is left. A human counts as attached meanwhile.
   */
  cardEvents(conversationId = "", opts: CallOptions = {}): AsyncGenerator<CardEvent> {
    return this.iterate(this.grpc.subscribeCards({ conversationId }, this.metadata()), opts.signal);
  }

  answerCard(conversationId: string, number: number, answer: Partial<CardAnswer>, opts: CallOptions = {}): Promise<Card> {
    return this.call((md, cb) => this.grpc.answerCard({ conversationId, number, answer: CardAnswer.fromPartial(answer) }, md, cb), opts);
  }

  async listCards(conversationId = "", includeClosed = false, opts: CallOptions = {}): Promise<Card[]> {
    return (await this.read<{ cards: Card[] }>((md, cb) => this.grpc.listCards({ conversationId, includeClosed }, md, cb), opts)).cards;
  }

  /** One page of an open card's complete arguments (limit 0: the largest page). */
  getCardArguments(conversationId: string, number: number, offset = 0, limit = 0, opts: CallOptions = {}): Promise<CardArguments> {
    return this.read((md, cb) => this.grpc.getCardArguments({ conversationId, number, offset, limit }, md, cb), opts);
  }

  /** An open card's complete arguments JSON, read page by page. */
  async cardArgumentsText(conversationId: string, number: number, opts: CallOptions = {}): Promise<string> {
    const parts: string[] = [];
    let offset = 0;
    for (;;) {
      const page = await this.getCardArguments(conversationId, number, offset, 0, opts);
      parts.push(page.text);
      if (page.nextOffset >= page.totalChars || page.nextOffset <= offset) break;
      offset = page.nextOffset;
    }
    return parts.join("");
  }

  /**
   * Connects a worker host: says hello, then hands each command to onCommand; `send` reports
   * progress and results. `ready` resolves once the control plane has registered the host.
   */
  connectWorkerHost(
    hello: Partial<WorkerHostHello>,
    onCommand: (c: WorkerHostCommand) => void,
  ): { ready: Promise<string>; done: Promise<void>; send(m: WorkerHostMessage): void; close(): void } {
    const stream = this.grpc.connectWorkerHost(this.metadata());
    let markReady: (id: string) => void = () => undefined;
    const ready = new Promise<string>((resolve) => (markReady = resolve));
    stream.on("data", (c: WorkerHostCommand) => {
      if (c.command?.$case === "ready") markReady(c.command.value.hostId);
      else onCommand(c);
    });
    const done = new Promise<void>((resolve, reject) => {
      stream.on("end", () => resolve());
      stream.on("error", (err: ServiceError) => (err.code === status.CANCELLED ? resolve() : reject(this.streamError(err))));
    });
    stream.write({ message: { $case: "hello", value: WorkerHostHello.fromPartial(hello) } });
    const readyOrFail = Promise.race([ready, done.then(() => Promise.reject(new Error("the worker host stream ended before it was registered")))]);
    readyOrFail.catch(() => undefined);
    return {
      ready: readyOrFail,
      done,
      send: (m) => stream.write(m),
      close: () => stream.cancel(),
    };
  }

  /**
   * Connects the harness's tool host for a run: the run's kernel cells can then call `tools` with
   * tool(name, args) (as their surface and the approval policy allow), and handlers.call answers.
   * With `intercept`, every cell call to Enclave's tools goes to handlers.intercept first.
   */
  connectToolHost(runId: string, tools: HarnessToolSpec[], handlers: ToolHostHandlers, opts: { intercept?: boolean } = {}): ToolHostConnection {
    return runToolHost(this.grpc.connectToolHost(this.metadata()), runId, tools, handlers, opts.intercept ?? false, (err) => this.streamError(err));
  }

  private streamError(err: ServiceError): Error {
    return callError(this.address, err);
  }

  /** Typed calls for one run: `tools(run.id).exec({ command })` resolves with exec's details typed. */
  tools(runId: string): RunTools {
    return runTools(this, runId);
  }

  /** Operators only (a plain tenant's token fails with `permission_denied`): the tool calls in flight now, every conversation's or one's. */
  async listCallsInFlight(conversationId = "", opts: CallOptions = {}): Promise<CallInFlight[]> {
    return (await this.read<{ calls: CallInFlight[] }>((md, cb) => this.grpc.listCallsInFlight({ conversationId }, md, cb), opts)).calls;
  }

  /** Operators only: cancels a call in flight (its caller gets `cancelled`); `not_found` when it is not in flight. Not retried. */
  async cancelCall(callId: string, opts: CallOptions = {}): Promise<CallInFlight> {
    const res = await this.call<{ call?: CallInFlight }>((md, cb) => this.grpc.cancelCall({ callId }, md, cb), opts);
    if (!res.call) throw new Error("CancelCall answered without the call");
    return res.call;
  }

  /** Operators only: kills one kernel of the conversation's running agent, named by id or by language ("python", "javascript"). */
  stopKernel(conversationId: string, kernel: { kernelId?: string; language?: string }, opts: CallOptions = {}): Promise<StopKernelResponse> {
    return this.call((md, cb) => this.grpc.stopKernel({ conversationId, kernelId: kernel.kernelId ?? "", language: kernel.language ?? "" }, md, cb), opts);
  }

  /** Operators only: stops the conversation's host agent; returns the pid it had. */
  async stopHostAgent(conversationId: string, opts: CallOptions = {}): Promise<number> {
    return (await this.call<{ pid: number }>((md, cb) => this.grpc.stopHostAgent({ conversationId }, md, cb), opts)).pid;
  }

  async closeRun(runId: string, opts: CallOptions = {}): Promise<void> {
    await this.call((md, cb) => this.grpc.closeRun({ runId }, md, cb), opts);
  }

  listTools(runId: string, opts: CallOptions = {}): Promise<ListToolsResponse> {
    return this.read((md, cb) => this.grpc.listTools({ runId }, md, cb), opts);
  }

  /** Diagnostics for files the harness wrote with its own tools (only those new to the run). */
  /**
   * After the harness wrote files with its own tools: the diagnostics the writes introduced, from the
   * same per-run ledger as Enclave's write tools. `beforeWrite: true`, sent before writing, records
   * the files' diagnostics as they are now, so only what the write introduced is reported after it.
   */
  syncWrites(runId: string, paths: string[], opts: CallOptions & { beforeWrite?: boolean | undefined } = {}): Promise<SyncWritesResponse> {
    return this.call((md, cb) => this.grpc.syncWrites({ runId, paths, beforeWrite: opts.beforeWrite ?? false }, md, cb), opts);
  }

  /**
   * Wraps a harness's own write: announces the paths (their diagnostics now are the baseline), runs
   * `write`, then syncs them. Resolves with what `write` returned and the diagnostics it introduced.
   */
  async withSyncedWrite<T>(
    runId: string,
    paths: string[],
    write: () => Promise<T> | T,
    opts: CallOptions = {},
  ): Promise<{ value: T; sync: SyncWritesResponse }> {
    await this.syncWrites(runId, paths, { ...opts, beforeWrite: true });
    const value = await write();
    return { value, sync: await this.syncWrites(runId, paths, opts) };
  }

  auditEnclosure(conversationId: string, opts: CallOptions = {}): Promise<EnclosureAudit> {
    return this.read((md, cb) => this.grpc.auditEnclosure({ conversationId }, md, cb), opts);
  }

  describePlacement(conversationId: string, opts: CallOptions = {}): Promise<PlacementDescription> {
    return this.read((md, cb) => this.grpc.describePlacement({ conversationId }, md, cb), opts);
  }

  /**
   * Calls a tool; onEvent sees progress and output as they stream. Resolves with the final result;
   * an aborted signal cancels the call on the server (a command or cell is stopped) and rejects with an AbortError.
   */
  callTool(runId: string, tool: string, args: unknown, opts?: CallToolOptions): Promise<ToolCallResult>;
  /** The older shape, kept: onEvent, then the options. */
  callTool(runId: string, tool: string, args: unknown, onEvent: ((e: ToolEvent) => void) | undefined, opts?: CallOptions): Promise<ToolCallResult>;
  callTool(
    runId: string,
    tool: string,
    args: unknown,
    eventsOrOpts?: ((e: ToolEvent) => void) | CallToolOptions,
    positionalOpts: CallOptions = {},
  ): Promise<ToolCallResult> {
    const opts: CallToolOptions =
      typeof eventsOrOpts === "function" || eventsOrOpts === undefined ? { ...positionalOpts, onEvent: eventsOrOpts } : eventsOrOpts;
    const onEvent = opts.onEvent;
    const argumentsJson = typeof args === "string" ? args : JSON.stringify(args ?? {});
    const { signal } = opts;
    if (signal?.aborted) return Promise.reject(abortError(signal));
    return new Promise((resolve, reject) => {
      let cancel: () => void = () => undefined;
      const onAbort = (): void => {
        cancel();
        reject(abortError(signal as AbortSignal));
      };
      const settle = (): void => signal?.removeEventListener("abort", onAbort);
      // A CallTool stream of its own: when the session is full, or the server has no sessions.
      const viaCallTool = (): void => {
        const stream: ClientReadableStream<ToolEvent> = this.grpc.callTool({ runId, tool, argumentsJson }, this.metadata());
        const cancelStream = (): void => stream.cancel();
        signal?.addEventListener("abort", cancelStream, { once: true });
        const done = (): void => signal?.removeEventListener("abort", cancelStream);
        let result: ToolResult | undefined;
        stream.on("data", (e: ToolEvent) => {
          if (e.event?.$case === "result") result = e.event.value;
          else onEvent?.(e);
        });
        stream.on("error", (err: ServiceError) => {
          done();
          reject(signal?.aborted ? abortError(signal) : this.streamError(err));
        });
        stream.on("end", () => {
          done();
          if (result) resolve(withDetails(result));
          else reject(new Error("the tool call ended without a result"));
        });
      };
      const onSession = this.sessions?.start(
        { runId, tool, argumentsJson },
        {
          event: (e) => onEvent?.(e),
          result: (r) => {
            settle();
            resolve(withDetails(r));
          },
          failed: (err) => {
            settle();
            reject(err);
          },
          unsent: () => {
            settle();
            viaCallTool();
          },
        },
      );
      if (onSession) {
        cancel = () => onSession.cancel();
        signal?.addEventListener("abort", onAbort, { once: true });
        return;
      }
      viaCallTool();
    });
  }

  /**
   * Calls a tool and yields its events as they come: progress and output, and last the result
   * (`event.$case === "result"`). Aborting the signal, or leaving the loop, cancels the call on the server.
   */
  async *streamTool(runId: string, tool: string, args: unknown, opts: CallOptions = {}): AsyncGenerator<ToolEvent> {
    const argumentsJson = typeof args === "string" ? args : JSON.stringify(args ?? {});
    const { signal } = opts;
    if (signal?.aborted) throw abortError(signal);
    const queue: Array<{ event: ToolEvent } | { done: true } | { error: Error } | { unsent: true }> = [];
    let wake: () => void = () => undefined;
    const push = (item: (typeof queue)[number]): void => {
      queue.push(item);
      wake();
    };
    const call = this.sessions?.start(
      { runId, tool, argumentsJson },
      {
        event: (event) => push({ event }),
        result: (r) => {
          push({ event: { event: { $case: "result", value: r } } });
          push({ done: true });
        },
        failed: (error) => push({ error }),
        unsent: () => push({ unsent: true }),
      },
    );
    if (!call) {
      yield* this.iterate(this.grpc.callTool({ runId, tool, argumentsJson }, this.metadata()), signal);
      return;
    }
    const onAbort = (): void => {
      call.cancel();
      push({ error: abortError(signal as AbortSignal) });
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    let finished = false;
    try {
      for (;;) {
        const item = queue.shift();
        if (!item) {
          await new Promise<void>((resolve) => (wake = resolve));
          continue;
        }
        if ("done" in item) break;
        if ("error" in item) throw item.error;
        if ("unsent" in item) {
          // The server has no sessions: the call is made over CallTool instead.
          finished = true;
          yield* this.iterate(this.grpc.callTool({ runId, tool, argumentsJson }, this.metadata()), signal);
          return;
        }
        yield item.event;
      }
      finished = true;
    } finally {
      signal?.removeEventListener("abort", onAbort);
      // Left early (a break, a throw, the signal): the call must not run on.
      if (!finished) call.cancel();
    }
  }

  /** Audit events: history first when asked, then live ones until the returned function is called. */
  subscribeAudit(opts: AuditOptions, onEvent: (e: AuditEvent) => void): { done: Promise<void>; cancel(): void } {
    const stream = this.grpc.subscribeAudit(
      {
        conversationId: opts.conversationId ?? "",
        includeHistory: opts.includeHistory ?? false,
        historyOnly: opts.historyOnly ?? false,
      },
      this.metadata(),
    );
    stream.on("data", onEvent);
    const done = new Promise<void>((resolve, reject) => {
      stream.on("end", () => resolve());
      stream.on("error", (err: ServiceError) => (err.code === status.CANCELLED ? resolve() : reject(callError(this.address, err))));
    });
    return { done, cancel: () => stream.cancel() };
  }

  /** Audit events as an async iterable: history first when asked (only history with historyOnly), then live ones. */
  auditEvents(opts: AuditOptions & CallOptions = {}): AsyncGenerator<AuditEvent> {
    const stream = this.grpc.subscribeAudit(
      { conversationId: opts.conversationId ?? "", includeHistory: opts.includeHistory ?? false, historyOnly: opts.historyOnly ?? false },
      this.metadata(),
    );
    return this.iterate(stream, opts.signal);
  }
}
