// The composition root: builds the control plane's parts from its configuration, each from named
// options, in the order their start-up needs (state first, then the audit log, the agents, the
// engines). ControlPlane (control-plane.ts) is the façade over them; the few operations the parts
// call back into (a metric asking whether a tool is Enclave's, the command line opening a run) go
// through the hooks it hands in.
import { UsageReader } from "./usage/conversation-usage.js";
import { tenantUsage } from "./usage/tenant-usage-source.js";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApprovalGate } from "./approval/approval-gate.js";
import { CardApprover } from "./approval/card-approver.js";
import { type AuditEvent, type AuditInput, AuditLog } from "./audit/audit-log.js";
import { RefusalAudit } from "./audit/refusal-audit.js";
import type { ControlPlaneConfig } from "./config.js";
import { ConversationStore } from "./conversations/conversation-store.js";
import type { OpenRunRequest, Run } from "./model/run.js";
import { agentResources } from "./observability/agent-resources.js";
import { logAuditEvent } from "./observability/audit-lines.js";
import { countDockerErrors } from "./observability/docker-errors.js";
import { log } from "./observability/log.js";
import { EnclaveMetrics } from "./observability/metrics.js";
import { PendingActionStores } from "./pending/pending-action-store.js";
import { PendingActionTable } from "./pending/pending-action-table.js";
import { persistedIn } from "./pending/pending-restore.js";
import { reviveStagedEdit } from "./tools/ast/ast-edit.js";
import { connectDocker } from "./placement/docker-connection.js";
import { DockerDriver, ownerId } from "./placement/docker-driver.js";
import { Engines } from "./placement/engine-choice.js";
import { HostAgents } from "./placement/host-agents.js";
import { SaveLoadSupply } from "./placement/image-supply.js";
import { Placements } from "./placement/placements.js";
import { SandboxUids } from "./placement/sandbox-uids.js";
import { WarmPool, warmPoolSlotRoot } from "./placement/warm-pool.js";
import { cardAuditEvent } from "./questions/card-audit.js";
import { QuestionPort } from "./questions/question-port.js";
import { CliRuns } from "./runs/cli-runs.js";
import { RunStore } from "./runs/run-store.js";
import { StateDb } from "./state/state-db.js";
import { LiveStatusRegistry, vibeWorkerStatus } from "./status/live-status.js";
import { placementStatusSources } from "./status/placement-status.js";
import { OpenStreams } from "./streams/open-streams.js";
import { TenantQuotas } from "./tenants/quotas.js";
import { ToolHosts } from "./toolhost/tool-hosts.js";
import { CallFeed } from "./tools/call-feed.js";
import type { CustomToolLoadFailure } from "./tools/custom/custom-tool-loader.js";
import { enclaveTools } from "./tools/index.js";
import { DiagnosticsLedger } from "./tools/lsp/diagnostics-ledger.js";
import { ToolDispatcher } from "./tools/tool-dispatcher.js";
import { CallsInFlight } from "./tools/calls-in-flight.js";
import { ToolRegistry } from "./tools/tool-registry.js";
import { CommandHost } from "./vibe/command-host.js";
import { VibeRoster } from "./vibe/vibe-roster.js";
import { workerAuditEvent } from "./vibe/worker-audit.js";

/** The façade's operations some parts call back into, bound once the façade exists. */
export interface FacadeHooks {
  isEnclaveTool(name: string): boolean;
  agentRunning(conversationId: string): boolean;
  recordAudit(input: AuditInput): AuditEvent;
  openRun(req: OpenRunRequest): Run;
  closeRun(runId: string): void;
}

