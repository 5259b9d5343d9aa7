// The control plane's core: conversations, enclosures, runs, tools and the audit log, with no
// transport. The gRPC service and the tests drive this class.
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ApprovalGate } from "./approval/approval-gate.js";
import { AuditLog } from "./audit/audit-log.js";
import type { ControlPlaneConfig } from "./config.js";
import { type ConversationRecord, ConversationStore } from "./conversations/conversation-store.js";
import { EnclaveError } from "./errors.js";
import type { DescribeResponse } from "../../proto/gen/enclave/agent/v1/info.js";
import { connectDocker, DockerUnavailableError } from "./placement/docker-connection.js";
import { DockerDriver } from "./placement/docker-driver.js";
import type { EnclosureRequest } from "./placement/enclosure-settings.js";
import { HostAgents } from "./placement/host-agents.js";
import { Placements } from "./placement/placements.js";
import { type OpenRunRequest, type Run, RunStore } from "./runs/run-store.js";
import { BUILTIN_TOOLS, EVAL_TOOLS } from "./tools/builtin/index.js";
import type { CallOrigin, Tool, ToolStreamEvent } from "./tools/tool.js";
import { type CallResult, ToolDispatcher } from "./tools/tool-dispatcher.js";
import { ToolRegistry } from "./tools/tool-registry.js";

export interface ConversationView extends ConversationRecord {
  placement: "host" | "enclosure";
  openRuns: string[];
}

export class ControlPlane {
  readonly conversations: ConversationStore;
  readonly runs = new RunStore();
  readonly registry = new ToolRegistry();
  readonly gate = new ApprovalGate();
  readonly audit: AuditLog;
  readonly hostAgents: HostAgents;
  readonly placements: Placements;
  private readonly dispatcher: ToolDispatcher;
  private readonly socketRoot: string;
  private driver: Promise<DockerDriver> | undefined;

  private constructor(readonly config: ControlPlaneConfig) {
    mkdirSync(config.dataDir, { recursive: true });
    this.conversations = new ConversationStore(config.dataDir);
    this.audit = new AuditLog(join(config.dataDir, "audit.jsonl"));
    this.socketRoot = mkdtempSync(join(tmpdir(), "enclave-"));
    this.hostAgents = new HostAgents(join(config.agentBundleDir, "enclave-agent.mjs"), this.socketRoot, join(config.dataDir, "logs"));
    this.placements = new Placements(this.conversations, this.hostAgents, () => this.dockerDriver(), this.audit);
    for (const tool of BUILTIN_TOOLS) this.registry.register(tool);
    for (const tool of EVAL_TOOLS) this.registry.register(tool);
    this.dispatcher = new ToolDispatcher(this.registry, this.gate, this.audit, this.placements);
  }

  static async start(config: ControlPlaneConfig): Promise<ControlPlane> {
    const cp = new ControlPlane(config);
    try {
      await cp.placements.recover();
    } catch (err) {
      if (!(err instanceof DockerUnavailableError || err instanceof EnclaveError)) throw err;
      // Enclosures recorded before a restart stay as recorded; calls will say what is wrong.
    }
    return cp;
  }

  /** The Docker driver, connected on first need: host placement never needs an engine. */
  dockerDriver(): Promise<DockerDriver> {
    if (!this.driver) {
      this.driver = connectDocker().then(
        (docker) => new DockerDriver(docker, this.config.agentBundleDir, this.config.enclosure),
        (err: unknown) => {
          this.driver = undefined;
          throw new EnclaveError("placement_unavailable", (err as Error).message);
        },
      );
    }
    return this.driver;
  }

  registerTool(tool: Tool): void {
    this.registry.register(tool);
  }

  view(conv: ConversationRecord): ConversationView {
    return {
      ...conv,
      placement: conv.enclosure ? "enclosure" : "host",
      openRuns: this.runs.forConversation(conv.id).map((r) => r.id),
    };
  }

  createConversation(req: { id?: string; workspacePath?: string }): ConversationView {
    const id = req.id || this.conversations.newId();
    this.conversations.checkId(id);
    if (this.conversations.has(id)) throw new EnclaveError("already_exists", `conversation \`${id}\` already exists`);
    let workspacePath: string;
    let ownsWorkspace = false;
    if (req.workspacePath) {
      workspacePath = resolve(req.workspacePath);
      if (!existsSync(workspacePath) || !statSync(workspacePath).isDirectory()) {
        throw new EnclaveError("invalid_arguments", `workspace_path ${workspacePath} is not an existing folder`);
      }
    } else {
      workspacePath = this.conversations.workspaceFor(id);
      mkdirSync(workspacePath, { recursive: true });
      ownsWorkspace = true;
    }
    const conv: ConversationRecord = { id, workspacePath, ownsWorkspace, createdAtMs: Date.now() };
    this.conversations.put(conv);
    this.audit.record({ kind: "conversation_created", conversationId: id, detail: workspacePath });
    return this.view(conv);
  }

  getConversation(id: string): ConversationView {
    return this.view(this.conversations.get(id));
  }

  listConversations(): ConversationView[] {
    return this.conversations.list().map((c) => this.view(c));
  }

  async deleteConversation(id: string): Promise<void> {
    const conv = this.conversations.get(id);
    if (conv.enclosure) await this.placements.stop(id);
    await this.hostAgents.stop(id);
    this.runs.closeConversation(id);
    this.conversations.delete(id);
    if (conv.ownsWorkspace) rmSync(conv.workspacePath, { recursive: true, force: true });
    this.audit.record({ kind: "conversation_deleted", conversationId: id });
  }

  async startEnclosure(id: string, req: EnclosureRequest): Promise<ConversationView> {
    return this.view(await this.placements.start(id, req));
  }

  async stopEnclosure(id: string): Promise<ConversationView> {
    return this.view(await this.placements.stop(id));
  }

  async describePlacement(id: string): Promise<DescribeResponse & { agentVersion: string; workspaceRoot: string }> {
    const ep = await this.placements.endpoint(id);
    const [health, described] = await Promise.all([ep.client.health(), ep.client.describe()]);
    return { ...described, agentVersion: health.version, workspaceRoot: health.workspaceRoot };
  }

  openRun(req: OpenRunRequest): Run {
    this.conversations.get(req.conversationId);
    return this.runs.open(req);
  }

  closeRun(id: string): void {
    this.runs.get(id);
    this.runs.close(id);
  }

  listTools(runId: string): Tool[] {
    return this.registry.visible(this.runs.get(runId));
  }

  callTool(
    runId: string,
    tool: string,
    argumentsJson: string,
    opts: { origin?: CallOrigin; emit?: (e: ToolStreamEvent) => void; signal?: AbortSignal } = {},
  ): Promise<CallResult> {
    const run = this.runs.get(runId);
    return this.dispatcher.call({ run, tool, argumentsJson, origin: opts.origin ?? "model", emit: opts.emit, signal: opts.signal });
  }

  async close(): Promise<void> {
    this.placements.close();
    await this.hostAgents.stopAll();
    rmSync(this.socketRoot, { recursive: true, force: true });
  }
}
