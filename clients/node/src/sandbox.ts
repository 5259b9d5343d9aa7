// A sandbox-shaped layer for code that uses results rather than forwarding them to a model: one
// conversation and one run, and methods that answer with each tool's details. The calls are the same
// tool calls a harness makes, so the run's surface, the approval gate and the audit log apply alike.
import type { CallOptions } from "./call-options.js";
import { type ClientOptions, ControlPlaneClient } from "./control-plane-client.js";
import type { ToolArgumentsMap, ToolDetailsMap, ToolName } from "./generated/tool-types.js";
import type { ApprovalPolicy, Surface } from "./run-options.js";
import type { RunTools, TypedToolResult } from "./run-tools.js";
import { resultText, type ToolCallResult } from "./tool-result.js";

export interface SandboxOptions extends ClientOptions {
  /** The control plane, `host:port` or `unix:///path` (default: $ENCLAVE_ADDRESS, else 127.0.0.1:7400). */
  address?: string | undefined;
  /** Use this conversation instead of creating one (it is then not deleted by close()). */
  conversationId?: string | undefined;
  /** The new conversation's workspace folder on the control plane's host (default: one it makes). */
  workspacePath?: string | undefined;
  surface?: Surface | undefined;
  /** Defaults to `never`: a sandbox is driven by code, with nobody to answer permission cards. */
  approvalPolicy?: ApprovalPolicy | undefined;
  resources?: string[] | undefined;
  /** Start the conversation's enclosure first (otherwise the control plane places calls on the host). */
  enclosure?: boolean | undefined;
}

/** A tool answered an error: the run's gate refused it, its arguments were wrong, or it failed. */
export class ToolCallFailed extends Error {
  override readonly name = "ToolCallFailed";
  constructor(
    readonly tool: string,
    /** The stable error code (`invalid_arguments`, `approval_refused`, `not_found`…). */
    readonly code: string,
    /** The whole result, its text and details included. */
    readonly result: TypedToolResult<ToolName>,
  ) {
    super(`${tool}: ${result.text || code}`);
  }
}

type Details<N extends ToolName> = NonNullable<ToolDetailsMap[N]>;
/** A result whose details are there (an error result throws instead). */
export type SandboxResult<N extends ToolName> = TypedToolResult<N> & { details: Details<N> };

export const DEFAULT_ADDRESS = "127.0.0.1:7400";

export interface ExecOptions extends CallOptions {
  cwd?: string | undefined;
  env?: Record<string, string> | undefined;
  stdin?: string | undefined;
  timeoutSeconds?: number | undefined;
}

export interface EvalOptions extends CallOptions {
  language?: "python" | "javascript" | undefined;
  /** Shown in the transcript and audit (default: "run code from the SDK"). */
  description?: string | undefined;
  timeoutSeconds?: number | undefined;
  reset?: boolean | undefined;
}

/** Drops the keys whose value is undefined, so optional arguments are left out rather than sent as null. */
function defined<T extends Record<string, unknown>>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

export class Sandbox implements AsyncDisposable {
  /** Typed tool calls for this sandbox's run, results whole (text, parts, details). */
  readonly tools: RunTools;

  private constructor(
    readonly client: ControlPlaneClient,
    readonly conversationId: string,
    readonly runId: string,
    private readonly ownsConversation: boolean,
  ) {
    this.tools = client.tools(runId);
  }

  /** Connects, creates (or takes) a conversation, starts its enclosure if asked, and opens a run. */
  static async create(opts: SandboxOptions = {}): Promise<Sandbox> {
    const { address, conversationId, workspacePath, surface, approvalPolicy, resources, enclosure, ...clientOptions } = opts;
    const client = new ControlPlaneClient(address ?? process.env["ENCLAVE_ADDRESS"] ?? DEFAULT_ADDRESS, clientOptions);
    let created = "";
    try {
      const id = conversationId ?? (created = (await client.createConversation("", workspacePath ?? "")).id);
      if (enclosure) await client.startEnclosure(id);
      const run = await client.openRun(id, { surface, approvalPolicy: approvalPolicy ?? "never", resources });
      return new Sandbox(client, id, run.id, created !== "");
    } catch (err) {
      if (created) await client.deleteConversation(created).catch(() => undefined);
      client.close();
      throw err;
    }
  }

