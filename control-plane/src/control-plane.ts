// The control plane's façade: conversations, enclosures, runs, tools and the audit log as operations,
// with no transport, over the parts the composition root (compose.ts) builds. The gRPC service, the
// console and the tests drive this class; transports see it as ControlPlaneApi (control-plane-api.ts).
import { existsSync, mkdirSync, rmSync, statSync } from "node:fs";
import { Metadata } from "@grpc/grpc-js";
import { resolve } from "node:path";
import { composeControlPlane, type ControlPlaneParts } from "./compose.js";
import { ApprovalGate } from "./approval/approval-gate.js";
import { type AuditEvent, type AuditInput, AuditLog } from "./audit/audit-log.js";
import { auditInEnclosure } from "./hardening/audit-enclosure.js";
import type { AuditCheck, EnclosureAuditReport } from "./hardening/audit-check.js";
import { egressCheck } from "./hardening/egress-audit.js";
import type { AgentClient } from "./agent-client/agent-client.js";
import { hostChecks } from "./hardening/host-audit.js";
import { SANDBOX_ENV_ALLOWED } from "./placement/host-sandbox.js";
import { sandboxNamespace, sandboxProcesses } from "./placement/sandbox-processes.js";
import type { ControlPlaneConfig } from "./config.js";
import { type ConversationCursor, ConversationStore, IMPLICIT_TENANT } from "./conversations/conversation-store.js";
import { type ConversationRecord, type SleepReason, startedWith } from "./model/conversation.js";
import type { ConversationUsage } from "./model/usage.js";
import { bareId, conversationKey, splitKey } from "./conversations/conversation-keys.js";
import { copyForkWorkspace, type ForkBound, MEMORY_NOT_FORKED } from "./conversations/conversation-fork.js";
import { asEnclaveError, EnclaveError } from "./errors.js";
import { enclosureWhere } from "./placement/docker-driver.js";
import type { DescribeResponse } from "@enclave/proto/gen/enclave/agent/v1/info.js";
import { DockerUnavailableError } from "./placement/docker-connection.js";
import { DockerDriver } from "./placement/docker-driver.js";
import { Engines } from "./placement/engine-choice.js";
import type { AgentEndpoint } from "./placement/agent-endpoint.js";
import type { EnclosureRequest } from "./model/enclosure.js";
import type { EnclosureCaller } from "./placement/image-access.js";
import { HostAgents } from "./placement/host-agents.js";
import { markHostAgentsLost, noteHostAgentStoppedBy, takeHostAgentLoss } from "./placement/host-agent-loss.js";
import { Placements } from "./placement/placements.js";
import { WarmPool, warmPoolSlotRoot } from "./placement/warm-pool.js";
import { RunStore } from "./runs/run-store.js";
import type { OpenRunRequest, Run } from "./model/run.js";
import { StateDb } from "./state/state-db.js";
import { type AttachCliRunRequest, CliRuns } from "./runs/cli-runs.js";
import { type SyncWritesResult, syncWrites } from "./tools/lsp/sync-writes.js";
import { DiagnosticsLedger } from "./tools/lsp/diagnostics-ledger.js";
import type { CallOrigin, Tool, ToolStreamEvent } from "./tools/tool.js";
import { CallFeed, type CallFeedEvent, type CallStarted } from "./tools/call-feed.js";
import { type CallsInFlight, parseCallId } from "./tools/calls-in-flight.js";
import { type CallResult, ToolDispatcher } from "./tools/tool-dispatcher.js";
import { ToolRegistry } from "./tools/tool-registry.js";
import type { ToolHost } from "./toolhost/tool-host.js";
import { ToolHosts } from "./toolhost/tool-hosts.js";
import { type ArgumentsPage, type CardEvent, QuestionPort } from "./questions/question-port.js";
import type { Card, CardAnswer } from "@enclave/proto/gen/enclave/control/v1/control.js";
import type { RemoteWorkerHost } from "./vibe/remote-worker-host.js";
import { VibeRoster } from "./vibe/vibe-roster.js";
import { PendingActionStores } from "./pending/pending-action-store.js";
import { type CustomToolLoadFailure, loadCustomTools } from "./tools/custom/custom-tool-loader.js";
import { type LiveStatusSource, LiveStatusRegistry } from "./status/live-status.js";
import { log, scopeOf } from "./observability/log.js";
import { TenantQuotas } from "./tenants/quotas.js";
import { OpenStreams } from "./streams/open-streams.js";
import { EnclaveMetrics } from "./observability/metrics.js";
import { ConversationSleep } from "./lifecycle/conversation-sleep.js";
import type { IdleSweeper } from "./lifecycle/idle-sweeper.js";
import { type EffectiveLifecycle, effectiveLifecycle, type LifecycleRequest } from "./lifecycle/lifecycle-policy.js";
import { type TenantPause, TenantPauses } from "./tenants/tenant-pauses.js";
import { tenantPausedError } from "./tenants/tenant-pause-refusal.js";
import { checkWithinMaximum, type EgressDestination, type EgressMaximum, formatPolicy } from "./egress/egress-policy.js";
import { EgressProxy } from "./egress/egress-proxy.js";
import { EgressTunnels } from "./egress/egress-tunnels.js";

export type PlacementDescription = DescribeResponse & { agentVersion: string; workspaceRoot: string; agentNodeVersion: string };

async function describeAgent(ep: AgentEndpoint): Promise<PlacementDescription> {
  const [health, described] = await Promise.all([ep.client.health(), ep.client.describe()]);
  return { ...described, agentVersion: health.version, workspaceRoot: health.workspaceRoot, agentNodeVersion: health.nodeVersion };
}

export interface ForkRequest {
  /** The new conversation's bare id, in the source's tenant; generated when empty. */
  id?: string;
  /** Copy the workspace only, even when the source has an enclosure. */
  workspaceOnly?: boolean;
  /** What the copy may take at most (the tenant's maxDiskBytes, or the server's bound). */
  bound: ForkBound;
  /** Who forked it, for the audit log (a tenant's name). */
  by: string;
  /** The source's enclosure options as the fork's start may ask them (the tenant's limits applied now). */
  enclosure?: (asked: EnclosureRequest) => EnclosureRequest;
  caller?: EnclosureCaller;
}

export interface ConversationView extends ConversationRecord {
  placement: "host" | "enclosure";
  openRuns: string[];
  /** "sleeping" while its placement was put to sleep (see lifecycle/), else "active". */
  lifecycleState: "active" | "sleeping";
  /** The idle timeout and maximum lifetime in force (seconds; 0: never). */
  policy: EffectiveLifecycle;
}

