// One language-server process for one root, spoken to over stdio with vscode-jsonrpc. Handlers for
// the server's own requests are registered before listen() (a server that asks for configuration and
// gets no answer stalls); requests carry a deadline and are cancelled with $/cancelRequest past it;
// when the process dies every pending request fails with what happened, never hangs.
import { type ChildProcess, spawn } from "node:child_process";
import { pathToFileURL } from "node:url";
import { CancellationTokenSource, ConnectionError, createMessageConnection, ErrorCodes, type MessageConnection, ResponseError } from "vscode-jsonrpc/node";
import { AgentError } from "../errors.js";
import { LIMITS } from "../limits.js";
import type { Diagnostic, ServerCapabilities } from "./lsp-types.js";
import { DirectMessageReader } from "./message-reader.js";
import { SingleWriteMessageWriter } from "./message-writer.js";
import { killProcessTree } from "../process/process-tree.js";
import type { LanguageServerSpec } from "@enclave/proto/server-registry.js";
import { within } from "@enclave/proto/wait.js";
import { span } from "../trace/call-trace.js";

export interface PushedDiagnostics {
  version: number | undefined;
  receivedAt: number;
  items: Diagnostic[];
}

/** The document a wait for pushed diagnostics is about, as synced. */
export interface PushTarget {
  uri: string;
  /** The version just synced. */
  version: number;
  /** When it was synced. */
  since: number;
  /** The file's modification time when it was synced (its text came from the file). */
  fileMtimeMs: number;
}

interface OpenDocument {
  version: number;
  text: string;
}