export interface ControlPlaneParts {
  /** The state database conversations and runs are kept in (see state/state-db.ts). */
  state: StateDb;
  conversations: ConversationStore;
  runs: RunStore;
  registry: ToolRegistry;
  gate: ApprovalGate;
  /** Tenants' quotas, one account for every surface (the API and the console take from it alike). */
  quotas: TenantQuotas;
  /** Streams open on the API and the console, per tenant and token (bounded, ended with their token); refusals audited at most once per interval per tenant. */
  streams: OpenStreams;
  pending: PendingActionStores;
  /** Harness tool hosts, one per run at most (ConnectToolHost). */
  toolHosts: ToolHosts;
  audit: AuditLog;
  hostAgents: HostAgents;
  placements: Placements;
  questions: QuestionPort;
  vibe: VibeRoster;
  /** The runs the command line keeps across its calls. */
  cliRuns: CliRuns;
  /** What runs per conversation, for the operator console (capabilities register their own source). */
  liveStatus: LiveStatusRegistry;
  /** Custom tool modules skipped at load, with why: shown by ListTools and the console. */
  customToolFailures: CustomToolLoadFailure[];
  dispatcher: ToolDispatcher;
  /** What each run has been told about diagnostics (lsp tools, writes, SyncWrites). */
  ledger: DiagnosticsLedger;
  /** The control plane's private folder (mode 700) for the agents' local sockets; mounted nowhere. */
  socketRoot: string;
  /** What the metrics endpoint serves (see observability/metrics.ts). */
  metrics: EnclaveMetrics;
  /** Tool calls as they start and finish (the console's recent calls, the in-flight gauge). */
  calls: CallFeed;
  /** The calls running now, each cancellable by an operator. */
  inFlight: CallsInFlight;
  /** The Docker engines enclosures run on (placement/engine-choice.ts), connected on first need. */
  engines: Engines;
  /** The warm pool, once an engine was connected (empty unless ENCLAVE_WARM_POOL_SIZE > 0). */
  warmPool: WarmPool | undefined;
  /** What each conversation costs (usage/conversation-usage.ts). */
  usage: UsageReader;
}