/** What PauseTenant and ResumeTenant answer: the pause (if any) and what the pause put to sleep. */
export interface TenantPauseView {
  tenant: string;
  pause?: TenantPause;
  slept: string[];
}

export class ControlPlane {
  readonly conversations: ConversationStore;
  readonly runs: RunStore;
  /** The state database conversations and runs are kept in (see state/state-db.ts). */
  private readonly state: StateDb;
  readonly registry: ToolRegistry;
  readonly gate: ApprovalGate;
  /** Tenants' quotas, one account for every surface (the API and the console take from it alike). */
  readonly quotas: TenantQuotas;
  /** Streams open on the API and the console, per tenant and token (bounded, ended with their token); refusals audited at most once per interval per tenant. */
  readonly streams: OpenStreams;
  readonly pending: PendingActionStores;
  /** Harness tool hosts, one per run at most (ConnectToolHost). */
  readonly toolHosts: ToolHosts;
  readonly audit: AuditLog;
  readonly hostAgents: HostAgents;
  readonly placements: Placements;
  readonly questions: QuestionPort;
  readonly vibe: VibeRoster;
  /** The runs the command line keeps across its calls. */
  readonly cliRuns: CliRuns;
  /** What runs per conversation, for the operator console (capabilities register their own source). */
  readonly liveStatus: LiveStatusRegistry;
  /** Custom tool modules skipped at load, with why: shown by ListTools and the console. */
  readonly customToolFailures: CustomToolLoadFailure[];
  private readonly dispatcher: ToolDispatcher;
  /** What each run has been told about diagnostics (lsp tools, writes, SyncWrites). */
  private readonly ledger: DiagnosticsLedger;
  /** The control plane's private folder (mode 700) for the agents' local sockets; mounted nowhere. */
  readonly socketRoot: string;
  /** What the metrics endpoint serves (see observability/metrics.ts). */
  readonly metrics: EnclaveMetrics;
  /** Tool calls as they start and finish (the console's recent calls, the in-flight gauge). */
  readonly calls: CallFeed;
  /** The calls running now, each cancellable by an operator. */
  private readonly inFlight: CallsInFlight;
  /** The Docker engines enclosures run on (placement/engine-choice.ts), connected on first need. */
  readonly engines: Engines;
  private readonly parts: ControlPlaneParts;
  /** Sleep and wake, and the idle policy's sweeper (see lifecycle/). */
  private readonly sleep: ConversationSleep;

  /** The idle policy's one timer over every conversation (tests drive its passes). */
  get sweeper(): IdleSweeper {
    return this.sleep.sweeper;
  }
  /** Tenants an operator paused (see tenants/tenant-pauses.ts). */
  readonly tenantPauses: TenantPauses;
  /** The egress proxy (the one host process that dials for an enclosure, by policy) and the tunnels its connections come through. */
  readonly egressProxy: EgressProxy;
  readonly egress: EgressTunnels;
  /** Each tenant's operator maximum as configured now; the serve command sets it from the token file (without one: no bound). */
  private egressMaximumOf: (tenant: string) => EgressMaximum = () => undefined;

  /** The parts are built by the composition root (compose.ts); this class is the façade over them. */
  private constructor(readonly config: ControlPlaneConfig) {
    const parts = composeControlPlane(config, {
      isEnclaveTool: (name) => this.isEnclaveTool(name),
      agentRunning: (id) => this.agentRunning(id),
      recordAudit: (input) => this.recordAudit(input),
      openRun: (req) => this.openRun(req),
      closeRun: (id) => this.closeRun(id),
    });
    this.parts = parts;
    this.state = parts.state;
    this.conversations = parts.conversations;
    this.runs = parts.runs;
    this.registry = parts.registry;
    this.gate = parts.gate;
    this.quotas = parts.quotas;
    this.streams = parts.streams;
    this.pending = parts.pending;
    this.toolHosts = parts.toolHosts;
    this.audit = parts.audit;
    this.hostAgents = parts.hostAgents;
    this.placements = parts.placements;
    this.questions = parts.questions;
    this.vibe = parts.vibe;
    this.cliRuns = parts.cliRuns;
    this.liveStatus = parts.liveStatus;
    this.customToolFailures = parts.customToolFailures;
    this.dispatcher = parts.dispatcher;
    this.ledger = parts.ledger;
    this.socketRoot = parts.socketRoot;
    this.metrics = parts.metrics;
    this.calls = parts.calls;
    this.inFlight = parts.inFlight;
    this.engines = parts.engines;
    this.tenantPauses = new TenantPauses(this.state);
    this.sleep = new ConversationSleep(
      {
        conversations: this.conversations,
        placements: this.placements,
        hostAgents: this.hostAgents,
        audit: this.audit,
        openCards: (id) => this.questions.list(id, false).length,
        tenantPaused: (tenant) => this.tenantPauses.get(tenant) !== undefined,
      },
      config.lifecycle,
    );
    // Every use of a placement (a call, a describe, an audit) wakes a sleeping conversation first.
    this.placements.setWaker((id) => this.wakeConversation(id));
    const policyOf = (id: string): EgressDestination[] => (this.conversations.has(id) ? (this.conversations.get(id).egress ?? []) : []);
    this.egressProxy = new EgressProxy({
      policyOf,
      maximumOf: (tenant) => this.egressMaximumOf(tenant),
      record: (input) => this.audit.record(input),
    });
    this.egress = new EgressTunnels(
      this.egressProxy,
      (id) => policyOf(id).length > 0,
      (id) => {
        const conv = this.conversations.get(id);
        return { conversationId: id, tenant: conv.tenant, placement: conv.enclosure ? enclosureWhere(conv.enclosure) : "host" };
      },
    );
    this.placements.onAgent = (id, client) => this.egress.follow(id, client);
  }

  /** Where each tenant's operator maximum comes from now (the token file the API authenticates with). */
  setEgressMaximumSource(maximumOf: (tenant: string) => EgressMaximum): void {
    this.egressMaximumOf = maximumOf;
  }

  /** A tenant's operator egress maximum now (undefined: no bound, a control plane without tokens). */
  egressMaximum(tenant: string): EgressMaximum {
    return this.egressMaximumOf(tenant);
  }

  /**
   * Replaces a conversation's egress policy (already checked by checkPolicy) after checking it against
   * its tenant's maximum; its agent's listener follows at once (opened, or closed when empty).
   */
  async setConversationEgress(id: string, egress: EgressDestination[], by: string): Promise<ConversationView> {
    const conv = this.conversations.get(id);
    checkWithinMaximum(egress, this.egressMaximumOf(conv.tenant), conv.tenant);
    const next: ConversationRecord = { ...conv };
    if (egress.length) next.egress = egress;
    else delete next.egress;
    this.conversations.put(next);
    this.audit.record({ kind: "egress_policy", conversationId: id, tenant: conv.tenant, detail: `set by tenant ${by}: ${formatPolicy(egress)}` });
    // A narrowed policy holds for connections already open too, not only the next request.
    this.egressProxy.recheck();
    await this.egress.follow(id, (await this.placements.running(id).catch(() => undefined))?.client);
    return this.view(next);
  }