function settingAt(settings: Record<string, unknown> | undefined, section: string | undefined): unknown {
  if (!settings) return null;
  if (!section) return settings;
  let cur: unknown = settings;
  for (const part of section.split(".")) {
    if (cur === null || typeof cur !== "object") return null;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur ?? null;
}

const CLIENT_CAPABILITIES = {
  general: { positionEncodings: ["utf-16"] },
  window: { workDoneProgress: true, showMessage: {} },
  workspace: {
    configuration: true,
    workspaceFolders: true,
    didChangeConfiguration: { dynamicRegistration: true },
    symbol: { dynamicRegistration: false },
    workspaceEdit: { documentChanges: true, resourceOperations: ["create", "rename", "delete"] },
    diagnostics: { refreshSupport: false },
  },
  textDocument: {
    synchronization: { dynamicRegistration: false, didSave: true, willSave: false },
    hover: { contentFormat: ["markdown", "plaintext"] },
    definition: { linkSupport: true },
    typeDefinition: { linkSupport: true },
    implementation: { linkSupport: true },
    references: {},
    documentSymbol: { hierarchicalDocumentSymbolSupport: true },
    codeAction: {
      codeActionLiteralSupport: {
        codeActionKind: {
          valueSet: [
            "",
            "quickfix",
            "refactor",
            "refactor.extract",
            "refactor.inline",
            "refactor.rewrite",
            "source",
            "source.organizeImports",
            "source.fixAll",
          ],
        },
      },
      isPreferredSupport: true,
    },
    rename: { prepareSupport: true },
    publishDiagnostics: { versionSupport: true },
    diagnostic: { dynamicRegistration: true, relatedDocumentSupport: false },
  },
};

export class ServerConnection {
  readonly startedAt = Date.now();
  capabilities: ServerCapabilities = {};
  /** Why the process is gone, once it is. */
  deathReason: string | undefined;
  readonly exited: Promise<void>;
  private readonly conn: MessageConnection;
  private readonly pending = new Set<(err: Error) => void>();
  private readonly docs = new Map<string, OpenDocument>();
  private readonly pushed = new Map<string, PushedDiagnostics>();
  /** "startup-unversioned" servers: their unversioned reports about open documents, kept apart. */
  private readonly unversioned = new Map<string, PushedDiagnostics>();
  private readonly pushListeners = new Set<(uri: string) => void>();
  private readonly registrationListeners = new Set<() => void>();
  private readonly progress = new Set<string | number>();
  private readonly progressListeners = new Set<() => void>();
  private readonly progressBeginListeners = new Set<() => void>();
  private sawProgress = false;
  private firstOpenAt = 0;
  private readonly dynamic = new Set<string>();
  private stderrTail = "";
  private stopping = false;
  /** It exited because stop() asked it to (not a crash). */
  stoppedOnRequest = false;

  private constructor(
    readonly spec: LanguageServerSpec,
    readonly root: string,
    /** The binary it was started from. */
    readonly binary: string,
    private readonly proc: ChildProcess,
  ) {
    proc.stderr?.on("data", (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-LIMITS.lspStderrTailBytes);
    });
    const stderrEnded = new Promise<void>((r) => {
      proc.stderr?.on("end", () => r());
      proc.stderr?.on("error", () => r());
    });
    this.exited = new Promise((resolve) => {
      proc.on("exit", (code, signal) => {
        this.stoppedOnRequest = this.stopping;
        this.deathReason = this.stopping ? "stopped" : signal ? `killed by ${signal}` : `exited with code ${code}`;
        // Its last words (why it died) may still be in the pipe: give them a moment.
        void within(stderrEnded, 200, undefined).then(() => {
          this.failPending();
          resolve();
        });
      });
      proc.on("error", (err) => {
        this.deathReason = `could not run: ${err.message}`;
        this.failPending();
        resolve();
      });
    });
    // stdin errors (EPIPE after a crash) surface through exit; keep them from crashing the agent.
    proc.stdin?.on("error", () => undefined);
    // One write per message, and each message handed on in the turn it arrives (message-writer.ts
    // and message-reader.ts say why).
    this.conn = createMessageConnection(new DirectMessageReader(proc.stdout!), new SingleWriteMessageWriter(proc.stdin!));
    // A message the server sent that cannot be read is dropped (a request it answered then times
    // out); said once per server, with how many followed, so a broken server is visible in the log.
    let protocolErrors = 0;
    this.conn.onError(([err]) => {
      protocolErrors++;
      if (protocolErrors === 1 || protocolErrors % 100 === 0) {
        process.stderr.write(
          `enclave-agent: language server ${spec.id} (pid ${proc.pid}): unreadable message (${err.message.slice(0, 200)}), ${protocolErrors} so far; ` +
            `it is dropped, and a request it answered will time out\n`,
        );
      }
    });
    this.registerHandlers();
    this.conn.listen();
  }

  get id(): string {
    return this.spec.id;
  }

  get alive(): boolean {
    return this.deathReason === undefined;
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  /** Work the server announced with workDoneProgress and has not ended (indexing, loading a project). */
  get indexing(): boolean {
    return this.progress.size > 0;
  }

  /** Whether the server offers `method`: in its capabilities (`capability`), or registered since. */
  supports(method: string, capability: string): boolean {
    return Boolean(this.capabilities[capability]) || this.dynamic.has(method);
  }

  get supportsPullDiagnostics(): boolean {
    return Boolean(this.capabilities.diagnosticProvider) || this.dynamic.has("textDocument/diagnostic");
  }

  stderr(): string {
    return this.stderrTail.trim().split("\n").slice(-5).join("\n");
  }

  static async start(spec: LanguageServerSpec, root: string, binary: string, extraArgs: string[] = []): Promise<ServerConnection> {
    const proc = spawn(binary, [...spec.command.slice(1), ...extraArgs], {
      cwd: root,
      // Its own process group, so stopping it reaches every child it started (tsserver, …).
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
      env: { ...process.env },
    });
    const server = new ServerConnection(spec, root, binary, proc);
    try {
      await server.initialize();
    } catch (err) {
      await server.stop();
      throw err;
    }
    return server;
  }

  private registerHandlers(): void {
    const c = this.conn;
    c.onRequest("workspace/configuration", (params: { items?: Array<{ section?: string }> }) =>
      (params.items ?? []).map((item) => settingAt(this.spec.settings, item.section)),
    );
    c.onRequest("client/registerCapability", (params: { registrations?: Array<{ method: string }> }) => {
      for (const r of params.registrations ?? []) this.dynamic.add(r.method);
      for (const l of this.registrationListeners) l();
      return null;
    });
    c.onRequest("client/unregisterCapability", () => null);
    c.onRequest("window/workDoneProgress/create", () => null);
    c.onRequest("workspace/workspaceFolders", () => [{ uri: pathToFileURL(this.root).href, name: "workspace" }]);
    // Edits are applied by the agent itself (rename), never behind its back by a server command.
    c.onRequest("workspace/applyEdit", () => ({ applied: false, failureReason: "the enclave agent applies edits itself" }));
    c.onRequest("window/showMessageRequest", () => null);
    c.onRequest(() => null);
    c.onNotification("textDocument/publishDiagnostics", (params: { uri: string; version?: number; diagnostics: Diagnostic[] }) => {
      const push = { version: params.version ?? undefined, receivedAt: Date.now(), items: params.diagnostics ?? [] };
      // From a server that versions its pushes, one without a version for an open document is about
      // some other text, never to replace a versioned one: dropped, or kept apart for gopls, whose
      // start-up reports (the files as it read them from disk) come without one.
      if (push.version === undefined && this.spec.pushVersions !== "arrival" && this.docs.has(params.uri)) {
        if (this.spec.pushVersions === "startup-unversioned") this.unversioned.set(params.uri, push);
      } else this.pushed.set(params.uri, push);
      for (const l of this.pushListeners) l(params.uri);
    });
    c.onNotification("$/progress", (params: { token: string | number; value?: { kind?: string } }) => {
      if (params.value?.kind === "begin") {
        this.progress.add(params.token);
        this.sawProgress = true;
        for (const l of this.progressBeginListeners) l();
      } else if (params.value?.kind === "end") {
        this.progress.delete(params.token);
        for (const l of this.progressListeners) l();
      }
    });
    c.onNotification(() => undefined);
  }

  private async initialize(): Promise<void> {
    const rootUri = pathToFileURL(this.root).href;
    const result = await this.request<{ capabilities?: ServerCapabilities }>(
      "initialize",
      {
        processId: process.pid,
        clientInfo: { name: "enclave-agent" },
        rootUri,
        rootPath: this.root,
        workspaceFolders: [{ uri: rootUri, name: "workspace" }],
        capabilities: CLIENT_CAPABILITIES,
        initializationOptions: this.spec.initializationOptions ?? {},
      },
      LIMITS.lspStartTimeoutMs,
    );
    this.capabilities = result?.capabilities ?? {};
    await this.conn.sendNotification("initialized", {});
    // Some servers (pyright) stay silent until they have been sent a configuration.
    await this.conn.sendNotification("workspace/didChangeConfiguration", { settings: this.spec.settings ?? {} });
  }

  private failPending(): void {
    const err = new AgentError(
      "lsp_server_dead",
      `the ${this.spec.id} language server for \`${this.root}\` ${this.deathReason ?? "died"} while answering` +
        `${this.stderr() ? ` (its last output: ${this.stderr()})` : ""}; it is restarted on the next call`,
    );
    for (const reject of this.pending) reject(err);
    this.pending.clear();
  }

  /** A request with a deadline; past it the request is cancelled with $/cancelRequest. Traced calls get a span for it. */
  request<R>(method: string, params: unknown, timeoutMs: number = LIMITS.lspRequestTimeoutMs): Promise<R> {
    return span("lsp.request", { "lsp.method": method, "lsp.server": this.spec.id }, () => this.send<R>(method, params, timeoutMs));
  }

  private send<R>(method: string, params: unknown, timeoutMs: number): Promise<R> {
    if (!this.alive) {
      return Promise.reject(new AgentError("lsp_server_dead", `the ${this.spec.id} language server ${this.deathReason}; it is restarted on the next call`));
    }
    const cts = new CancellationTokenSource();
    return new Promise<R>((resolve, reject) => {
      let settled = false;
      const finish = (fn: () => void): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.pending.delete(onDeath);
        cts.dispose();
        fn();
      };
      const onDeath = (err: Error): void => finish(() => reject(err));
      this.pending.add(onDeath);
      const timer = setTimeout(() => {
        cts.cancel();
        finish(() =>
          reject(
            new AgentError(
              "lsp_timeout",
              `the ${this.spec.id} language server did not answer ${method} within ${timeoutMs} ms (the request was cancelled)` +
                `${this.indexing ? "; it is still indexing, so try again shortly" : "; try again, or call lsp with action reload"}`,
            ),
          ),
        );
      }, timeoutMs);
      let sent: Promise<R>;
      try {
        sent = this.conn.sendRequest<R>(method, params, cts.token);
      } catch (err) {
        // Throws synchronously once the stream has closed: handled like a failed send below.
        sent = Promise.reject(err);
      }
      sent.then(
        (res) => finish(() => resolve(res)),
        (err: unknown) => {
          const e = err as { message?: string; code?: number };
          // A write that failed because the process is dying (EPIPE), or a connection already closed:
          // let its death report the cause; a server still running past that is unreachable all the same.
          if (lostConnection(err)) {
            const lost = (): void =>
              finish(() =>
                reject(
                  new AgentError(
                    "lsp_server_dead",
                    `the ${this.spec.id} language server's connection failed during ${method}: ${e.message ?? String(err)}; call lsp with action reload to restart it`,
                  ),
                ),
              );
            void within(this.exited, 1_000, undefined).then(lost);
            return;
          }
          // JSON-RPC's MethodNotFound ("Unhandled method …"): the server has no such feature.
          const text =
            e.code === -32601
              ? `the ${this.spec.id} language server does not support ${method.replace(/^textDocument\//, "")}`
              : `the ${this.spec.id} language server answered ${method} with an error: ${e.message ?? String(err)}`;
          // ServerCancelled and ContentModified: the server's state moved on; asking again may work.
          const code = e.code === -32802 || e.code === -32801 ? "lsp_state_changed" : e.code === -32601 ? "failed_precondition" : "lsp_server_error";
          finish(() => reject(new AgentError(code, text)));
        },
      );
    });
  }

  notify(method: string, params: unknown): void {
    if (!this.alive) return;
    try {
      // Throws synchronously once the stream has closed, which can precede the exit event.
      void this.conn.sendNotification(method, params).catch(() => undefined);
    } catch {
      // The process is going; its exit reports why.
    }
  }

  /**
   * Waits (bounded) for the server's open progress to end, so a query is not asked mid-index. Right
   * after the first document is opened (when servers load their project) it first gives the server
   * a moment to announce that work.
   */
  async settle(maxMs: number = LIMITS.lspIndexingWaitMs): Promise<void> {
    if (this.spec.readiness.strategy !== "progress") return;
    if (this.progress.size === 0 && !this.sawProgress && this.docs.size > 0 && Date.now() - this.firstOpenAt < LIMITS.lspProgressAnnounceMs) {
      await new Promise<void>((resolve) => {
        const started = (): void => {
          clearTimeout(timer);
          this.progressBeginListeners.delete(started);
          resolve();
        };
        const timer = setTimeout(started, LIMITS.lspProgressAnnounceMs - (Date.now() - this.firstOpenAt));
        this.progressBeginListeners.add(started);
      });
    }
    if (this.progress.size === 0) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        if (this.progress.size > 0) return;
        clearTimeout(timer);
        this.progressListeners.delete(done);
        resolve();
      };
      const timer = setTimeout(() => {
        this.progressListeners.delete(done);
        resolve();
      }, maxMs);
      this.progressListeners.add(done);
    });
  }

  versionOf(uri: string): number | undefined {
    return this.docs.get(uri)?.version;
  }

  openUris(): string[] {
    return [...this.docs.keys()];
  }

  isOpen(uri: string): boolean {
    return this.docs.has(uri);
  }

  openText(uri: string): string | undefined {
    return this.docs.get(uri)?.text;
  }

  private syncKind(): number {
    const s = this.capabilities.textDocumentSync;
    if (typeof s === "number") return s;
    return s?.change ?? 1;
  }

  private saveIncludesText(): boolean {
    const s = this.capabilities.textDocumentSync;
    return typeof s === "object" && typeof s.save === "object" && Boolean(s.save.includeText);
  }

  /**
   * Makes the server's copy of a document equal `text`: didOpen the first time, didChange (whole
   * text, next version) when it differs; then didSave when `save`. Returns the version it now has.
   */
  syncDocument(uri: string, languageId: string, text: string, save: boolean): { version: number; changed: boolean } {
    const doc = this.docs.get(uri);
    let changed = true;
    if (!doc) {
      if (this.docs.size === 0 && this.firstOpenAt === 0) this.firstOpenAt = Date.now();
      this.docs.set(uri, { version: 1, text });
      this.notify("textDocument/didOpen", { textDocument: { uri, languageId, version: 1, text } });
    } else if (doc.text !== text) {
      doc.version += 1;
      doc.text = text;
      // A change without a range replaces the whole text, valid for full and incremental sync alike.
      if (this.syncKind() !== 0) this.notify("textDocument/didChange", { textDocument: { uri, version: doc.version }, contentChanges: [{ text }] });
    } else changed = false;
    if (save) this.notify("textDocument/didSave", { textDocument: { uri }, ...(this.saveIncludesText() ? { text } : {}) });
    return { version: this.docs.get(uri)?.version ?? 1, changed };
  }

  closeDocument(uri: string): void {
    if (!this.docs.delete(uri)) return;
    this.notify("textDocument/didClose", { textDocument: { uri } });
    this.pushed.delete(uri);
    this.unversioned.delete(uri);
  }

  /** The last diagnostics pushed for a document, fresh or not (shown as stale when nothing fresher came). */
  lastPushed(uri: string): PushedDiagnostics | undefined {
    return this.pushed.get(uri) ?? this.unversioned.get(uri);
  }

  /** The push that answers for the document `t` now, if any (by the server's `pushVersions` in server-registry.ts). */
  private answerFor(t: PushTarget): PushedDiagnostics | undefined {
    const p = this.pushed.get(t.uri);
    if (p?.version !== undefined && p.version >= t.version) return p;
    // Unversioned from an "arrival" server: the first one after the edit.
    if (p && p.version === undefined && this.spec.pushVersions === "arrival" && p.receivedAt >= t.since) return p;
    // A start-up report describes the file as the server first saw it (from disk, or the text opened
    // then): this text only when the document was not edited since it was opened and the file has
    // not changed since the server started. Anything else waits for a versioned report.
    const u = this.unversioned.get(t.uri);
    if (u && this.spec.pushVersions === "startup-unversioned" && t.version === 1 && t.fileMtimeMs < this.startedAt) return u;
    return undefined;
  }

  /** The last push when it describes the document `t` already (an unchanged document gets no new one). */
  pushedFor(t: Omit<PushTarget, "since">): PushedDiagnostics | undefined {
    return this.answerFor({ ...t, since: -Infinity });
  }

  /**
   * Diagnostics newer than an edit, as the server's `pushVersions` (server-registry.ts) tells them, debounced so a burst
   * settles; undefined when none comes by `deadline`; "pull" when the server registers pull
   * diagnostics meanwhile (pyright does so a moment after start, and then pushes nothing).
   */
  waitPushed(t: PushTarget, deadline: number): Promise<Diagnostic[] | undefined | "pull"> {
    const couldPull = this.supportsPullDiagnostics;
    return new Promise((resolve) => {
      let debounce: NodeJS.Timeout | undefined;
      const finish = (value: Diagnostic[] | undefined | "pull"): void => {
        clearTimeout(debounce);
        clearTimeout(timer);
        this.pushListeners.delete(onPush);
        this.registrationListeners.delete(onRegistration);
        resolve(value);
      };
      const onRegistration = (): void => {
        if (!couldPull && this.supportsPullDiagnostics) finish("pull");
      };
      this.registrationListeners.add(onRegistration);
      const settle = (): void => {
        const first = this.answerFor(t);
        if (!first) return;
        clearTimeout(debounce);
        debounce = setTimeout(() => finish((this.answerFor(t) ?? first).items), LIMITS.lspDiagnosticsDebounceMs);
      };
      const onPush = (u: string): void => {
        if (u === t.uri) settle();
      };
      const timer = setTimeout(() => finish(this.answerFor(t)?.items), Math.max(0, deadline - Date.now()));
      this.pushListeners.add(onPush);
      settle();
      void this.exited.then(() => finish(undefined));
    });
  }

  /** shutdown and exit, politely and briefly; then the whole process tree is killed regardless. */
  async stop(): Promise<void> {
    if (this.alive && !this.stopping) {
      this.stopping = true;
      try {
        await within(this.request("shutdown", null, LIMITS.lspShutdownGraceMs), LIMITS.lspShutdownGraceMs, undefined);
        this.notify("exit", null);
      } catch {
        // Dying or deaf: the kill below handles it.
      }
      await within(this.exited, 300, undefined);
    }
    this.stopping = true;
    if (this.proc.pid !== undefined) killProcessTree(this.proc.pid);
    await within(this.exited, LIMITS.lspShutdownGraceMs, undefined);
    this.conn.dispose();
  }
}

/** vscode-jsonrpc's own failures of the connection (not an answer from the server), told by its codes. */
function lostConnection(err: unknown): boolean {
  if (err instanceof ConnectionError) return true;
  return (
    err instanceof ResponseError &&
    (err.code === ErrorCodes.MessageWriteError || err.code === ErrorCodes.PendingResponseRejected || err.code === ErrorCodes.ConnectionInactive)
  );
}