  /** Any tool of the run by name, the harness's own included; the result whole (an error is a result, not thrown). */
  async call(tool: string, args: Record<string, unknown> = {}, opts: CallOptions = {}): Promise<ToolCallResult & { text: string }> {
    const r = await this.client.callTool(this.runId, tool, args, opts);
    return { ...r, text: resultText(r) };
  }

  /** Calls a built-in tool; a result that is an error throws ToolCallFailed. */
  private async checked<N extends ToolName>(tool: N, args: ToolArgumentsMap[N], opts: CallOptions = {}): Promise<SandboxResult<N>> {
    const call = this.tools[tool] as (a: ToolArgumentsMap[N], o?: CallOptions) => Promise<TypedToolResult<N>>;
    const r = await call(args, opts);
    if (r.isError || r.details === undefined) throw new ToolCallFailed(tool, r.errorCode || "no_details", r as TypedToolResult<ToolName>);
    return r as SandboxResult<N>;
  }

  /** Runs a shell command; a non-zero exit is data (`exit_code`), not an exception. */
  exec(command: string, opts: ExecOptions = {}): Promise<Details<"exec">> {
    const { signal, cwd, env, stdin, timeoutSeconds } = opts;
    return this.checked("exec", defined({ command, cwd, env, stdin, timeout_seconds: timeoutSeconds }), { signal }).then((r) => r.details);
  }

  /** Runs a cell in the conversation's kernel; an exception the cell raised is data (`details.error`), not thrown here. */
  async eval(code: string, opts: EvalOptions = {}): Promise<SandboxResult<"eval">> {
    const { signal, language, description, timeoutSeconds, reset } = opts;
    const r = await this.tools.eval(defined({ code, description: description ?? "run code from the SDK", language, timeout_seconds: timeoutSeconds, reset }), {
      signal,
    });
    if (r.details === undefined) throw new ToolCallFailed("eval", r.errorCode || "no_details", r as TypedToolResult<ToolName>);
    return r as SandboxResult<"eval">;
  }

  readonly files = {
    /** The file's text (its lines from `offset`, `limit` of them, when given). */
    read: async (path: string, opts: CallOptions & { offset?: number; limit?: number } = {}): Promise<string> =>
      (await this.checked("read", defined({ path, offset: opts.offset, limit: opts.limit }), opts)).details.content,
    write: (path: string, content: string, opts: CallOptions = {}): Promise<SandboxResult<"write">> => this.checked("write", { path, content }, opts),
    list: (path = "", opts: CallOptions & { recursive?: boolean; maxEntries?: number } = {}): Promise<SandboxResult<"list">> =>
      this.checked("list", defined({ path: path || undefined, recursive: opts.recursive, max_entries: opts.maxEntries }), opts),
  };

  readonly lsp = {
    hover: (file: string, line: number, symbol: string, opts: CallOptions = {}): Promise<SandboxResult<"lsp">> =>
      this.checked("lsp", { action: "hover", file, line, symbol }, opts),
    definition: (file: string, line: number, symbol: string, opts: CallOptions = {}): Promise<SandboxResult<"lsp">> =>
      this.checked("lsp", { action: "definition", file, line, symbol }, opts),
    references: (file: string, line: number, symbol: string, opts: CallOptions = {}): Promise<SandboxResult<"lsp">> =>
      this.checked("lsp", { action: "references", file, line, symbol }, opts),
    diagnostics: (file: string, opts: CallOptions = {}): Promise<SandboxResult<"lsp">> => this.checked("lsp", { action: "diagnostics", file }, opts),
  };

  /** Stages a structural rewrite (ast_edit); the answer's `edit_id` is what resolve() takes. Nothing is written until then. */
  stage(pattern: string, rewrite: string, opts: CallOptions & { path?: string; language?: string } = {}): Promise<SandboxResult<"ast_edit">> {
    return this.checked("ast_edit", defined({ pattern, rewrite, path: opts.path, language: opts.language }), opts);
  }

  /** Applies or discards a staged change (the most recent when no id is given). */
  resolve(action: "apply" | "discard", editId?: string, opts: CallOptions & { reason?: string } = {}): Promise<SandboxResult<"resolve">> {
    return this.checked("resolve", defined({ action, edit_id: editId, reason: opts.reason }), opts);
  }

  /** Closes the run, deletes the conversation if this sandbox created it, and closes the client. */
  async close(): Promise<void> {
    try {
      await this.client.closeRun(this.runId).catch(() => undefined);
      if (this.ownsConversation) await this.client.deleteConversation(this.conversationId);
    } finally {
      this.client.close();
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