  /** The warm pool, once an engine was connected (empty unless ENCLAVE_WARM_POOL_SIZE > 0). */
  get warmPool(): WarmPool | undefined {
    return this.parts.warmPool;
  }

  static async start(config: ControlPlaneConfig): Promise<ControlPlane> {
    const cp = new ControlPlane(config);
    const lost = markHostAgentsLost(cp.conversations);
    if (lost > 0)
      process.stderr.write(
        `control plane: ${lost} conversation(s) had a host agent running when the control plane went away; their kernels are gone and their next call says so\n`,
      );
    if (config.customToolsDir) await cp.loadCustomTools(config.customToolsDir);
    try {
      await cp.placements.recover();
    } catch (err) {
      if (!(err instanceof DockerUnavailableError || err instanceof EnclaveError)) throw err;
      // Enclosures recorded before a restart stay as recorded; calls will say what is wrong.
      log().warn(`cannot recover recorded enclosures (${err.message}); their deaths are not watched until one of them is next used`);
    }
    if (config.warmPool.size > 0 || existsSync(warmPoolSlotRoot(config.dataDir))) await cp.startWarmPool();
    cp.sleep.sweeper.start();
    return cp;
  }

  /** Sweeps what a previous run left of the pool, then fills it in the background. */
  private async startWarmPool(): Promise<void> {
    try {
      await this.dockerDriver();
      const recorded = this.conversations.list().flatMap((c) => (c.enclosure ? [c.enclosure] : []));
      await this.warmPool?.sweepLeftovers({
        containers: new Set(recorded.map((e) => e.containerId)),
        slots: new Set(recorded.flatMap((e) => (e.pool?.slot ? [e.pool.slot] : []))),
      });
      this.warmPool?.fill();
    } catch (err) {
      log().warn(`the warm pool is not started (${(err as Error).message}); enclosures start cold`);
    }
  }

  /** The default engine's driver, connected on first need: host placement never needs an engine. */
  dockerDriver(): Promise<DockerDriver> {
    return this.engines.driver();
  }

  /**
   * Registers every custom tool in the folder (see tools/custom/custom-tool-types.ts). A module that
   * fails to load, returns an invalid tool or reuses a registered name is skipped and reported (on
   * stderr, in ListTools and on the console); the others load.
   */
  async loadCustomTools(dir: string): Promise<{ loaded: string[]; failures: CustomToolLoadFailure[] }> {
    const { tools, failures } = await loadCustomTools(dir, { taken: (name) => this.registry.all().some((t) => t.name === name) });
    for (const t of tools) this.registry.register(t);
    for (const f of failures) log().warn({ module: f.file }, `custom tool module ${f.file} skipped: ${f.reason}`);
    this.customToolFailures.push(...failures);
    return { loaded: tools.map((t) => t.name), failures };
  }

  /** "resolve" while the run has a staged change pending, else "". */
  requiredNextTool(runId: string): string {
    return this.pending.forRun(this.runs.get(runId))?.hasPending ? "resolve" : "";
  }

  view(conv: ConversationRecord): ConversationView {
    const sleep = conv.lifecycle?.sleep;
    return {
      ...conv,
      placement: conv.enclosure || sleep?.placement === "enclosure" ? "enclosure" : "host",
      openRuns: this.runs.forConversation(conv.id).map((r) => r.id),
      lifecycleState: sleep ? "sleeping" : "active",
      policy: effectiveLifecycle(conv, this.config.lifecycle),
    };
  }

  /**
   * `id`: bare, in the namespace of `tenant` (the implicit tenant when none is given); the record
   * and everything after it know the conversation by its key (see conversations/conversation-keys.ts).
   */
  /** `spare: false` takes no spare host agent (the tenant is at its hostAgents or kernels quota). */
  createConversation(req: {
    id?: string;
    workspacePath?: string;
    tenant?: string;
    spare?: boolean;
    lifecycle?: LifecycleRequest;
    egress?: EgressDestination[];
  }): ConversationView {
    const tenant = req.tenant || IMPLICIT_TENANT;
    if (req.egress?.length) checkWithinMaximum(req.egress, this.egressMaximumOf(tenant), tenant);
    const bare = req.id || this.conversations.newId();
    this.conversations.checkId(bare);
    const id = conversationKey(tenant, bare);
    if (this.conversations.has(id) || this.forking.has(id)) throw new EnclaveError("already_exists", `conversation \`${bare}\` already exists`);
    let workspacePath: string;
    let ownsWorkspace = false;
    if (req.workspacePath) {
      workspacePath = resolve(req.workspacePath);
      if (!existsSync(workspacePath) || !statSync(workspacePath).isDirectory()) {
        throw new EnclaveError("invalid_arguments", `workspace_path ${workspacePath} is not an existing folder`);
      }
    } else {
      workspacePath = this.conversations.workspaceFor(id);
      // A spare host agent, when one is ready, brings the (empty) folder with it.
      // Not with an egress policy: the spare's kernel started before the egress listener, without the proxy's variables.
      const spare = req.spare !== false && !req.egress?.length;
      if (!spare || !this.hostAgents.adopt(id, workspacePath)) mkdirSync(workspacePath, { recursive: true });
      ownsWorkspace = true;
    }
    const conv: ConversationRecord = {
      id,
      workspacePath,
      ownsWorkspace,
      createdAtMs: Date.now(),
      tenant,
      ...(req.egress?.length ? { egress: req.egress } : {}),
    };
    const own = lifecycleValues(req.lifecycle);
    if (own) conv.lifecycle = own;
    try {
      this.conversations.put(conv);
    } catch (err) {
      // Nothing of it stays: a spare agent it took, that agent's state folder, the folder made for it.
      void this.hostAgents.stop(id).then(() => {
        this.hostAgents.forget(id);
        if (ownsWorkspace) rmSync(workspacePath, { recursive: true, force: true });
      });
      throw err;
    }
    // A token tenant reads its audit trail and is told no host path (see TenantScope.seesHostPaths).
    this.audit.record({ kind: "conversation_created", conversationId: id, detail: tenant === IMPLICIT_TENANT ? workspacePath : "" });
    if (conv.egress)
      this.audit.record({ kind: "egress_policy", conversationId: id, tenant, detail: `set at creation by tenant ${tenant}: ${formatPolicy(conv.egress)}` });
    return this.view(conv);
  }

