// The harness-facing gRPC service: a thin translation between the protobuf messages and ControlPlane.
import { Metadata, type sendUnaryData, type ServerDuplexStream, type ServerUnaryCall, type ServerWritableStream, type ServiceError } from "@grpc/grpc-js";
import {
  AuditEvent as AuditEventMessage,
  CardEvent as CardEventMessage,
  ToolEvent as ToolEventMessage,
  type CallInFlight,
  type CallToolRequest,
  type CardEvent,
  type ContentPart as ContentPartMsg,
  type ControlPlaneServer,
  type Conversation,
  type Run as RunMsg,
  type TenantPauseState,
  type SubscribeAuditRequest,
  type SubscribeCardsRequest,
  type ToolCallEvent,
  type ToolEvent,
  type ToolHostCommand,
  type ToolHostMessage,
  type ToolResult,
  type WorkerHostCommand,
  type WorkerHostMessage,
  ControlPlaneService,
  type EgressPolicy,
} from "@enclave/proto/gen/enclave/control/v1/control.js";
import { checkPolicy, type EgressDestination } from "../egress/egress-policy.js";
import { onCallerGone } from "@enclave/proto/caller-gone.js";
import type { AuditEvent } from "../audit/audit-log.js";
import { RefusalAudit } from "../audit/refusal-audit.js";
import { bearerTokenId, type CallerAuth, implicitAuth } from "../tenants/caller-auth.js";
import type { StreamKind } from "../streams/open-streams.js";
import { WriteBudget } from "../streams/write-budget.js";
import { checkJsonShape } from "../tools/argument-shape.js";
import { LIMITS } from "../limits.js";
import { cursorOf, pageSizeOf, pageToken } from "./conversation-page-token.js";
import { TenantQuotas } from "../tenants/quotas.js";
import type { EnclosureRequest } from "../model/enclosure.js";
import { withinTenantLimits } from "../tenants/tenant-limits.js";
import { withinLifecycleMaxima } from "../lifecycle/lifecycle-policy.js";
import { tenantPausedError } from "../tenants/tenant-pause-refusal.js";
import type { Tenant } from "../tenants/tenant.js";
import { TenantScope } from "./tenant-scope.js";
import { formatAuditReport } from "../hardening/enclosure-audit.js";
import type { ConversationView, TenantPauseView } from "../control-plane.js";
import type { ControlPlaneApi } from "../control-plane-api.js";
import { asEnclaveError, EnclaveError, ERROR_CODE_TRAILER } from "../errors.js";
import { toServiceError } from "./service-error.js";
import type { ConversationUsage } from "../model/usage.js";
import { usageMessage } from "./usage-message.js";
import type { Run } from "../model/run.js";
import type { ContentPart } from "../tools/tool.js";
import type { CallStarted } from "../tools/call-feed.js";
import { type DecodedCallToolRequest, type DecodedToolCallFrame, undecodableReason } from "./strict-call-decoding.js";
import { serveToolCallSession, type SessionDrain } from "./tool-call-session.js";
import { encodedSize } from "../streams/encoded-once.js";
import { connectWorkerHost } from "./worker-host-stream.js";
import { connectToolHost } from "./tool-host-stream.js";
import { type ApiSpan, type Tracing, TRACING_OFF } from "../observability/tracing.js";

/** How the API tells callers apart and what it lets each have. */
export interface ApiAccess {
  auth: CallerAuth;
  quotas: TenantQuotas;
}

/** A control plane without tokens: every caller is the implicit tenant, with no quotas. */
export function openAccess(): ApiAccess {
  return { auth: implicitAuth(), quotas: new TenantQuotas() };
}

/** What every server stream of grpc-js is: events to watch and a way to send a status. */
interface ServerStream {
  once(event: string, listener: () => void): unknown;
  once(event: "error", listener: (err: ServiceError) => void): unknown;
  emit(event: "error", err: ServiceError): boolean;
}

interface IncomingCall {
  metadata: Metadata;
  getPath(): string;
  getPeer(): string;
}

/** What the caller calls a conversation, from its key (the key itself without a caller). */
type ViewId = (key: string) => string;
const asKey: ViewId = (key) => key;

/** A request's egress policy, checked (undefined when absent: empty). */
function egressFrom(p: EgressPolicy | undefined): EgressDestination[] {
  return checkPolicy(p?.allow ?? [], "egress");
}

/** `showPaths`: whether the caller may learn host paths (see TenantScope.seesHostPaths). */
export function conversationMessage(
  c: ConversationView,
  view: ViewId = asKey,
  showPaths = true,
  usage?: { of: ConversationUsage; text: (s: string) => string },
): Conversation {
  const e = c.enclosure;
  return {
    usage: usage ? usageMessage(usage.of, usage.text) : undefined,
    id: view(c.id),
    workspacePath: showPaths ? c.workspacePath : "",
    placement: c.placement,
    createdAtMs: c.createdAtMs,
    openRuns: c.openRuns,
    notCopiedBack: c.notCopiedBack ?? [],
    tenant: c.tenant,
    lifecycleState: c.lifecycleState,
    idleTimeoutSeconds: c.policy.idleTimeoutSeconds,
    maxLifetimeSeconds: c.policy.maxLifetimeSeconds,
    sleptAtMs: c.lifecycle?.sleep?.atMs ?? 0,
    sleep: c.lifecycle?.sleep
      ? {
          reason: c.lifecycle.sleep.reason,
          mechanism: c.lifecycle.sleep.mechanism,
          memoryKept: c.lifecycle.sleep.memoryKept,
          placement: c.lifecycle.sleep.placement,
          image: c.lifecycle.sleep.enclosure?.image ?? "",
          runtime: c.lifecycle.sleep.enclosure?.runtime ?? "",
          detail: c.lifecycle.sleep.detail,
        }
      : undefined,
    egress: { allow: (c.egress ?? []).map((d) => ({ host: d.host ?? "", cidr: d.cidr ?? "", ports: d.ports })) },
    forkedFrom: c.forkedFrom ? view(c.forkedFrom) : "",
    enclosure: e
      ? {
          containerId: e.containerId,
          image: e.image,
          state: e.state,
          startedAtMs: e.startedAtMs,
          limits: { memoryBytes: e.limits.memoryBytes, cpus: e.limits.cpus, pids: e.limits.pids, diskBytes: e.limits.diskBytes ?? 0 },
          workspaceMode: e.workspaceMode,
          detail: e.detail,
          relaxations: e.relaxations,
          runtime: e.runtime,
          notes: e.notes ?? [],
          origin: e.pool ? "pool" : "cold",
          pausedAtMs: e.pause?.pausedAtMs ?? 0,
          checkpointBytes: e.pause?.bytes ?? 0,
          memoryKept: e.pause !== undefined,
          pauseNotes: e.pause?.notes ?? [],
          pauseTimings: e.pauseTimings ?? "",
        }
      : undefined,
  };
}