export function composeControlPlane(config: ControlPlaneConfig, facade: FacadeHooks): ControlPlaneParts {
  const registry = new ToolRegistry();
  const gate = new ApprovalGate();
  const quotas = new TenantQuotas();
  const streamRefusals = new RefusalAudit((input) => facade.recordAudit(input));
  const streams = new OpenStreams(
    (tenant, err) => streamRefusals.refused(`streams ${tenant}`, { kind: "quota_exceeded", tenant, outcome: `refused:${err.code}`, detail: err.message }),
    (tenant, kind, err) =>
      streamRefusals.refused(`cuts ${tenant}`, { kind: "stream_cut", tenant, tool: kind, outcome: `cut:${err.code}`, detail: err.message }),
  );
  const toolHosts = new ToolHosts();
  const liveStatus = new LiveStatusRegistry();
  const customToolFailures: CustomToolLoadFailure[] = [];
  const ledger = new DiagnosticsLedger();
  const calls = new CallFeed();
  const inFlight = new CallsInFlight();

  mkdirSync(config.dataDir, { recursive: true });
  const state = new StateDb(config.dataDir);
  const conversations = new ConversationStore(config.dataDir, state);
  const runs = new RunStore(state);
  // A run whose conversation is gone (a delete cut short between the two) has nothing to serve.
  for (const r of runs.list()) if (!conversations.has(r.conversationId)) runs.close(r.id);
  const audit = new AuditLog(join(config.dataDir, "audit.db"), {
    retention: config.auditRetention,
    tenantOf: (id) => (conversations.has(id) ? conversations.get(id).tenant : undefined),
  });
  // Assigned below, before any of these callbacks can run.
  let questions: QuestionPort | undefined;
  const usage = new UsageReader({
    hostAgent: (id) => hostAgents.usageTarget(id),
    driver: (engine) => engines.driver(engine),
  });
  const metrics = new EnclaveMetrics({
    isEnclaveTool: (name) => facade.isEnclaveTool(name),
    enclosureStates: () => conversations.list().flatMap((c) => (c.enclosure ? [c.enclosure.state] : [])),
    lifecycleStates: () => conversations.list().map((c) => (c.lifecycle?.sleep ? "sleeping" : "active")),
    openCards: () => questions?.list(undefined, false).length ?? 0,
    agentResources: () =>
      agentResources(
        conversations.list().map((c) => c.id),
        (id) => facade.agentRunning(id),
        liveStatus.all(),
      ),
    tenantUsage: () => tenantUsage(conversations.list(), usage),
  });
  // The audit log is where every call and lifecycle event is recorded once: metrics and log lines follow it.
  audit.subscribe((e) => metrics.observe(e));
  calls.subscribe((e) => metrics.observeCall(e));
  audit.subscribe(logAuditEvent);
  const socketRoot = mkdtempSync(join(tmpdir(), "enclave-"));
  const hostAgents = new HostAgents({
    agentBundleDir: config.agentBundleDir,
    socketRoot,
    logDir: join(config.dataDir, "logs"),
    stateRoot: join(config.dataDir, "host-state"),
    sandbox: config.hostSandbox,
    spareRoot: join(config.dataDir, "host-spares"),
  });
  const images = new SaveLoadSupply(() => connectDocker());
  const enclosureUids = new SandboxUids(join(config.dataDir, "enclosure-uids"), config.enclosure.uids, {
    holders: "enclosure",
    countSetting: "ENCLAVE_ENCLOSURE_UID_COUNT",
  });
  const parts = {} as ControlPlaneParts;
  const engines = new Engines(config.engines, (docker, engine) => {
    countDockerErrors(docker, (resource, status) => metrics.dockerError(resource, status));
    const driver = new DockerDriver({
      docker,
      agentBundleDir: config.agentBundleDir,
      defaults: config.enclosure,
      socketRoot,
      owner: ownerId(config.dataDir),
      engine,
      images: engine.remote ? images : undefined,
    });
    // The warm pool keeps its enclosures on the default engine, when it is this machine's.
    if (!engine.remote && engine.name === engines.names()[0]) {
      parts.warmPool = new WarmPool(docker, driver, config.warmPool, {
        owner: ownerId(config.dataDir),
        agentBundleDir: config.agentBundleDir,
        diskImageDir: config.enclosure.diskImageDir,
        slotRoot: warmPoolSlotRoot(config.dataDir),
        uids: enclosureUids,
        log: (line) => log().warn(line),
      });
      placements.usePool(parts.warmPool);
    }
    return driver;
  });
  const placements = new Placements({ store: conversations, hostAgents, engines, audit, uids: enclosureUids });
  // Staged changes outlive a restart with their runs; ast_edit's apply again against the conversation's agent as it is then.
  const pendingTable = new PendingActionTable(state);
  pendingTable.keepOnly(runs.list().map((r) => r.id));
  const pending = new PendingActionStores(
    persistedIn(pendingTable, (change, run, id) => {
      const conversationId = run.conversationId;
      return conversationId === undefined ? undefined : reviveStagedEdit(change, id, () => placements.endpoint(conversationId));
    }),
  );
  questions = new QuestionPort(
    (card) => audit.record(cardAuditEvent(card)),
    (space) => audit.nextCardNumber(space),
  );
  gate.connect(
    new CardApprover(
      questions,
      () => config.questionTimeoutMs,
      (run) => pending.forRun(run),
    ),
  );
  const vibe = new VibeRoster(new CommandHost(config.vibe, (id) => placements.endpoint(id)), (w) => audit.record(workerAuditEvent(w)));
  const tools = enclaveTools({
    ledger,
    questions,
    questionTimeoutMs: () => config.questionTimeoutMs,
    vibe,
    workspaceOf: (id) => conversations.get(id).workspacePath,
    debugSessionTtlMs: config.debugSessionTtlMs,
  });
  for (const tool of tools) registry.register(tool);
  for (const source of placementStatusSources(placements)) liveStatus.register(source);
  liveStatus.register(vibeWorkerStatus(vibe));
  liveStatus.register({
    id: "custom-tools",
    title: "Custom tool modules skipped",
    empty: "none",
    list: () => customToolFailures.map((f) => ({ name: f.file, state: "skipped", detail: f.reason })),
  });
  const cliRuns = new CliRuns(
    runs,
    config.cliRunIdleMs,
    (req) => facade.openRun(req),
    (id) => facade.closeRun(id),
  );
  const dispatcher = new ToolDispatcher({ registry, gate, audit, placements, pendingFor: (run) => pending.forRun(run), toolHosts, feed: calls, inFlight });
  return Object.assign(parts, {
    state,
    conversations,
    runs,
    registry,
    gate,
    quotas,
    streams,
    pending,
    toolHosts,
    audit,
    hostAgents,
    placements,
    questions,
    vibe,
    cliRuns,
    liveStatus,
    customToolFailures,
    dispatcher,
    ledger,
    socketRoot,
    metrics,
    calls,
    inFlight,
    engines,
    warmPool: parts.warmPool,
    usage,
  });
}