  /** New ids being forked into: taken from the moment a fork starts copying, so two forks cannot both make one. */
  private readonly forking = new Set<string>();

  /**
   * A new conversation of the source's tenant (see conversations/conversation-fork.ts): a copy of its
   * workspace and, when it has an enclosure and `workspaceOnly` is not set, a new enclosure started
   * with the same options. Memory is not forked. Nothing of a fork that fails stays.
   */
  async forkConversation(sourceId: string, req: ForkRequest): Promise<ConversationView> {
    const src = this.conversations.get(sourceId);
    const tenant = src.tenant;
    const bare = req.id || this.conversations.newId();
    this.conversations.checkId(bare);
    const id = conversationKey(tenant, bare);
    if (this.conversations.has(id) || this.forking.has(id)) throw new EnclaveError("already_exists", `conversation \`${bare}\` already exists`);
    // A source asleep with its enclosure stopped still has the options its wake would start again.
    const srcRequest = req.workspaceOnly
      ? undefined
      : src.enclosure
        ? startedWith(src.enclosure)
        : src.lifecycle?.sleep?.enclosure
          ? { ...src.lifecycle.sleep.enclosure.request }
          : undefined;
    const enclosureRequest = srcRequest ? (req.enclosure ?? ((r: EnclosureRequest) => r))(srcRequest) : undefined;
    // The source's egress policy goes with it, within the tenant's maximum as it is now.
    if (src.egress?.length) checkWithinMaximum(src.egress, this.egressMaximumOf(tenant), tenant);
    this.forking.add(id);
    const workspacePath = this.conversations.workspaceFor(id);
    let recorded = false;
    try {
      mkdirSync(workspacePath, { recursive: true, mode: 0o755 });
      const started = Date.now();
      const copy = await copyForkWorkspace(src, workspacePath, req.bound, (enc) => this.engines.driver(enc.engine));
      const conv: ConversationRecord = {
        id,
        workspacePath,
        ownsWorkspace: true,
        createdAtMs: Date.now(),
        tenant,
        forkedFrom: src.id,
        notCopiedBack: [...copy.notCopied, MEMORY_NOT_FORKED],
        ...(src.egress?.length ? { egress: src.egress.map((d) => ({ ...d, ports: [...d.ports] })) } : {}),
      };
      const own = lifecycleValues(src.lifecycle);
      if (own) conv.lifecycle = own;
      this.conversations.put(conv);
      recorded = true;
      this.audit.record({
        kind: "conversation_forked",
        conversationId: id,
        tenant,
        detail:
          `forked from \`${bareId(src.id)}\` by ${req.by}: ${copy.files} files, ${copy.bytes} bytes copied from ${copy.from} in ${Date.now() - started} ms` +
          (copy.notCopied.length ? `; not copied: ${copy.notCopied.join("; ")}` : "") +
          (enclosureRequest ? "; a new enclosure is started with the source's options" : "; served on the host (only the workspace is forked)"),
      });
      if (enclosureRequest) {
        await this.placements.start(id, enclosureRequest, req.caller ?? { operator: false });
        const enc = this.conversations.get(id).enclosure;
        if (enc) {
          enc.notes = [
            ...(enc.notes ?? []),
            `forked from \`${bareId(src.id)}\`: the workspace was copied; memory was not (kernels and language servers start fresh)`,
          ];
          this.conversations.put(this.conversations.get(id));
        }
      }
      return this.view(this.conversations.get(id));
    } catch (err) {
      if (recorded) await this.deleteConversation(id).catch(() => undefined);
      else rmSync(workspacePath, { recursive: true, force: true });
      throw err;
    } finally {
      this.forking.delete(id);
    }
  }

  getConversation(id: string): ConversationView {
    return this.view(this.conversations.get(id));
  }

  /** What the conversation costs now (usage/conversation-usage.ts): measured, nothing started for it. */
  conversationUsage(id: string): Promise<ConversationUsage> {
    return this.parts.usage.read(this.conversations.get(id));
  }

  listConversations(): ConversationView[] {
    return this.conversations.list().map((c) => this.view(c));
  }

  /**
   * One page of the conversations whose tenant `sees` keeps, after `after` (from the first without),
   * in the list's order (creation time, then key); `more` when another follows. Only the page's
   * records are viewed, so a page costs its size, not the number of conversations.
   */
  conversationPage(after: ConversationCursor | undefined, size: number, sees: (tenant: string) => boolean): { page: ConversationView[]; more: boolean } {
    const { page, more } = this.conversations.page(after, size, (c) => sees(c.tenant));
    return { page: page.map((c) => this.view(c)), more };
  }

  /**
   * The tenant's enclosures running or starting, the conversation `except` aside (the one being
   * started). One asleep counts too: its next call starts it again without asking the quota, so its
   * slot stays taken until it is stopped.
   */
  liveEnclosures(tenant: string, except: string): number {
    const live = (c: ConversationRecord): boolean =>
      c.enclosure?.state === "running" ||
      c.enclosure?.state === "starting" ||
      // A paused enclosure keeps its container and checkpoint, and a sleeping one its options: any
      // call resumes or restarts it, so neither may make room for more than the tenant's quota.
      c.enclosure?.state === "paused" ||
      c.lifecycle?.sleep?.placement === "enclosure";
    return this.conversations.list().filter((c) => c.tenant === tenant && c.id !== except && live(c)).length;
  }

  async deleteConversation(id: string): Promise<void> {
    await this.sleep.settled(id);
    const conv = this.conversations.get(id);
    this.sleep.sweeper.forget(id);
    this.egress.close(id);
    // Workers first, while their placement still answers: they get SIGTERM and a grace, not a cut.
    await this.vibe.forget(id);
    // A workspace deleted with the conversation needs no copy back.
    if (conv.enclosure) await this.placements.stop(id, { force: conv.ownsWorkspace });
    await this.placements.removeBuiltImages(id);
    await this.hostAgents.stop(id);
    this.hostAgents.forget(id);
    this.placements.forget(id);
    for (const r of this.runs.forConversation(id)) this.questions.cancelRun(r.id);
    this.questions.forget(id);
    for (const r of this.runs.forConversation(id)) this.pending.drop(r.id);
    for (const r of this.runs.forConversation(id)) this.toolHosts.closeRun(r.id);
    this.runs.closeConversation(id);
    this.conversations.delete(id);
    if (conv.ownsWorkspace) rmSync(conv.workspacePath, { recursive: true, force: true });
    this.audit.record({ kind: "conversation_deleted", conversationId: id, tenant: conv.tenant });
  }

