// The harness-facing gRPC service: a thin translation between the protobuf messages and ControlPlane.
import {
  Metadata,
  type sendUnaryData,
  type ServerDuplexStream,
  type ServerUnaryCall,
  type ServerWritableStream,
  type ServiceError,
} from "@grpc/grpc-js";
import type {
  CallToolRequest,
  CardEvent,
  ContentPart as ContentPartMsg,
  ControlPlaneServer,
  Conversation,
  Run as RunMsg,
  SubscribeAuditRequest,
  SubscribeCardsRequest,
  ToolEvent,
  ToolHostCommand,
  ToolHostMessage,
  WorkerHostCommand,
  WorkerHostMessage,
} from "../../../proto/gen/enclave/control/v1/control.js";
import type { AuditEvent } from "../audit/audit-log.js";
import { formatAuditReport } from "../audit/enclosure-audit.js";
import type { ConversationView, ControlPlaneFacade } from "../control-plane.js";
import { asEnclaveError, ERROR_CODE_TRAILER } from "../errors.js";
import type { Run } from "../runs/run-store.js";
import type { ContentPart } from "../tools/tool.js";
import type { DecodedCallToolRequest } from "./strict-call-decoding.js";
import { connectWorkerHost } from "./worker-host-stream.js";
import { connectToolHost } from "./tool-host-stream.js";

function toServiceError(err: unknown): ServiceError {
  const e = asEnclaveError(err);
  const metadata = new Metadata();
  metadata.set(ERROR_CODE_TRAILER, e.code);
  return Object.assign(new Error(e.message), { code: e.grpcCode, details: e.message, metadata });
}

function unary<Req, Res>(fn: (req: Req) => Promise<Res> | Res) {
  return (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>): void => {
    Promise.resolve()
      .then(() => fn(call.request))
      .then(
        (res) => callback(null, res),
        (err: unknown) => callback(toServiceError(err), null),
      );
  };
}

export function conversationMessage(c: ConversationView): Conversation {
  const e = c.enclosure;
  return {
    id: c.id,
    workspacePath: c.workspacePath,
    placement: c.placement,
    createdAtMs: c.createdAtMs,
    openRuns: c.openRuns,
    notCopiedBack: c.notCopiedBack ?? [],
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
          origin: e.pool ? "pool" : "cold",
        }
      : undefined,
  };
}

function runMessage(cp: ControlPlaneFacade, run: Run): RunMsg {
  const cli = cp.cliRunState(run);
  return {
    id: run.id,
    conversationId: run.conversationId,
    surface: run.surface,
    resources: run.resources,
    approvalPolicy: run.approvalPolicy,
    targetSpace: run.targetSpace,
    vibeMode: run.vibeMode,
    questionTimeoutSeconds: run.questionTimeoutMs / 1000,
    cli: run.cli,
    cliCurrent: cli.current,
    openedAtMs: run.openedAtMs,
    lastUsedMs: run.lastUsedMs,
    idleExpiresAtMs: cli.idleExpiresAtMs,
    pendingActions: cp.pendingCount(run),
    callsInFlight: run.callsInFlight,
  };
}

function partMessage(p: ContentPart): ContentPartMsg {
  if (p.type === "rich") return { part: { $case: "rich", value: { mimeType: p.mimeType, text: p.text } } };
  return p.type === "text" ? { part: { $case: "text", value: p.text } } : { part: { $case: "image", value: { mimeType: p.mimeType, data: p.data } } };
}