function pauseMessage(v: TenantPauseView, view: ViewId): TenantPauseState {
  return {
    tenant: v.tenant,
    paused: v.pause !== undefined,
    pausedAtMs: v.pause?.pausedAtMs ?? 0,
    pausedBy: v.pause?.pausedBy ?? "",
    reason: v.pause?.reason ?? "",
    slept: v.slept.map(view),
  };
}

/** Who made a call, for the audit: the tenant (and whether an operator), or the local caller without tokens. */
function callerName(s: { tokensRequired: boolean; tenant: { name: string; operator: boolean } }): string {
  if (!s.tokensRequired) return "the local caller (no tokens)";
  return `${s.tenant.operator ? "operator" : "tenant"} \`${s.tenant.name}\``;
}

function runMessage(cp: ControlPlaneApi, run: Run, view: ViewId = asKey): RunMsg {
  const cli = cp.cliRunState(run);
  return {
    id: run.id,
    conversationId: view(run.conversationId),
    surface: run.surface,
    resources: run.resources,
    approvalPolicy: run.approvalPolicy,
    targetSpace: view(run.targetSpace),
    vibeMode: run.vibeMode,
    questionTimeoutSeconds: run.questionTimeoutMs / 1000,
    cli: run.cli,
    cliCurrent: cli.current,
    openedAtMs: run.openedAtMs,
    lastUsedMs: run.lastUsedMs,
    idleExpiresAtMs: cli.idleExpiresAtMs,
    pendingActions: cp.pendingCount(run),
    callsInFlight: run.callsInFlight,
    strictResolve: run.strictResolve ?? false,
  };
}

function partMessage(p: ContentPart): ContentPartMsg {
  const repeatsStreamed = p.streamed === true;
  if (p.type === "rich") return { part: { $case: "rich", value: { mimeType: p.mimeType, text: p.text } }, repeatsStreamed };
  if (p.type === "text") return { part: { $case: "text", value: p.text }, repeatsStreamed };
  return { part: { $case: "image", value: { mimeType: p.mimeType, data: p.data } }, repeatsStreamed };
}

/**
 * The service with every request that did not decode (see strict-call-decoding.ts) refused before its
 * handler runs, with the error `refusal` gives. Streams of requests check each message themselves (a
 * host stream refuses it, CallTools refuses its one call).
 */
function refuseUndecodable(service: ControlPlaneServer, refusal: (call: IncomingCall, why: string) => unknown): ControlPlaneServer {
  const wrapped: Record<string, unknown> = { ...service };
  for (const [name, handler] of Object.entries(service) as [string, (...args: unknown[]) => void][]) {
    const def = Object.hasOwn(ControlPlaneService, name) ? ControlPlaneService[name as keyof typeof ControlPlaneService] : undefined;
    if (!def || def.requestStream) continue;
    wrapped[name] = (call: IncomingCall & ServerStream & { request: unknown }, callback?: (err: ServiceError | null, res: null) => void): void => {
      const why = undecodableReason(call.request);
      if (why === undefined) return void handler(call, callback);
      const err = toServiceError(refusal(call, why));
      if (def.responseStream) call.emit("error", err);
      else callback?.(err, null);
    };
  }
  return wrapped as unknown as ControlPlaneServer;
}

/** A server that never drains (tests serving the service without serve.ts). */
const NO_DRAIN: SessionDrain = { isDraining: false, enter: () => () => undefined, onDraining: () => () => undefined };