  /** `caller` decides which images the start may name (placement/image-access.ts); a plain tenant's unless said. */
  async startEnclosure(id: string, req: EnclosureRequest, caller: EnclosureCaller = { operator: false }): Promise<ConversationView> {
    await this.sleep.settled(id);
    // A start replaces what sleeps: the new enclosure's options are the ones kept from now on.
    this.sleep.dropSleep(id, "an enclosure was started");
    const view = this.view(await this.placements.start(id, req, caller));
    // The listener is up before the start returns: a cell run next finds the proxy's variables set.
    if (view.egress?.length) await this.placements.endpoint(id).catch(() => undefined);
    return view;
  }

  async stopEnclosure(id: string, opts: { force?: boolean } = {}): Promise<ConversationView> {
    await this.sleep.settled(id);
    this.egress.close(id);
    const conv = this.conversations.get(id);
    if (!conv.enclosure && conv.lifecycle?.sleep?.placement === "enclosure") {
      // Its container is already gone: the stop forgets its options, and the conversation continues on the host.
      this.sleep.dropSleep(id, "its enclosure was stopped while asleep");
      this.audit.record({
        kind: "enclosure_stopped",
        conversationId: id,
        placement: "enclosure (asleep)",
        detail: "stopped while asleep: its options are forgotten; calls go to the host",
      });
      return this.view(conv);
    }
    const stopped = await this.placements.stop(id, opts);
    // A sleep with memory kept a paused enclosure: stopped, it has nothing left to wake.
    if (stopped.lifecycle?.sleep) this.sleep.dropSleep(id, "its paused enclosure was stopped while asleep");
    return this.view(this.conversations.get(id));
  }

  // The idle policy: sleep and wake (see lifecycle/).

  /** The conversation's own idle timeout and maximum lifetime (0: the server's default); checked against its tenant's maxima by the caller. */
  setConversationLifecycle(id: string, req: LifecycleRequest): ConversationView {
    const conv = this.conversations.get(id);
    const own = lifecycleValues(req);
    const sleep = conv.lifecycle?.sleep;
    conv.lifecycle = { ...own, ...(sleep ? { sleep } : {}) };
    if (!own && !sleep) delete conv.lifecycle;
    this.conversations.put(conv);
    this.sleep.sweeper.touch(id);
    return this.view(conv);
  }

  /**
   * Puts the conversation's placement to sleep (lifecycle/conversation-sleep.ts): a checkpoint under
   * runsc, a stop elsewhere; the workspace stays. A conversation with nothing running is left as it is.
   */
  async sleepConversation(id: string, reason: SleepReason): Promise<ConversationView> {
    return this.view(await this.sleep.sleep(id, reason));
  }

  /** Wakes a sleeping conversation before its placement is used (a failed wake leaves it asleep and says why). */
  wakeConversation(id: string): Promise<void> {
    return this.sleep.wake(id);
  }

  // Paused tenants (an operator's action): their calls are refused, their placements put to sleep.

  tenantPause(tenant: string): TenantPause | undefined {
    return this.tenantPauses.get(tenant);
  }

  pausedTenants(): TenantPause[] {
    return this.tenantPauses.list();
  }

  /** Pauses the tenant and puts every placement of it to sleep now (calls in flight are cut, open cards withdrawn). */
  async pauseTenant(tenant: string, by: string, reason: string): Promise<TenantPauseView> {
    const conversations = this.conversations.list().filter((c) => c.tenant === tenant);
    // Asleep before the pause (the sweeper may put the others to sleep while this runs: they count as this pause's).
    const asleep = new Set(conversations.filter((c) => c.lifecycle?.sleep).map((c) => c.id));
    const pause = this.tenantPauses.pause(tenant, by, reason);
    this.audit.record({ kind: "tenant_paused", tenant, outcome: "ok", detail: `paused by ${by}${reason ? `: ${reason}` : ""}` });
    // Its open streams (audit, cards, tool sessions) end too: every call of it is refused from now.
    this.streams.endTenant(tenant, tenantPausedError(tenant, pause));
    const slept: string[] = [];
    for (const conv of conversations) {
      for (const r of this.runs.forConversation(conv.id)) this.questions.cancelRun(r.id);
      const after = await this.sleepConversation(conv.id, "tenant_paused").catch((err: unknown) => {
        log().warn(scopeOf({ conversationId: conv.id }), `conversation ${conv.id} could not be put to sleep for its tenant's pause: ${(err as Error).message}`);
        return undefined;
      });
      if (!asleep.has(conv.id) && after?.lifecycle?.sleep) slept.push(conv.id);
    }
    return { tenant, pause, slept };
  }

  resumeTenant(tenant: string, by: string): TenantPauseView {
    const ended = this.tenantPauses.resume(tenant);
    this.audit.record({
      kind: "tenant_resumed",
      tenant,
      outcome: ended ? "ok" : "not_paused",
      detail: `resumed by ${by}${ended ? ` (paused ${new Date(ended.pausedAtMs).toISOString()} by ${ended.pausedBy})` : " (it was not paused)"}`,
    });
    return { tenant, slept: [] };
  }

  /**
   * Pauses the conversation's enclosure with its memory (runsc): see Placements.pause. `by` names who
   * asked, for the audit (a tenant, an operator, the idle policy).
   */
  async pauseEnclosure(id: string, opts: { by: string }): Promise<ConversationView> {
    // A call in flight (a cell running counts) would lose its answer with the agent channel: refused,
    // not cut. A call that starts during the pause waits for it, then resumes the enclosure.
    const busy = this.runs.forConversation(id).filter((r) => r.callsInFlight > 0);
    const enc = this.conversations.get(id).enclosure;
    if (busy.length && enc?.state === "running") {
      const calls = busy.reduce((n, r) => n + r.callsInFlight, 0);
      const e = new EnclaveError(
        "failed_precondition",
        `conversation \`${id}\` has ${calls} call${calls === 1 ? "" : "s"} in flight (run ${busy.map((r) => r.id).join(", ")}); ` +
          "a pause would cut their answers: pause once they are answered, or cancel them",
      );
      this.audit.record({
        kind: "enclosure_paused",
        conversationId: id,
        placement: enclosureWhere(enc),
        outcome: `error:${e.code}`,
        detail: `by ${opts.by}: ${e.message}`,
      });
      throw e;
    }
    try {
      return this.view(await this.placements.pause(id, opts.by));
    } catch (err) {
      // A runtime that cannot keep memory (runc) falls back to a sleep: stopped, its options kept, and
      // the conversation's sleep record says the memory was not kept.
      if (asEnclaveError(err).code !== "checkpoint_unsupported") throw err;
      return this.sleepConversation(id, "pause");
    }
  }