export function controlPlaneService(cp: ControlPlaneFacade): ControlPlaneServer {
  return {
    createConversation: unary((req) => conversationMessage(cp.createConversation({ id: req.id, workspacePath: req.workspacePath }))),
    getConversation: unary((req) => conversationMessage(cp.getConversation(req.conversationId))),
    listConversations: unary(() => ({ conversations: cp.listConversations().map(conversationMessage) })),
    deleteConversation: unary(async (req) => {
      await cp.deleteConversation(req.conversationId);
      return {};
    }),
    startEnclosure: unary(async (req) => {
      const o = req.options;
      return conversationMessage(
        await cp.startEnclosure(req.conversationId, {
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
        }),
      );
    }),
    stopEnclosure: unary(async (req) => conversationMessage(await cp.stopEnclosure(req.conversationId))),
    openRun: unary((req) =>
      runMessage(
        cp,
        cp.openRun({
          conversationId: req.conversationId,
          surface: req.surface,
          resources: req.resources,
          approvalPolicy: req.approvalPolicy,
          targetSpace: req.targetSpace,
          vibeMode: req.vibeMode,
          questionTimeoutSeconds: req.questionTimeoutSeconds,
        }),
      ),
    ),
    closeRun: unary((req) => {
      cp.closeRun(req.runId);
      return {};
    }),
    listTools: unary((req) => ({
      tools: cp.listTools(req.runId).map((t) => ({
        name: t.name,
        tier: t.tier,
        description: t.description,
        inputSchemaJson: JSON.stringify(t.inputSchema),
        resource: t.resource,
        parallelSafe: t.parallelSafe,
      })),
      requiredNextTool: cp.requiredNextTool(req.runId),
      customToolFailures: cp.customToolFailures,
    })),
    syncWrites: unary(async (req) => {
      const r = await cp.syncWrites(req.runId, req.paths);
      return {
        text: r.text,
        files: r.files.map((f) => ({
          path: f.path,
          state: f.state,
          servers: f.servers,
          detail: f.detail,
          newDiagnostics: f.newDiagnostics.map((d) => ({ path: d.path, line: d.line, column: d.column, severity: d.severity, code: d.code, message: d.message, source: d.source })),
        })),
      };
    }),
    callTool(call: ServerWritableStream<CallToolRequest, ToolEvent>): void {
      const abort = new AbortController();
      call.on("cancelled", () => abort.abort());
      const req: DecodedCallToolRequest = call.request;
      // Through a promise, so an unknown run id becomes a status instead of a thrown handler.
      Promise.resolve().then(() => cp.callTool(req.runId, req.tool, req.argumentsJson, {
        notUtf8: req.notUtf8,
        signal: abort.signal,
        emit: (e) =>
          call.write(
            e.kind === "progress"
              ? { event: { $case: "progress", value: e.text } }
              : { event: { $case: "output", value: { stream: e.stream, data: e.data } } },
          ),
      })).then(
        (r) => {
          call.write({ event: { $case: "result", value: { isError: r.isError, parts: r.parts.map(partMessage), errorCode: r.errorCode, durationMs: r.durationMs } } });
          call.end();
        },
        // emit, not destroy: grpc-js sends the status only for a stream that ends after "error".
        (err: unknown) => call.emit("error", toServiceError(err)),
      );
    },
    auditEnclosure: unary(async (req) => {
      const r = await cp.auditEnclosure(req.conversationId);
      return { ...r, text: formatAuditReport(r) };
    }),
    describePlacement: unary(async (req) => {
      const d = await cp.describePlacement(req.conversationId);
      return { placement: d.placement, agentVersion: d.agentVersion, workspaceRoot: d.workspaceRoot, components: d.components };
    }),
    subscribeAudit(call: ServerWritableStream<SubscribeAuditRequest, AuditEvent>): void {
      const { conversationId, includeHistory, historyOnly } = call.request;
      const matches = (e: AuditEvent): boolean => !conversationId || e.conversationId === conversationId;
      if (includeHistory || historyOnly) for (const e of cp.auditHistory(conversationId || undefined)) call.write(e);
      if (historyOnly) {
        call.end();
        return;
      }
      const unsubscribe = cp.subscribeAudit((e) => {
        if (matches(e)) call.write(e);
      });
      call.on("cancelled", unsubscribe);
      call.on("close", unsubscribe);
    },
    subscribeCards(call: ServerWritableStream<SubscribeCardsRequest, CardEvent>): void {
      const space = call.request.conversationId || undefined;
      let subscription: ReturnType<ControlPlaneFacade["subscribeCards"]>;
      try {
        subscription = cp.subscribeCards(space, (e) =>
          call.write({ event: e.type === "opened" ? { $case: "opened", value: e.card } : { $case: "closed", value: e.card } }),
        );
      } catch (err) {
        call.emit("error", toServiceError(err));
        return;
      }
      const { openCards, unsubscribe } = subscription;
      for (const card of openCards) call.write({ event: { $case: "opened", value: card } });
      call.write({ event: { $case: "subscribed", value: { openCards: openCards.length } } });
      call.on("cancelled", unsubscribe);
      call.on("close", unsubscribe);
      call.on("error", unsubscribe);
    },
    answerCard: unary((req) => cp.answerCard(req.conversationId, req.number, req.answer)),
    listCards: unary((req) => ({ cards: cp.cards(req.conversationId || undefined, req.includeClosed) })),
    getCardArguments: unary((req) => {
      const page = cp.cardArgumentsPage(req.conversationId, req.number, req.offset, req.limit);
      return {
        conversationId: page.card.conversationId,
        number: page.card.number,
        tool: page.card.tool,
        text: page.text,
        offset: page.offset,
        nextOffset: page.nextOffset,
        totalChars: page.totalChars,
      };
    }),
    setVibeMode: unary((req) => runMessage(cp, cp.setVibeMode(req.runId, req.enabled))),
    attachCliRun: unary((req) =>
      runMessage(
        cp,
        cp.attachCliRun({
          conversationId: req.conversationId,
          surface: req.surface,
          approvalPolicy: req.approvalPolicy,
          vibeMode: req.vibeMode,
          newRun: req.newRun,
        }),
      ),
    ),
    listRuns: unary((req) => ({ runs: cp.listRuns(req.conversationId).map((r) => runMessage(cp, r)) })),
    connectWorkerHost(call: ServerDuplexStream<WorkerHostMessage, WorkerHostCommand>): void {
      connectWorkerHost({ addHost: (h) => cp.addWorkerHost(h), removeHost: (h) => cp.removeWorkerHost(h) }, call, toServiceError);
    },
    connectToolHost(call: ServerDuplexStream<ToolHostMessage, ToolHostCommand>): void {
      connectToolHost(cp, call, toServiceError);
    },
  };
}
