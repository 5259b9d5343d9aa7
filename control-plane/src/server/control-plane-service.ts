// The harness-facing gRPC service: a thin translation between the protobuf messages and ControlPlane.
import { Metadata, type sendUnaryData, type ServerUnaryCall, type ServerWritableStream, type ServiceError } from "@grpc/grpc-js";
import type {
  CallToolRequest,
  ContentPart as ContentPartMsg,
  ControlPlaneServer,
  Conversation,
  SubscribeAuditRequest,
  ToolEvent,
} from "../../../proto/gen/enclave/control/v1/control.js";
import type { AuditEvent } from "../audit/audit-log.js";
import type { ControlPlane, ConversationView } from "../control-plane.js";
import { asEnclaveError } from "../errors.js";
import type { ContentPart } from "../tools/tool.js";

function toServiceError(err: unknown): ServiceError {
  const e = asEnclaveError(err);
  return Object.assign(new Error(e.message), { code: e.grpcCode, details: e.message, metadata: new Metadata() });
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
    enclosure: e
      ? {
          containerId: e.containerId,
          image: e.image,
          state: e.state,
          startedAtMs: e.startedAtMs,
          limits: { memoryBytes: e.limits.memoryBytes, cpus: e.limits.cpus, pids: e.limits.pids },
          workspaceMode: e.workspaceMode,
          detail: e.detail,
          relaxations: e.relaxations,
        }
      : undefined,
  };
}

function partMessage(p: ContentPart): ContentPartMsg {
  if (p.type === "rich") return { part: { $case: "rich", value: { mimeType: p.mimeType, text: p.text } } };
  return p.type === "text" ? { part: { $case: "text", value: p.text } } : { part: { $case: "image", value: { mimeType: p.mimeType, data: p.data } } };
}

export function controlPlaneService(cp: ControlPlane): ControlPlaneServer {
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
        }),
      );
    }),
    stopEnclosure: unary(async (req) => conversationMessage(await cp.stopEnclosure(req.conversationId))),
    openRun: unary((req) => {
      const run = cp.openRun({ conversationId: req.conversationId, surface: req.surface, resources: req.resources, approvalPolicy: req.approvalPolicy });
      return { id: run.id, conversationId: run.conversationId, surface: run.surface, resources: run.resources, approvalPolicy: run.approvalPolicy };
    }),
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
      requiredNextTool: "",
    })),
    callTool(call: ServerWritableStream<CallToolRequest, ToolEvent>): void {
      const abort = new AbortController();
      call.on("cancelled", () => abort.abort());
      const req = call.request;
      cp.callTool(req.runId, req.tool, req.argumentsJson, {
        signal: abort.signal,
        emit: (e) =>
          call.write(
            e.kind === "progress"
              ? { event: { $case: "progress", value: e.text } }
              : { event: { $case: "output", value: { stream: e.stream, data: e.data } } },
          ),
      }).then(
        (r) => {
          call.write({ event: { $case: "result", value: { isError: r.isError, parts: r.parts.map(partMessage), errorCode: r.errorCode, durationMs: r.durationMs } } });
          call.end();
        },
        (err: unknown) => call.destroy(toServiceError(err)),
      );
    },
    describePlacement: unary(async (req) => {
      const d = await cp.describePlacement(req.conversationId);
      return { placement: d.placement, agentVersion: d.agentVersion, workspaceRoot: d.workspaceRoot, components: d.components };
    }),
    subscribeAudit(call: ServerWritableStream<SubscribeAuditRequest, AuditEvent>): void {
      const { conversationId, includeHistory, historyOnly } = call.request;
      const matches = (e: AuditEvent): boolean => !conversationId || e.conversationId === conversationId;
      if (includeHistory || historyOnly) for (const e of cp.audit.history(conversationId || undefined)) call.write(e);
      if (historyOnly) {
        call.end();
        return;
      }
      const unsubscribe = cp.audit.subscribe((e) => {
        if (matches(e)) call.write(e);
      });
      call.on("cancelled", unsubscribe);
      call.on("close", unsubscribe);
    },
  };
}