  /** Resumes a paused enclosure from its checkpoint: see Placements.resume. */
  async resumeEnclosure(id: string, opts: { by: string }): Promise<ConversationView> {
    return this.view(await this.placements.resume(id, opts.by));
  }

  async describePlacement(id: string): Promise<PlacementDescription> {
    return describeAgent(await this.placements.endpoint(id));
  }

  /** What the conversation's agent can run, asked only of one already running: starts nothing (undefined when none runs). */
  async describeRunningPlacement(id: string): Promise<PlacementDescription | undefined> {
    const ep = await this.placements.running(id);
    return ep ? describeAgent(ep) : undefined;
  }

  /**
   * Starts the conversation's host agent now, an explicit operator action (tool calls start it on
   * their own); refused while an enclosure serves the conversation. Returns the agent's pid.
   */
  async startHostAgent(id: string): Promise<number | undefined> {
    const conv = this.conversations.get(id);
    if (conv.enclosure) {
      throw new EnclaveError(
        "failed_precondition",
        `conversation \`${id}\` runs in an enclosure; its agent starts and stops with the enclosure, not on the host`,
      );
    }
    await this.placements.endpoint(id);
    return this.hostAgents.pid(id);
  }

  /** The egress audit: the enclosure's hardening from outside and inside, and the bridge calls. */
  async auditEnclosure(id: string): Promise<EnclosureAuditReport> {
    const conv = this.conversations.get(id);
    const history = this.audit.history(id);
    const bridgeCalls = history.filter((e) => e.kind === "tool_call" && e.origin === "bridge");
    const egressRequests = history.filter((e) => e.kind === "egress");
    const enc = conv.enclosure;
    const base = { conversationId: id, bridgeCalls, egressRequests, timeMs: Date.now() };
    const egress = async (client: AgentClient | undefined): Promise<AuditCheck> =>
      egressCheck({
        policy: conv.egress ?? [],
        maximum: this.egressMaximumOf(conv.tenant),
        listenerPort: this.egress.listening(id),
        probe: async (host, port) => {
          if (!client) return { listening: false, statusLine: "" };
          return await new Promise((resolve, reject) =>
            client.egress.egressProbe({ host, port }, new Metadata(), client.options(30_000), (err, res) => (err ? reject(err) : resolve(res))),
          );
        },
        proxyOutcome: (destination, sinceMs) =>
          this.audit
            .history(id)
            .filter((e) => e.kind === "egress" && e.tool === destination && e.timeMs >= sinceMs)
            .at(-1)?.outcome,
      });
    if (!enc) {
      // Host placement: the running sandbox, read from the host; nothing is started to audit it.
      const target = this.hostAgents.auditTarget(id);
      const relaxations = [
        ...(this.config.hostSandbox.network ? ["host network shared (ENCLAVE_HOST_NETWORK=on)"] : []),
        ...(this.config.hostSandbox.cgroups ? [] : ["no cgroup bounds the sandbox (ENCLAVE_HOST_CGROUPS=off)"]),
      ];
      const checks = target
        ? [
            ...hostChecks({ ...target, allowedEnv: SANDBOX_ENV_ALLOWED, processes: { namespaceOf: sandboxNamespace, processesIn: sandboxProcesses } }),
            await egress(this.hostAgents.running(id)?.client),
          ]
        : [];
      return {
        ...base,
        placement: "host",
        containerId: "",
        image: "",
        runtime: "",
        relaxations,
        checks,
        passed: checks.length > 0 && checks.every((c) => c.ok),
      };
    }
    // Through the placement, so a dead enclosure is reported as such rather than audited.
    const ep = await this.placements.endpoint(id);
    const checks = await auditInEnclosure(id, enc, await this.engines.driver(enc.engine), ep.client, this.egress.listening(id));
    checks.push(await egress(ep.client));
    return {
      ...base,
      placement: "enclosure",
      containerId: enc.containerId,
      image: enc.image,
      runtime: enc.runtime,
      relaxations: enc.relaxations,
      checks,
      passed: checks.every((c) => c.ok),
    };
  }

  openRun(req: OpenRunRequest): Run {
    const conv = this.conversations.get(req.conversationId);
    // Another tenant's conversation is no target, exactly as a missing one.
    const target = req.targetSpace && this.conversations.has(req.targetSpace) ? this.conversations.get(req.targetSpace) : undefined;
    if (req.targetSpace && target?.tenant !== conv.tenant) {
      throw new EnclaveError(
        "not_found",
        `target_space \`${splitKey(req.targetSpace).id}\` is not a conversation; create it first or leave target_space empty`,
      );
    }
    return this.runs.open({ ...req, tenant: conv.tenant });
  }

  /** The command line's kept run for a (conversation, surface); see runs/cli-runs.ts. */
  attachCliRun(req: AttachCliRunRequest): Run {
    return this.cliRuns.attach(req);
  }

  /** Open runs, every conversation's without an id (the conversation must exist when named). */
  listRuns(conversationId?: string): Run[] {
    if (conversationId) this.conversations.get(conversationId);
    return this.runs.list(conversationId || undefined);
  }

  /** Staged changes awaiting resolve in a run. */
  pendingCount(run: Run): number {
    return this.pending.forRun(run)?.list().length ?? 0;
  }

  // The operator's hands (the transports check that the caller is an operator; `by` names who, as
  // the audit log names callers). Each is recorded as an operator_action event of the conversation's tenant.

  private recordOperatorAction(action: string, conversationId: string, by: string, detail: string): void {
    const tenant = this.conversations.has(conversationId) ? this.conversations.get(conversationId).tenant : undefined;
    this.audit.record({ kind: "operator_action", tool: action, conversationId, tenant, outcome: "ok", detail: `by ${by}: ${detail}`.slice(0, 500) });
  }

  /** The tool calls in flight now (every conversation's, or one's), oldest first. */
  listCallsInFlight(conversationId?: string): (CallStarted & { tenant: string })[] {
    if (conversationId) this.conversations.get(conversationId);
    return this.inFlight
      .list()
      .filter((c) => !conversationId || c.conversationId === conversationId)
      .map((c) => ({ ...c, tenant: this.conversations.has(c.conversationId) ? this.conversations.get(c.conversationId).tenant : "" }));
  }

  /** The call in flight with this id (as ListCallsInFlight gives it); not_found when none is. */
  callInFlight(callId: string): CallStarted & { tenant: string } {
    const call = this.inFlight.get(parseCallId(callId));
    return { ...call, tenant: this.conversations.has(call.conversationId) ? this.conversations.get(call.conversationId).tenant : "" };
  }

