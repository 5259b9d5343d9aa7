// A promise-based client of the control-plane API, for the CLI, the tests and harnesses in Node.
import { type ClientReadableStream, credentials, Metadata, type ServiceError, status } from "@grpc/grpc-js";
import {
  type AuditEvent,
  type Card,
  CardAnswer,
  type CardArguments,
  type CardEvent,
  ControlPlaneClient as GrpcClient,
  type Conversation,
  type EnclosureAudit,
  EnclosureOptions,
  type ListToolsResponse,
  type SyncWritesResponse,
  type PlacementDescription,
  type Run,
  type ToolEvent,
  type ToolResult,
  type WorkerHostCommand,
  WorkerHostHello,
  type WorkerHostMessage,
} from "../../../proto/gen/enclave/control/v1/control.js";
import { LIMITS } from "../limits.js";
import { type HarnessToolSpec, runToolHost, type ToolHostConnection, type ToolHostHandlers } from "./tool-host-client.js";

export type { HarnessAnswer, HarnessCallInfo, HarnessToolSpec, HarnessVerdict, ToolHostConnection, ToolHostHandlers } from "./tool-host-client.js";

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

  openRun(
    conversationId: string,
    opts: { surface?: string; resources?: string[]; approvalPolicy?: string; targetSpace?: string; vibeMode?: boolean; questionTimeoutSeconds?: number } = {},
  ): Promise<Run> {
    return this.call((md, cb) =>
      this.grpc.openRun(
        {
          conversationId,
          surface: opts.surface ?? "",
          resources: opts.resources ?? [],
          approvalPolicy: opts.approvalPolicy ?? "",
          targetSpace: opts.targetSpace ?? "",
          vibeMode: opts.vibeMode ?? false,
          questionTimeoutSeconds: opts.questionTimeoutSeconds ?? 0,
        },
        md,
        cb,
      ),
    );
  }

  setVibeMode(runId: string, enabled: boolean): Promise<Run> {
    return this.call((md, cb) => this.grpc.setVibeMode({ runId, enabled }, md, cb));
  }

  /**
   * Attaches to a conversation's cards (every conversation's with ""): onEvent sees the open cards,
   * then each card opened or closed. `ready` resolves once attached, after the open cards arrived.
   */
  subscribeCards(conversationId: string, onEvent: (e: CardEvent) => void): { ready: Promise<void>; done: Promise<void>; cancel(): void } {
    const stream = this.grpc.subscribeCards({ conversationId });
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

  answerCard(conversationId: string, number: number, answer: Partial<CardAnswer>): Promise<Card> {
    return this.call((md, cb) => this.grpc.answerCard({ conversationId, number, answer: CardAnswer.fromPartial(answer) }, md, cb));
  }

  async listCards(conversationId = "", includeClosed = false): Promise<Card[]> {
    return (await this.call<{ cards: Card[] }>((md, cb) => this.grpc.listCards({ conversationId, includeClosed }, md, cb))).cards;
  }

  /** One page of an open card's complete arguments (limit 0: the largest page). */
  getCardArguments(conversationId: string, number: number, offset = 0, limit = 0): Promise<CardArguments> {
    return this.call((md, cb) => this.grpc.getCardArguments({ conversationId, number, offset, limit }, md, cb));
  }

  /** An open card's complete arguments JSON, read page by page. */
  async cardArgumentsText(conversationId: string, number: number): Promise<string> {
    const parts: string[] = [];
    let offset = 0;
    for (;;) {
      const page = await this.getCardArguments(conversationId, number, offset);
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
    const stream = this.grpc.connectWorkerHost();
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
    return runToolHost(this.grpc.connectToolHost(), runId, tools, handlers, opts.intercept ?? false, (err) => this.streamError(err));
  }

  private streamError(err: ServiceError): Error {
    return err.code === status.UNAVAILABLE ? new ControlPlaneUnreachable(this.address, err.details) : new Error(err.details || err.message);
  }

  async closeRun(runId: string): Promise<void> {
    await this.call((md, cb) => this.grpc.closeRun({ runId }, md, cb));
  }

  listTools(runId: string): Promise<ListToolsResponse> {
    return this.call((md, cb) => this.grpc.listTools({ runId }, md, cb));
  }

  /** Diagnostics for files the harness wrote with its own tools (only those new to the run). */
  syncWrites(runId: string, paths: string[]): Promise<SyncWritesResponse> {
    return this.call((md, cb) => this.grpc.syncWrites({ runId, paths }, md, cb));
  }

  auditEnclosure(conversationId: string): Promise<EnclosureAudit> {
    return this.call((md, cb) => this.grpc.auditEnclosure({ conversationId }, md, cb));
  }

  describePlacement(conversationId: string): Promise<PlacementDescription> {
    return this.call((md, cb) => this.grpc.describePlacement({ conversationId }, md, cb));
  }

  /** Calls a tool; onEvent sees progress and output as they stream. Resolves with the final result. */
  callTool(runId: string, tool: string, args: unknown, onEvent?: (e: ToolEvent) => void, signal?: AbortSignal): Promise<ToolResult> {
    const argumentsJson = typeof args === "string" ? args : JSON.stringify(args ?? {});
    return new Promise((resolve, reject) => {
      const stream: ClientReadableStream<ToolEvent> = this.grpc.callTool({ runId, tool, argumentsJson });
      signal?.addEventListener("abort", () => stream.cancel(), { once: true });
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
