// A promise-based client of the control-plane API, for the CLI, the tests and harnesses in Node.
import { type ClientReadableStream, credentials, Metadata, type ServiceError, status } from "@grpc/grpc-js";
import {
  type AuditEvent,
  ControlPlaneClient as GrpcClient,
  type Conversation,
  EnclosureOptions,
  type ListToolsResponse,
  type PlacementDescription,
  type Run,
  type ToolEvent,
  type ToolResult,
} from "../../../proto/gen/enclave/control/v1/control.js";
import { LIMITS } from "../limits.js";

type Callback<Res> = (err: ServiceError | null, res?: Res) => void;

export class ControlPlaneUnreachable extends Error {
  constructor(address: string, cause: string) {
    super(`no Enclave control plane answers at ${address} (${cause}); start one with \`make run\` or \`enclave serve\`, or pass --address`);
    this.name = "ControlPlaneUnreachable";
  }
}

export class ControlPlaneClient {
  private readonly grpc: GrpcClient;

  constructor(readonly address: string) {
    this.grpc = new GrpcClient(address, credentials.createInsecure(), {
      "grpc.max_receive_message_length": LIMITS.grpcMaxMessageBytes,
      "grpc.max_send_message_length": LIMITS.grpcMaxMessageBytes,
    });
  }

  close(): void {
    this.grpc.close();
  }

  private call<Res>(start: (md: Metadata, cb: Callback<Res>) => void): Promise<Res> {
    return new Promise((resolve, reject) =>
      start(new Metadata(), (err, res) => {
        if (!err) resolve(res as Res);
        else if (err.code === status.UNAVAILABLE && /ECONNREFUSED|ENOENT|No connection/i.test(err.details)) reject(new ControlPlaneUnreachable(this.address, err.details));
        else reject(new Error(err.details || err.message));
      }),
    );
  }

  createConversation(id = "", workspacePath = ""): Promise<Conversation> {
    return this.call((md, cb) => this.grpc.createConversation({ id, workspacePath }, md, cb));
  }

  getConversation(conversationId: string): Promise<Conversation> {
    return this.call((md, cb) => this.grpc.getConversation({ conversationId }, md, cb));
  }

  async listConversations(): Promise<Conversation[]> {
    return (await this.call<{ conversations: Conversation[] }>((md, cb) => this.grpc.listConversations({}, md, cb))).conversations;
  }

  async deleteConversation(conversationId: string): Promise<void> {
    await this.call((md, cb) => this.grpc.deleteConversation({ conversationId }, md, cb));
  }

  startEnclosure(conversationId: string, options: Partial<EnclosureOptions> = {}): Promise<Conversation> {
    const full = EnclosureOptions.fromPartial(options);
    return this.call((md, cb) => this.grpc.startEnclosure({ conversationId, options: full }, md, cb));
  }

  stopEnclosure(conversationId: string): Promise<Conversation> {
    return this.call((md, cb) => this.grpc.stopEnclosure({ conversationId }, md, cb));
  }

  openRun(conversationId: string, opts: { surface?: string; resources?: string[]; approvalPolicy?: string } = {}): Promise<Run> {
    return this.call((md, cb) =>
      this.grpc.openRun({ conversationId, surface: opts.surface ?? "", resources: opts.resources ?? [], approvalPolicy: opts.approvalPolicy ?? "" }, md, cb),
    );
  }

  async closeRun(runId: string): Promise<void> {
    await this.call((md, cb) => this.grpc.closeRun({ runId }, md, cb));
  }

  listTools(runId: string): Promise<ListToolsResponse> {
    return this.call((md, cb) => this.grpc.listTools({ runId }, md, cb));
  }

  describePlacement(conversationId: string): Promise<PlacementDescription> {
    return this.call((md, cb) => this.grpc.describePlacement({ conversationId }, md, cb));
  }

  /** Calls a tool; onEvent sees progress and output as they stream. Resolves with the final result. */
  callTool(runId: string, tool: string, args: unknown, onEvent?: (e: ToolEvent) => void): Promise<ToolResult> {
    const argumentsJson = typeof args === "string" ? args : JSON.stringify(args ?? {});
    return new Promise((resolve, reject) => {
      const stream: ClientReadableStream<ToolEvent> = this.grpc.callTool({ runId, tool, argumentsJson });
      let result: ToolResult | undefined;
      stream.on("data", (e: ToolEvent) => {
        if (e.event?.$case === "result") result = e.event.value;
        else onEvent?.(e);
      });
      stream.on("error", (err: ServiceError) =>
        reject(err.code === status.UNAVAILABLE ? new ControlPlaneUnreachable(this.address, err.details) : new Error(err.details || err.message)),
      );
      stream.on("end", () => (result ? resolve(result) : reject(new Error("the tool call ended without a result"))));
    });
  }

  /** Audit events: history first when asked, then live ones until the returned function is called. */
  subscribeAudit(
    opts: { conversationId?: string; includeHistory?: boolean; historyOnly?: boolean },
    onEvent: (e: AuditEvent) => void,
  ): { done: Promise<void>; cancel(): void } {
    const stream = this.grpc.subscribeAudit({
      conversationId: opts.conversationId ?? "",
      includeHistory: opts.includeHistory ?? false,
      historyOnly: opts.historyOnly ?? false,
    });
    stream.on("data", onEvent);
    const done = new Promise<void>((resolve, reject) => {
      stream.on("end", () => resolve());
      stream.on("error", (err: ServiceError) => (err.code === status.CANCELLED ? resolve() : reject(new Error(err.details || err.message))));
    });
    return { done, cancel: () => stream.cancel() };
  }
}

/** The result's text parts joined, for people and tests (rich parts such as HTML are left out). */
export function resultText(r: ToolResult): string {
  return r.parts
    .filter((p) => p.part?.$case !== "rich")
    .map((p) => (p.part?.$case === "text" ? p.part.value : p.part?.$case === "image" ? `[image ${p.part.value.mimeType}, ${p.part.value.data.length} bytes]` : ""))
    .join("\n");
}