  /** Cancels a call in flight: its caller is answered `cancelled`, naming `by`. */
  cancelCall(callId: string, by: string): CallStarted & { tenant: string } {
    const call = this.callInFlight(callId);
    this.inFlight.cancel(call.callId, { who: by });
    this.recordOperatorAction("cancel_call", call.conversationId, by, `cancelled call ${call.callId} (${call.tool}, run ${call.runId})`);
    return call;
  }

  /**
   * Kills one kernel of the conversation's running agent (by id, or a language's); nothing is
   * started to do it. not_found when no agent runs or no such kernel is alive.
   */
  async stopKernel(id: string, kernel: { kernelId?: string; language?: string }, by: string): Promise<{ kernelId: string; language: string; pid: number }> {
    const named = kernel.kernelId || kernel.language || "";
    if (!named || (kernel.kernelId && kernel.language)) {
      throw new EnclaveError("invalid_arguments", "name the kernel by kernel_id or by language (python or javascript), one of the two");
    }
    if (kernel.language && kernel.language !== "python" && kernel.language !== "javascript") {
      throw new EnclaveError("invalid_arguments", `language \`${kernel.language.slice(0, 40)}\` is not one of python, javascript`);
    }
    if (kernel.kernelId && !/^[A-Za-z0-9_.:-]{1,80}$/.test(kernel.kernelId)) {
      throw new EnclaveError("invalid_arguments", `kernel_id \`${kernel.kernelId.slice(0, 40)}\` is not a kernel id`);
    }
    this.conversations.get(id);
    const ep = await this.placements.running(id);
    if (!ep) throw new EnclaveError("not_found", `no agent runs for conversation \`${splitKey(id).id}\`, so no kernel of it is alive`);
    let stopped;
    try {
      stopped = await ep.client.stopKernel({ kernelId: named, reason: `was stopped by an operator (${by})` });
    } catch (err) {
      if (err instanceof EnclaveError && err.code === "not_found")
        throw new EnclaveError("not_found", `no kernel \`${named}\` is alive in conversation \`${splitKey(id).id}\``);
      throw err;
    }
    const info = { kernelId: stopped.info?.kernelId ?? "", language: stopped.info?.language ?? "", pid: stopped.info?.pid ?? 0 };
    this.recordOperatorAction("stop_kernel", id, by, `stopped the ${info.language} kernel ${info.kernelId} (pid ${info.pid})`);
    return info;
  }

  /**
   * Stops the conversation's host agent (its kernels, language servers and debug sessions end); the
   * next call starts a new one and says an operator stopped the previous one. failed_precondition
   * when an enclosure serves the conversation or no host agent runs.
   */
  async stopHostAgent(id: string, by: string): Promise<{ pid: number }> {
    const conv = this.conversations.get(id);
    if (conv.enclosure) {
      throw new EnclaveError("failed_precondition", `conversation \`${splitKey(id).id}\` runs in an enclosure; stop the enclosure instead`);
    }
    const pid = this.hostAgents.pid(id);
    if (pid === undefined) throw new EnclaveError("failed_precondition", `no host agent runs for conversation \`${splitKey(id).id}\``);
    await this.hostAgents.stop(id);
    noteHostAgentStoppedBy(this.conversations, id, by);
    this.recordOperatorAction("stop_host_agent", id, by, `stopped the host agent (pid ${pid})`);
    return { pid };
  }

  /** Closing a run withdraws its open cards; its vibe workers keep running (they belong to the conversation). */
  closeRun(id: string): void {
    this.runs.get(id);
    this.runs.close(id);
    this.questions.cancelRun(id);
    this.pending.drop(id);
    this.toolHosts.closeRun(id);
  }

  setVibeMode(runId: string, enabled: boolean): Run {
    return this.runs.setVibeMode(runId, enabled);
  }

  /** The run's tools; `resolve` is hidden while nothing is pending (it can still be called, and says so). */
  listTools(runId: string): Tool[] {
    const run = this.runs.get(runId);
    const pending = this.pending.forRun(run)?.hasPending ?? false;
    return this.registry.visible(run).filter((t) => t.name !== "resolve" || pending);
  }

  /** Diagnostics for files the harness wrote itself, against the run's own ledger (see tools/lsp/sync-writes.ts). */
  syncWrites(runId: string, paths: readonly string[], opts: { beforeWrite?: boolean } = {}): Promise<SyncWritesResult> {
    const run = this.runs.get(runId);
    return syncWrites(run, paths, () => this.placements.endpoint(run.conversationId), this.ledger, opts);
  }

  callTool(
    runId: string,
    tool: string,
    argumentsJson: string,
    opts: { origin?: CallOrigin; emit?: (e: ToolStreamEvent) => void; signal?: AbortSignal; notUtf8?: boolean } = {},
  ): Promise<CallResult> {
    const run = this.runs.get(runId);
    // In flight, a run is in use however long the call takes (a CLI run's idle time starts after it).
    run.callsInFlight++;
    run.lastUsedMs = Date.now();
    // ...and its conversation is not idle (see lifecycle/idle-sweeper.ts).
    const leave = this.sleep.sweeper.enter(run.conversationId);
    const id = run.conversationId;
    // Taken once the call ran: a wake (in the call) that failed leaves the conversation asleep and the notice kept.
    const lossNotice = (): string | undefined =>
      this.conversations.has(id) && this.conversations.get(id).lifecycle?.sleep ? undefined : takeHostAgentLoss(this.conversations, this.audit, id);
    const restartLoss = this.conversations.get(id).hostAgentLost?.slept ? undefined : lossNotice();
    return this.dispatcher
      .call({ run, tool, argumentsJson, origin: opts.origin ?? "model", emit: opts.emit, signal: opts.signal, notUtf8: opts.notUtf8 })
      .then((result) => {
        const lost = restartLoss ?? lossNotice();
        return lost ? { ...result, parts: [{ type: "text" as const, text: lost }, ...result.parts] } : result;
      })
      .finally(() => {
        run.callsInFlight--;
        run.lastUsedMs = Date.now();
        leave();
      });
  }

  // What the console and the gRPC service read and do, so neither reaches into the parts above.

  /** Whether the conversation's agent runs now (its enclosure, or its host agent); asks nothing, starts nothing. */
  runIdFor(runId: string): string {
    return this.runs.get(runId).id;
  }

  isEnclaveTool(name: string): boolean {
    return this.registry.all().some((t) => t.name === name);
  }

  connectToolHost(host: ToolHost, onRefused: (why: string) => void): void {
    this.toolHosts.connect(host, onRefused);
  }