export function controlPlaneService(
  cp: ControlPlaneApi,
  access: ApiAccess = openAccess(),
  drain: SessionDrain = NO_DRAIN,
  tracing: Tracing = TRACING_OFF,
): ControlPlaneServer {
  const refusals = new RefusalAudit((input) => cp.recordAudit(input));
  // With tokens, each tenant's operator egress maximum is its entry's (none when it sets none).
  if (access.auth.tokensRequired) cp.setEgressMaximumSource((tenant) => access.auth.tenant(tenant)?.egressMaximum ?? []);
  /** The caller's scope from its bearer token; a refused caller is recorded in the audit log. */
  const scopeOf = (call: IncomingCall): TenantScope => {
    const [header] = call.metadata.get("authorization");
    try {
      const tenant = access.auth.authenticate(typeof header === "string" ? header : undefined);
      // A paused tenant is refused everything (an operator is never paused: see pauseTenant below).
      const pause = tenant.operator ? undefined : cp.tenantPause(tenant.name);
      if (pause) throw tenantPausedError(tenant.name, pause);
      return new TenantScope(cp, tenant, access.auth.tokensRequired);
    } catch (err) {
      const e = asEnclaveError(err);
      refusals.refused("", { kind: "call_refused", outcome: `refused:${e.code}`, detail: `${call.getPath()} from ${call.getPeer()}` });
      throw e;
    }
  };
  /** A stream's scope, or undefined once the stream was refused with the reason. */
  const streamScope = (call: IncomingCall & { emit(event: "error", err: ServiceError): boolean }): TenantScope | undefined => {
    try {
      return scopeOf(call);
    } catch (err) {
      call.emit("error", toServiceError(err));
      return undefined;
    }
  };
  const refusedByQuota = (s: TenantScope, err: unknown, conversationId = ""): never => {
    const e = asEnclaveError(err);
    if (e.code === "quota_exceeded") {
      refusals.refused(`quota ${s.tenant.name}`, {
        kind: "quota_exceeded",
        tenant: s.tenant.name,
        conversationId,
        outcome: `refused:${e.code}`,
        detail: e.message,
      });
    }
    throw e;
  };
  /**
   * Counts a stream against its tenant's bound for its kind and ties it to the token that opened it
   * (revoking the token calls `end`). Undefined when refused: the status is sent (and the refusal audited).
   */
  const holdStream = (kind: StreamKind, call: IncomingCall & ServerStream, s: TenantScope, end: (err: EnclaveError) => void): (() => void) | undefined => {
    const [header] = call.metadata.get("authorization");
    const owner = s.tokensRequired
      ? { tenant: s.tenant.name, tokenId: bearerTokenId(typeof header === "string" ? header : undefined) }
      : { tenant: undefined, tokenId: undefined };
    let release: () => void;
    try {
      // A refusal is audited by cp.streams itself (the console's too).
      release = cp.streams.open(kind, owner, end);
    } catch (err) {
      call.emit("error", toServiceError(err));
      return undefined;
    }
    for (const event of ["cancelled", "close", "finish", "error"]) call.once(event, release);
    // A reader cut off for falling behind is audited (a revoked token's streams are, by cp.streams).
    call.once("error", (err: ServiceError) => {
      const code = err.metadata?.get(ERROR_CODE_TRAILER)[0];
      if (code === "slow_reader") cp.streams.cutOff(kind, owner, new EnclaveError("slow_reader", err.details));
    });
    return release;
  };
  function unary<Req, Res>(fn: (req: Req, s: TenantScope, call: IncomingCall) => Promise<Res> | Res) {
    return (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>): void => {
      let scope: TenantScope | undefined;
      Promise.resolve()
        .then(() => fn(call.request, (scope = scopeOf(call)), call))
        .then(
          (res) => callback(null, res),
          (err: unknown) => callback(toServiceError(scope ? scope.errorView(err) : err), null),
        );
    };
  }
  /** Who the caller is, as an operator_action event names it: its tenant and its token's id. */
  const actorOf = (s: TenantScope, call: IncomingCall): string => {
    if (!s.tokensRequired) return "the caller of a control plane without tokens";
    const [header] = call.metadata.get("authorization");
    return `tenant ${s.tenant.name} (token ${bearerTokenId(typeof header === "string" ? header : undefined) ?? "?"})`;
  };
  /**
   * The operator's hands (cancelling a call, stopping a kernel or a host agent, pausing a tenant) are refused to a plain
   * tenant's token, and the refusal audited: a tenant learns nothing of what runs (another tenant's
   * calls included), not even whether an id is in flight.
   */
  const operatorOnly = (
    s: TenantScope,
    call: IncomingCall,
    what: string,
    instead = "a tenant cancels its own calls through its CallTools session (or by ending its CallTool stream) and resets its kernel with eval's reset",
  ): string => {
    if (s.tokensRequired && !s.tenant.operator) {
      const e = new EnclaveError("permission_denied", `${what} is an operator's action and tenant \`${s.tenant.name}\` is not an operator; ${instead}`);
      refusals.refused(`operator ${s.tenant.name}`, {
        kind: "call_refused",
        tenant: s.tenant.name,
        outcome: `refused:${e.code}`,
        detail: `${call.getPath()} from ${call.getPeer()}: not an operator`,
      });
      throw e;
    }
    return actorOf(s, call);
  };
  /** Operators' actions on what the API already offers (a close, a delete, a forced stop) are audited with who did them. */
  const auditOperator = (s: TenantScope, call: IncomingCall, action: string, conversationId: string, detail: string): void => {
    if (!s.tokensRequired || !s.tenant.operator) return;
    cp.recordAudit({
      kind: "operator_action",
      tool: action,
      conversationId,
      tenant: cp.conversationTenant(conversationId),
      outcome: "ok",
      detail: `by ${actorOf(s, call)}: ${detail}`,
    });
  };
  const callMessage = (s: TenantScope, c: CallStarted & { tenant: string }): CallInFlight => ({
    callId: String(c.callId),
    runId: c.runId,
    conversationId: s.view(c.conversationId),
    tenant: c.tenant,
    tool: c.tool,
    startedAtMs: c.startedAtMs,
    origin: c.origin,
  });

  /** The tenant whose quotas a conversation's resources count against: its owner's, as configured now. */
  const ownerOf = (s: TenantScope, owner: string): Tenant => (s.tenant.name === owner ? s.tenant : (access.auth.tenant(owner) ?? s.tenant));
  /** The tenant's conversations served by a running host agent, `except` aside. */
  const liveHostAgents = (tenant: string, except: string): number => cp.liveHostAgents(tenant, except);
  /** The tenant's live kernels: only a conversation whose placement runs has any to ask about. */
  const liveKernelCount = async (tenant: string): Promise<number> => {
    const alive = await Promise.all(cp.runningConversations(tenant).map((id) => cp.liveKernels(id).catch(() => [] as string[])));
    return alive.reduce((n, kernels) => n + kernels.length, 0);
  };
  /**
   * A call that may start the conversation's host agent (none runs, no enclosure serves it) takes a
   * host-agent slot of its tenant while it runs: by its end the agent runs and is counted as such.
   */
  const reserveHostAgent = (s: TenantScope, conversationId: string): (() => void) => {
    const owner = cp.conversationTenant(conversationId);
    const tenant = ownerOf(s, owner);
    const live = (id: string): boolean => cp.hostAgentPid(id) !== undefined;
    // An enclosure asleep is woken as an enclosure: its call starts no host agent.
    if (!Number.isFinite(tenant.quotas.hostAgents) || cp.getConversation(conversationId).placement === "enclosure" || live(conversationId))
      return () => undefined;
    const running = liveHostAgents(owner, conversationId);
    try {
      return access.quotas.enterHostAgentStart(tenant, running);
    } catch (err) {
      return refusedByQuota(s, err, conversationId);
    }
  };
  /** Who may see a card: its conversation's tenant (a card of a conversation gone is no one's but an operator's). */
  const seesCard = (s: TenantScope, card: { conversationId: string }): boolean => s.tenant.operator || s.hasConversation(card.conversationId);
  /**
   * An eval that would start a kernel takes a kernel slot of its tenant for as long as it runs
   * (given back when it ends, however it ends: by then the kernel is alive and counted as such, or
   * it never started); refused when the tenant's live and starting kernels are at the quota.
   */
  const reserveKernel = async (s: TenantScope, run: Run, tool: string, argumentsJson: string): Promise<() => void> => {
    const none = (): void => undefined;
    if (tool !== "eval" || !Number.isFinite(s.tenant.quotas.kernels)) return none;
    let language = "python";
    try {
      // Nothing is parsed that the dispatcher would refuse unparsed (too large, too deep, too many keys).
      if (Buffer.byteLength(argumentsJson) > LIMITS.argumentsMaxBytes) return none;
      checkJsonShape("arguments", argumentsJson);
      const parsed = JSON.parse(argumentsJson) as { language?: unknown };
      if (typeof parsed.language === "string") language = parsed.language;
    } catch {
      return none; // The tool refuses bad arguments itself.
    }
    const kernelKey = (conversationId: string, lang: string): string => `${conversationId}\u0000${lang}`;
    const since = access.quotas.kernelEpoch();
    // Only a conversation whose placement runs has kernels to ask about: of thousands held, most do not.
    const mine = cp.runningConversations(s.tenant.name);
    const alive = await Promise.all(mine.map((id) => cp.liveKernels(id).catch(() => [] as string[])));
    const keys = new Set(mine.flatMap((id, i) => (alive[i] ?? []).map((lang) => kernelKey(id, lang))));
    try {
      return access.quotas.reserveKernel(s.tenant, kernelKey(run.conversationId, language), keys, since);
    } catch (err) {
      return refusedByQuota(s, err, run.conversationId);
    }
  };
  /**
   * One tool call, for CallTool and CallTools alike: the caller's scope and run, the tenant's call
   * quota and kernel slot (given back however the call ends), and the dispatcher, which audits it.
   */
  const runToolCall = (
    caller: IncomingCall,
    req: DecodedCallToolRequest,
    signal: AbortSignal,
    emit: (e: NonNullable<ToolEvent["event"]>) => void,
  ): Promise<ToolResult> =>
    // Names and ids only: never the arguments, the result or the caller's token.
    tracing.apiCall(caller.getPath(), caller.metadata, { "enclave.tool": req.tool.slice(0, 200), "enclave.run_id": req.runId.slice(0, 200) }, (span) =>
      serveToolCall(caller, req, signal, emit, span),
    );
  const serveToolCall = async (
    caller: IncomingCall,
    req: DecodedCallToolRequest,
    signal: AbortSignal,
    emit: (e: NonNullable<ToolEvent["event"]>) => void,
    span: ApiSpan,
  ): Promise<ToolResult> => {
    const s = scopeOf(caller);
    const run = s.run(req.runId);
    span.set({ "enclave.tenant": s.tenant.name, "enclave.conversation_id": run.conversationId });
    let releaseCall: () => void = () => undefined;
    try {
      releaseCall = access.quotas.enterCall(s.tenant);
    } catch (err) {
      refusedByQuota(s, err, run.conversationId);
    }
    try {
      const releaseHostAgent = reserveHostAgent(s, run.conversationId);
      const releaseKernel = await reserveKernel(s, run, req.tool, req.argumentsJson).catch((err: unknown) => {
        releaseHostAgent();
        throw err;
      });
      try {
        const r = await cp.callTool(run.id, req.tool, req.argumentsJson, {
          notUtf8: req.notUtf8,
          signal,
          emit: (e) => emit(e.kind === "progress" ? { $case: "progress", value: e.text } : { $case: "output", value: { stream: e.stream, data: e.data } }),
        });
        span.set({ "enclave.outcome": r.isError ? "error" : "ok" });
        if (r.isError) span.failed(r.errorCode);
        const parts = r.parts.map(partMessage);
        // An error's text may quote a host folder (the workspace's); a caller who sees no host paths is not told it.
        const shown = r.isError ? parts.map((p) => (p.part?.$case === "text" ? { ...p, part: { ...p.part, value: s.pathless(p.part.value) } } : p)) : parts;
        const details = r.details === undefined ? "" : JSON.stringify(s.detailsView(r.details, r.isError));
        return {
          isError: r.isError,
          parts: shown,
          errorCode: r.errorCode,
          durationMs: r.durationMs,
          detailsJson: details,
          // A label is the staging tool's text (a custom tool's may quote a host folder): shown as the error texts are.
          pending: r.pending ? { ...r.pending, labels: r.pending.labels.map((l) => s.pathless(l)) } : { requiredNextTool: "", pendingIds: [], labels: [] },
        };
      } finally {
        releaseKernel();
        releaseHostAgent();
      }
    } finally {
      releaseCall();
    }
  };
  /** A tenant an operator may pause: one in the token file, not an operator (that would lock operators out). */
  const pausableTenant = (name: string): string => {
    if (!name) throw new EnclaveError("invalid_arguments", "tenant is required: the name of a tenant in the token file");
    const t = access.auth.tenant(name);
    if (!t) throw new EnclaveError("not_found", `tenant \`${name}\` is not in the token file; \`enclave tokens list\` shows the tenants`);
    if (t.operator)
      throw new EnclaveError("invalid_arguments", `tenant \`${name}\` is an operator: operators are not paused (their calls are how a pause is undone)`);
    return t.name;
  };
  /** `check` (a request held to the operator's maxima); its refusal is audited like a quota's, once an interval per tenant. */
  const withinLimits = <T>(s: TenantScope, rpc: string, conversationId: string, check: () => T): T => {
    try {
      return check();
    } catch (err) {
      const e = asEnclaveError(err);
      refusals.refused(`limits ${s.tenant.name}`, {
        kind: "call_refused",
        tenant: s.tenant.name,
        conversationId,
        outcome: `refused:${e.code}`,
        detail: `${rpc}: ${e.message}`,
      });
      throw e;
    }
  };
  /** The lifecycle values asked, within the maxima of the conversation's owner. */
  const lifecycleWithin = (s: TenantScope, owner: string, req: { idleTimeoutSeconds: number; maxLifetimeSeconds: number }, rpc: string, id = "") =>
    withinLimits(s, rpc, id, () =>
      withinLifecycleMaxima(ownerOf(s, owner), { idleTimeoutSeconds: req.idleTimeoutSeconds, maxLifetimeSeconds: req.maxLifetimeSeconds }),
    );
  const service: ControlPlaneServer = {
    setConversationLifecycle: unary((req, s) => {
      const id = s.conversationId(req.conversationId);
      const lifecycle = lifecycleWithin(s, cp.conversationTenant(id), req, "SetConversationLifecycle", id);
      return conversationMessage(cp.setConversationLifecycle(id, lifecycle), s.viewer, s.seesHostPaths);
    }),
    pauseTenant: unary(async (req, s, call) => {
      operatorOnly(s, call, "PauseTenant", "ask an operator");
      const tenant = pausableTenant(req.tenant);
      if (req.reason.length > LIMITS.pauseReasonMaxChars) {
        throw new EnclaveError("invalid_arguments", `reason is ${req.reason.length} characters; at most ${LIMITS.pauseReasonMaxChars}`);
      }
      return pauseMessage(await cp.pauseTenant(tenant, s.tenant.name, req.reason), s.viewer);
    }),
    resumeTenant: unary((req, s, call) => {
      operatorOnly(s, call, "ResumeTenant", "ask an operator");
      return pauseMessage(cp.resumeTenant(pausableTenant(req.tenant), s.tenant.name), s.viewer);
    }),
    createConversation: unary(async (req, s) => {
      s.checkWorkspacePath(req.workspacePath);
      const lifecycle = lifecycleWithin(s, s.tenant.name, req, "CreateConversation");
      const egress = egressFrom(req.egress);
      // A spare host agent is one more host agent of the tenant's, with a live Python kernel: none is
      // taken past either quota (counted only when one is ready: the kernels' count asks each agent).
      const spare =
        cp.hostSparesReady() > 0 &&
        (!Number.isFinite(s.tenant.quotas.hostAgents) || liveHostAgents(s.tenant.name, "") < s.tenant.quotas.hostAgents) &&
        (!Number.isFinite(s.tenant.quotas.kernels) || (await liveKernelCount(s.tenant.name)) < s.tenant.quotas.kernels);
      return conversationMessage(
        cp.createConversation({ id: req.id, workspacePath: req.workspacePath, tenant: s.tenant.name, spare, lifecycle, egress }),
        s.viewer,
        s.seesHostPaths,
      );
    }),
    getConversation: unary(async (req, s) => {
      const conv = s.conversation(req.conversationId);
      return conversationMessage(conv, s.viewer, s.seesHostPaths, { of: await cp.conversationUsage(conv.id), text: (t) => s.pathless(t) });
    }),
    listConversations: unary((req, s) => {
      // A page at a time (the default one without page_size), so a reply's size and cost stay bounded however many there are.
      const size = pageSizeOf(req.pageSize);
      const { page, more } = cp.conversationPage(cursorOf(s.tenant.name, req.pageToken), size, (t) => s.sees(t));
      const last = page[page.length - 1];
      return {
        conversations: page.map((c) => conversationMessage(c, s.viewer, s.seesHostPaths)),
        nextPageToken: more && last ? pageToken(s.tenant.name, { createdAtMs: last.createdAtMs, id: last.id }) : "",
      };
    }),
    deleteConversation: unary(async (req, s, call) => {
      const id = s.conversationId(req.conversationId);
      const tenant = cp.conversationTenant(id);
      await cp.deleteConversation(id);
      if (s.tokensRequired && s.tenant.operator) {
        cp.recordAudit({ kind: "operator_action", tool: "delete_conversation", conversationId: id, tenant, outcome: "ok", detail: `by ${actorOf(s, call)}` });
      }
      return {};
    }),
    forkConversation: unary(async (req, s) => {
      const sourceId = s.conversationId(req.sourceConversationId);
      const owner = cp.conversationTenant(sourceId);
      const tenant = ownerOf(s, owner);
      const src = cp.getConversation(sourceId);
      // The fork keeps its source's own lifecycle values: within the owner's maxima as they are now
      // (an operator may have lowered them since the source asked), as its egress policy is.
      lifecycleWithin(
        s,
        owner,
        { idleTimeoutSeconds: src.lifecycle?.idleTimeoutSeconds ?? 0, maxLifetimeSeconds: src.lifecycle?.maxLifetimeSeconds ?? 0 },
        "ForkConversation",
        sourceId,
      );
      const withEnclosure = !!src.enclosure && !req.workspaceOnly;
      // Within the owner's limits as they are now, refused before anything is copied.
      const enclosure = (asked: EnclosureRequest): EnclosureRequest =>
        withinLimits(s, "ForkConversation", sourceId, () => withinTenantLimits(tenant, asked, cp.enclosureDefaults()));
      let release: () => void = () => undefined;
      if (withEnclosure) {
        try {
          release = access.quotas.enterEnclosureStart(tenant, cp.liveEnclosures(owner, ""));
        } catch (err) {
          refusedByQuota(s, err, sourceId);
        }
      }
      const bound = Number.isFinite(tenant.quotas.maxDiskBytes)
        ? { maxBytes: tenant.quotas.maxDiskBytes, fromQuota: true, tenant: tenant.name }
        : { maxBytes: cp.enclosureDefaults().copyBackMaxBytes, fromQuota: false, tenant: tenant.name };
      try {
        const forked = await cp.forkConversation(sourceId, {
          id: req.id,
          workspaceOnly: req.workspaceOnly,
          bound,
          by: s.tenant.name,
          enclosure,
          caller: { operator: !s.tokensRequired || s.tenant.operator },
        });
        return conversationMessage(forked, s.viewer, s.seesHostPaths);
      } catch (err) {
        return refusedByQuota(s, err, sourceId);
      } finally {
        release();
      }
    }),
    startEnclosure: unary(async (req, s) => {
      const id = s.conversationId(req.conversationId);
      const o = req.options;
      const owner = cp.conversationTenant(id);
      const raw = {
        image: o?.image,
        workspaceMode: o?.workspaceMode,
        memoryBytes: o?.memoryBytes,
        cpus: o?.cpus,
        pidsLimit: o?.pidsLimit,
        user: o?.user,
        networkMode: o?.networkMode,
        keepCapabilities: o?.keepCapabilities,
        writableRoot: o?.writableRoot,
        allowNewPrivileges: o?.allowNewPrivileges,
        agentDelivery: o?.agentDelivery,
        diskLimitBytes: o?.diskLimitBytes,
        runtime: o?.runtime,
        devcontainer: o?.devcontainer,
      };
      s.checkEnclosureRequest(raw);
      const request = withinLimits(s, "StartEnclosure", id, () => withinTenantLimits(ownerOf(s, owner), raw, cp.enclosureDefaults()));
      let release: () => void = () => undefined;
      try {
        release = access.quotas.enterEnclosureStart(ownerOf(s, owner), cp.liveEnclosures(owner, id));
      } catch (err) {
        refusedByQuota(s, err, id);
      }
      try {
        return conversationMessage(await cp.startEnclosure(id, request, { operator: !s.tokensRequired || s.tenant.operator }), s.viewer, s.seesHostPaths);
      } finally {
        release();
      }
    }),
    stopEnclosure: unary(async (req, s, call) => {
      const id = s.conversationId(req.conversationId);
      // A forced stop discards copy mode's workspace: an operator's, refused like the other hands.
      if (req.force) operatorOnly(s, call, "StopEnclosure with force (it skips copying the workspace back)", "stop without force, or ask an operator");
      const stopped = await cp.stopEnclosure(id, { force: req.force });
      if (req.force) auditOperator(s, call, "force_stop_enclosure", id, "stopped the enclosure without copying /workspace back");
      return conversationMessage(stopped, s.viewer, s.seesHostPaths);
    }),
    // Pause and resume are the conversation's owner's (or an operator's), as stop is: s.conversationId
    // refuses another tenant's conversation before anything is touched.
    pauseEnclosure: unary(async (req, s) => {
      const id = s.conversationId(req.conversationId);
      return conversationMessage(await cp.pauseEnclosure(id, { by: callerName(s) }), s.viewer, s.seesHostPaths);
    }),
    resumeEnclosure: unary(async (req, s) => {
      const id = s.conversationId(req.conversationId);
      return conversationMessage(await cp.resumeEnclosure(id, { by: callerName(s) }), s.viewer, s.seesHostPaths);
    }),
    openRun: unary((req, s) =>
      runMessage(
        cp,
        cp.openRun({
          conversationId: s.conversationId(req.conversationId),
          surface: req.surface,
          resources: req.resources,
          approvalPolicy: req.approvalPolicy,
          targetSpace: req.targetSpace ? s.key(req.targetSpace) : "",
          vibeMode: req.vibeMode,
          questionTimeoutSeconds: req.questionTimeoutSeconds,
          strictResolve: req.strictResolve,
        }),
        s.viewer,
      ),
    ),
    closeRun: unary((req, s, call) => {
      const run = s.run(req.runId);
      cp.closeRun(run.id);
      auditOperator(s, call, "close_run", run.conversationId, `closed run ${run.id}`);
      return {};
    }),
    listCallsInFlight: unary((req, s, call) => {
      operatorOnly(s, call, "ListCallsInFlight");
      const key = req.conversationId ? s.conversationId(req.conversationId) : undefined;
      return { calls: cp.listCallsInFlight(key).map((c) => callMessage(s, c)) };
    }),
    cancelCall: unary((req, s, call) => {
      const by = operatorOnly(s, call, "CancelCall");
      return { call: callMessage(s, cp.cancelCall(req.callId, by)) };
    }),
    stopKernel: unary(async (req, s, call) => {
      const by = operatorOnly(s, call, "StopKernel");
      const stopped = await cp.stopKernel(s.conversationId(req.conversationId), { kernelId: req.kernelId, language: req.language }, by);
      return { kernelId: stopped.kernelId, language: stopped.language, pid: stopped.pid };
    }),
    stopHostAgent: unary(async (req, s, call) => {
      const by = operatorOnly(s, call, "StopHostAgent");
      return cp.stopHostAgent(s.conversationId(req.conversationId), by);
    }),
    listTools: unary((req, s) => ({
      tools: cp.listTools(s.run(req.runId).id).map((t) => ({
        name: t.name,
        tier: t.tier,
        description: t.description,
        inputSchemaJson: JSON.stringify(t.inputSchema),
        detailsSchemaJson: t.detailsSchema ? JSON.stringify(t.detailsSchema) : "",
        resource: t.resource,
        parallelSafe: t.parallelSafe,
      })),
      requiredNextTool: cp.requiredNextTool(req.runId),
      customToolFailures: cp.customToolFailures,
    })),
    syncWrites: unary(async (req, s) => {
      const r = await cp.syncWrites(s.run(req.runId).id, req.paths, { beforeWrite: req.beforeWrite });
      return {
        text: r.text,
        files: r.files.map((f) => ({
          path: f.path,
          state: f.state,
          servers: f.servers,
          detail: f.detail,
          newDiagnostics: f.newDiagnostics.map((d) => ({
            path: d.path,
            line: d.line,
            column: d.column,
            severity: d.severity,
            code: d.code,
            message: d.message,
            source: d.source,
          })),
        })),
      };
    }),
    callTool(call: ServerWritableStream<CallToolRequest, ToolEvent>): void {
      const s = streamScope(call);
      if (!s) return;
      const abort = new AbortController();
      let ended = false;
      const end = (err: EnclaveError): void => {
        ended = true;
        abort.abort();
        call.emit("error", toServiceError(err));
      };
      // A one-call tool session: its output waits for the reader after the call ends (and its quota
      // slot is given back), so it is counted and bounded in bytes like CallTools, and ends with its token.
      if (!holdStream("tool_session", call, s, end)) return;
      const out = new WriteBudget<ToolEvent>(call, encodedSize(ToolEventMessage), end, LIMITS.streamBufferedBytes.tool_session);
      onCallerGone(
        call,
        () => ended,
        () => abort.abort(),
      );
      // Through a promise, so an unknown run id becomes a status instead of a thrown handler.
      Promise.resolve()
        .then(() => runToolCall(call, call.request, abort.signal, (event) => out.write({ event })))
        .then(
          (result) => {
            if (out.isCut) return;
            ended = true;
            if (out.write({ event: { $case: "result", value: result } })) call.end();
          },
          // emit, not destroy: grpc-js sends the status only for a stream that ends after "error".
          (err: unknown) => {
            if (out.isCut) return;
            ended = true;
            call.emit("error", toServiceError(err));
          },
        );
    },
    callTools(call: ServerDuplexStream<DecodedToolCallFrame, ToolCallEvent>): void {
      // Refused at once when the caller's token is; each call is authorized again as CallTool's is,
      // so a token revoked while the session is open stops its next call.
      const s = streamScope(call);
      if (!s) return;
      // What the session refuses before a call runs (a malformed frame, an id in use, past the bound,
      // draining) is recorded like a refused caller; a call that runs is audited by the dispatcher.
      const refused = (err: EnclaveError): void =>
        refusals.refused(`session ${s.tenant.name}`, {
          kind: "call_refused",
          tenant: s.tenant.name,
          outcome: `refused:${err.code}`,
          detail: `CallTools from ${call.getPeer()}: ${err.message}`,
        });
      let session: { end(err: EnclaveError): void } | undefined;
      if (!holdStream("tool_session", call, s, (err) => session?.end(err))) return;
      session = serveToolCallSession(call, (req, signal, emit) => runToolCall(call, req, signal, emit), drain, toServiceError, refused);
    },
    auditEnclosure: unary(async (req, s) => {
      const audited = await cp.auditEnclosure(s.conversationId(req.conversationId));
      const r = {
        ...audited,
        conversationId: s.view(audited.conversationId),
        bridgeCalls: audited.bridgeCalls.map(s.auditView),
        egressRequests: audited.egressRequests.map(s.auditView),
      };
      return { ...r, text: formatAuditReport(r) };
    }),
    describePlacement: unary(async (req, s) => {
      const id = s.conversationId(req.conversationId);
      const release = reserveHostAgent(s, id);
      const d = await cp.describePlacement(id).finally(release);
      return {
        placement: d.placement,
        agentVersion: d.agentVersion,
        workspaceRoot: d.workspaceRoot,
        components: d.components,
        agentNodeVersion: d.agentNodeVersion,
      };
    }),
    subscribeAudit(call: ServerWritableStream<SubscribeAuditRequest, AuditEvent>): void {
      const s = streamScope(call);
      if (!s) return;
      const { includeHistory, historyOnly } = call.request;
      let conversationId = "";
      try {
        conversationId = call.request.conversationId ? s.key(call.request.conversationId) : "";
      } catch (err) {
        call.emit("error", toServiceError(err));
        return;
      }
      // By the event's own tenant, so a tenant reads its history even of conversations deleted since.
      const tenant = s.tenant.operator ? undefined : s.tenant.name;
      const matches = (e: AuditEvent): boolean => (!conversationId || e.conversationId === conversationId) && (tenant === undefined || e.tenant === tenant);
      let unsubscribe = (): void => undefined;
      let out: WriteBudget<AuditEvent> | undefined;
      const end = (err: EnclaveError): void => {
        unsubscribe();
        out?.close();
        call.emit("error", toServiceError(err));
      };
      if (!holdStream("subscribe_audit", call, s, end)) return;
      const budget = new WriteBudget<AuditEvent>(call, (e) => AuditEventMessage.encode(e).finish().byteLength, end, LIMITS.streamBufferedBytes.subscribe_audit);
      out = budget;
      for (const event of ["cancelled", "close", "error"]) call.once(event, () => budget.close());
      const follow = (): void => {
        if (budget.isOver) return; // the reader went during the replay
        unsubscribe = cp.subscribeAudit((e) => {
          if (matches(e)) budget.write(s.auditView(e));
        });
        call.on("cancelled", unsubscribe);
        call.on("close", unsubscribe);
      };
      if (!includeHistory && !historyOnly) return follow();
      // The history (the newest LIMITS.auditHistoryEvents) goes at its reader's pace, a page at a time,
      // within the same per-reader bound as what follows; history-only ends where the history ended
      // when asked, else what was recorded meanwhile follows until a page comes back empty and, in the
      // same turn, the live events follow (none lost or sent twice).
      const scope = { conversationId: conversationId || undefined, tenant };
      void (async () => {
        const stopAt = historyOnly ? (cp.auditPage({ ...scope, newestFirst: true, limit: 1 })[0]?.seq ?? 0) : Number.MAX_SAFE_INTEGER;
        let last = cp.auditHistoryStart(scope.conversationId, tenant);
        for (;;) {
          const page = cp.auditPage({ ...scope, afterSeq: last, beforeSeq: stopAt + 1, limit: LIMITS.auditReplayPageEvents });
          if (page.length === 0) break;
          for (const e of page) if (!(await budget.writeWhenRoom(s.auditView(e)))) return;
          last = page[page.length - 1]?.seq ?? last;
        }
        if (historyOnly) call.end();
        else follow();
      })().catch((err: unknown) => end(asEnclaveError(err)));
    },
    subscribeCards(call: ServerWritableStream<SubscribeCardsRequest, CardEvent>): void {
      let subscription: ReturnType<ControlPlaneApi["subscribeCards"]>;
      let s: TenantScope;
      let space: string | undefined;
      try {
        s = scopeOf(call);
        space = call.request.conversationId ? s.conversationId(call.request.conversationId) : undefined;
      } catch (err) {
        call.emit("error", toServiceError(err));
        return;
      }
      let stop = (): void => undefined;
      const end = (err: EnclaveError): void => {
        stop();
        call.emit("error", toServiceError(err));
      };
      if (!holdStream("subscribe_cards", call, s, end)) return;
      const out = new WriteBudget<CardEvent>(call, (e) => CardEventMessage.encode(e).finish().byteLength, end, LIMITS.streamBufferedBytes.subscribe_cards);
      try {
        subscription = cp.subscribeCards(space, (e) => {
          const card = s.cardView(e.card);
          if (seesCard(s, e.card)) out.write({ event: e.type === "opened" ? { $case: "opened", value: card } : { $case: "closed", value: card } });
        });
      } catch (err) {
        call.emit("error", toServiceError(err));
        return;
      }
      const { unsubscribe } = subscription;
      stop = unsubscribe;
      const openCards = subscription.openCards.filter((c) => seesCard(s, c));
      // What is open now, bounded by the cards there are; the budget is for what follows.
      for (const card of openCards) call.write({ event: { $case: "opened", value: s.cardView(card) } });
      call.write({ event: { $case: "subscribed", value: { openCards: openCards.length } } });
      call.on("cancelled", unsubscribe);
      call.on("close", unsubscribe);
      call.on("error", unsubscribe);
    },
    answerCard: unary((req, s) => s.cardView(cp.answerCard(s.conversationId(req.conversationId), req.number, req.answer))),
    listCards: unary((req, s) => ({
      cards: cp
        .cards(req.conversationId ? s.key(req.conversationId) : undefined, req.includeClosed)
        .filter((c) => seesCard(s, c))
        .map((c) => s.cardView(c)),
    })),
    getCardArguments: unary((req, s) => {
      const page = cp.cardArgumentsPage(s.conversationId(req.conversationId), req.number, req.offset, req.limit);
      return {
        conversationId: s.view(page.card.conversationId),
        number: page.card.number,
        tool: page.card.tool,
        text: page.text,
        offset: page.offset,
        nextOffset: page.nextOffset,
        totalChars: page.totalChars,
      };
    }),
    setVibeMode: unary((req, s) => runMessage(cp, cp.setVibeMode(s.run(req.runId).id, req.enabled), s.viewer)),
    attachCliRun: unary((req, s) =>
      runMessage(
        cp,
        cp.attachCliRun({
          conversationId: s.conversationId(req.conversationId),
          surface: req.surface,
          approvalPolicy: req.approvalPolicy,
          vibeMode: req.vibeMode,
          newRun: req.newRun,
        }),
        s.viewer,
      ),
    ),
    setConversationEgress: unary(async (req, s) => {
      const id = s.conversationId(req.conversationId);
      const allow = egressFrom(req.egress);
      try {
        return conversationMessage(await cp.setConversationEgress(id, allow, s.tenant.name), s.viewer, s.seesHostPaths);
      } catch (err) {
        // A policy past the operator's maximum is audited like a request past the operator's limits.
        const e = asEnclaveError(err);
        if (e.code === "invalid_arguments") {
          refusals.refused(`egress ${s.tenant.name}`, {
            kind: "call_refused",
            tenant: s.tenant.name,
            conversationId: id,
            outcome: `refused:${e.code}`,
            detail: `SetConversationEgress: ${e.message}`,
          });
        }
        throw e;
      }
    }),
    listRuns: unary((req, s) => {
      const key = req.conversationId ? s.conversationId(req.conversationId) : undefined;
      return {
        runs: cp
          .listRuns(key)
          .filter((r) => s.sees(r.tenant))
          .map((r) => runMessage(cp, r, s.viewer)),
      };
    }),
    connectWorkerHost(call: ServerDuplexStream<WorkerHostMessage, WorkerHostCommand>): void {
      const s = streamScope(call);
      if (!s) return;
      let host: { end(err: EnclaveError): void } | undefined;
      if (!holdStream("worker_host", call, s, (err) => host?.end(err))) return;
      host = connectWorkerHost(
        {
          addHost: (h) => cp.addWorkerHost(h),
          removeHost: (h) => cp.removeWorkerHost(h),
          // A host serves (and vibe_list shows it to) the caller's conversations only, whatever it names:
          // a tenant's host its tenant's, an operator's every tenant's (shared, like the built-in host).
          // A name may be of a conversation not made yet (as before tenants); it is in the caller's namespace.
          admit: () => (conversationId) => s.hasConversation(conversationId),
          ids: { toKey: (id) => s.key(id), toView: (key) => s.view(key), seesHostPaths: s.seesHostPaths },
        },
        call,
        toServiceError,
      );
    },
    connectToolHost(call: ServerDuplexStream<ToolHostMessage, ToolHostCommand>): void {
      const s = streamScope(call);
      if (!s) return;
      let host: { end(err: EnclaveError): void } | undefined;
      if (!holdStream("tool_host", call, s, (err) => host?.end(err))) return;
      host = connectToolHost(
        {
          runIdFor: (runId) => s.run(runId).id,
          isEnclaveTool: (name) => cp.isEnclaveTool(name),
          connectToolHost: (host, onRefused) => cp.connectToolHost(host, onRefused),
          disconnectToolHost: (host, why) => cp.disconnectToolHost(host, why),
        },
        call,
        toServiceError,
      );
    },
  };
  return refuseUndecodable(service, (call, why) => {
    // The caller's token is checked first (a refused token is audited as such): an unauthenticated
    // caller learns nothing of its request.
    let s: TenantScope;
    try {
      s = scopeOf(call);
    } catch (err) {
      return err;
    }
    const e = new EnclaveError("invalid_arguments", why);
    refusals.refused(`undecodable ${s.tenant.name}`, {
      kind: "call_refused",
      tenant: s.tenant.name,
      outcome: `refused:${e.code}`,
      detail: `${call.getPath()} from ${call.getPeer()}: ${why}`,
    });
    return e;
  });
}