  disconnectToolHost(host: ToolHost, why: string): void {
    this.toolHosts.disconnected(host, why);
  }

  agentRunning(id: string): boolean {
    const conv = this.conversations.get(id);
    return conv.enclosure?.state === "running" || this.hostAgents.pid(id) !== undefined;
  }

  /** The tenant's conversations served by a running host agent (none of them an enclosure's), the conversation `except` aside. */
  liveHostAgents(tenant: string, except: string): number {
    return this.hostAgents.runningIds().filter((id) => {
      if (id === except || !this.conversations.has(id)) return false;
      const c = this.conversations.get(id);
      return c.tenant === tenant && !c.enclosure;
    }).length;
  }

  /** The tenant's conversations whose placement runs now (a host agent, or an enclosure running): no view made, no agent asked. */
  runningConversations(tenant: string): string[] {
    const agents = new Set(this.hostAgents.runningIds());
    return this.conversations
      .list()
      .filter((c) => c.tenant === tenant && (c.enclosure?.state === "running" || agents.has(c.id)))
      .map((c) => c.id);
  }

  /** The pid of the conversation's running host agent (the sandbox's pid as the host sees it). */
  hostAgentPid(id: string): number | undefined {
    return this.hostAgents.pid(id);
  }

  /** How many spare host agents are ready to be taken now. */
  hostSparesReady(): number {
    return this.hostAgents.spareCount();
  }

  /** The limits an enclosure gets when its request names none. */
  enclosureDefaults(): { memoryBytes: number; cpus: number; pids: number; diskBytes: number; copyBackMaxBytes: number } {
    const e = this.config.enclosure;
    return { memoryBytes: e.memoryBytes, cpus: e.cpus, pids: e.pidsLimit, diskBytes: e.diskBytes, copyBackMaxBytes: e.copyBackMaxBytes };
  }

  /** Every registered tool's name, custom tools included. */
  toolNames(): string[] {
    return this.registry.all().map((t) => t.name);
  }

  /** Whether a run is its command line's current run, and when its idle time runs out (0: never). */
  cliRunState(run: Run): { current: boolean; idleExpiresAtMs: number } {
    return { current: this.cliRuns.isCurrent(run), idleExpiresAtMs: this.cliRuns.idleExpiresAtMs(run) };
  }

  /** The conversation's vibe workers still running. */
  runningWorkerCount(id: string): number {
    return this.vibe.list(id).filter((w) => w.state === "running").length;
  }

  /** A harness-side worker host joins the roster (and leaves it when its stream ends). */
  addWorkerHost(host: RemoteWorkerHost): void {
    this.vibe.addHost(host);
  }

  removeWorkerHost(host: RemoteWorkerHost): void {
    this.vibe.removeHost(host);
  }

  /** The sources of what runs per conversation, for the operator console. */
  liveStatusSources(): LiveStatusSource[] {
    return this.liveStatus.all();
  }

  /** Cards of one conversation (or all), open ones only unless includeClosed. */
  cards(space: string | undefined, includeClosed: boolean): Card[] {
    return this.questions.list(space, includeClosed);
  }

  answerCard(space: string, number: number, answer: CardAnswer | undefined): Card {
    return this.questions.answer(space, number, answer);
  }

  cardArgumentsPage(space: string, number: number, offset?: number, limit?: number): ArgumentsPage {
    return this.questions.argumentsPage(space, number, offset, limit);
  }

  cardArgumentsText(space: string, number: number): { card: Card; text: string } {
    return this.questions.argumentsText(space, number);
  }

  /** Cards as they open and close, for one conversation (which must exist) or all; with the ones open now. */
  subscribeCards(space: string | undefined, listener: (e: CardEvent) => void): { openCards: Card[]; unsubscribe(): void } {
    if (space) this.conversations.get(space);
    return this.questions.subscribe(space, listener);
  }

  /** The audit log, oldest first: one conversation's, or all of it; only `tenant`'s events when given. */
  auditHistory(conversationId?: string, tenant?: string): AuditEvent[] {
    return this.audit.history({ conversationId, tenant });
  }

  /** The data folder: the host path a token tenant is never told (see TenantScope.pathless). */
  get dataDir(): string {
    return this.config.dataDir;
  }

  /** Where SubscribeAudit's history starts (see AuditLog.historyStart). */
  auditHistoryStart(conversationId?: string, tenant?: string): number {
    return this.audit.historyStart({ conversationId, tenant });
  }

  auditPage(q: { conversationId?: string; tenant?: string; afterSeq?: number; beforeSeq?: number; limit: number; newestFirst?: boolean }): AuditEvent[] {
    return this.audit.page(q);
  }

  /** Tool calls as they start and finish; returns the unsubscribe. */
  subscribeCalls(listener: (e: CallFeedEvent) => void): () => void {
    return this.calls.subscribe(listener);
  }

  /** Every audit event as it is recorded; returns the unsubscribe. */
  subscribeAudit(listener: (e: AuditEvent) => void): () => void {
    return this.audit.subscribe(listener);
  }

  /** The tenant owning a conversation; not_found when there is none. */
  conversationTenant(id: string): string {
    return this.conversations.get(id).tenant;
  }

  /** An open run; not_found when there is none. */
  run(id: string): Run {
    return this.runs.get(id);
  }

  /** The languages of the kernels alive in the conversation's running agent (none when no agent runs). */
  async liveKernels(id: string): Promise<string[]> {
    const ep = await this.placements.running(id);
    if (!ep) return [];
    return (await ep.client.listKernels()).kernels.map((k) => k.info?.language ?? "");
  }

  /** Records an event of the API itself (how it listens, refused callers, quotas hit). */
  recordAudit(input: AuditInput): AuditEvent {
    return this.audit.record(input);
  }

  async close(): Promise<void> {
    this.sleep.sweeper.stop();
    this.egress.closeAll();
    this.cliRuns.stop();
    this.questions.closeAll();
    await this.vibe.closeAll();
    await this.warmPool?.drain();
    this.placements.close();
    await this.hostAgents.stopAll();
    this.audit.close();
    this.state.close();
    rmSync(this.socketRoot, { recursive: true, force: true });
  }
}

/** The conversation's own values, or undefined when it keeps the server's defaults. */
function lifecycleValues(req: LifecycleRequest | undefined): { idleTimeoutSeconds?: number; maxLifetimeSeconds?: number } | undefined {
  const own = {
    ...(req?.idleTimeoutSeconds ? { idleTimeoutSeconds: req.idleTimeoutSeconds } : {}),
    ...(req?.maxLifetimeSeconds ? { maxLifetimeSeconds: req.maxLifetimeSeconds } : {}),
  };
  return Object.keys(own).length ? own : undefined;
}
