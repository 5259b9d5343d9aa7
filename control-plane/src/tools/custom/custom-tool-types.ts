// The types custom-tool authors write against: the factory form the README shows
// (`pi => ({ name, label, description, parameters, execute })`), with `pi.typebox` and
// `pi.pushPendingAction`. Type-only: a tool module imports these with `import type`, so nothing here
// has to exist at run time.
import type * as TypeBox from "@sinclair/typebox";
import type { Static, TSchema } from "@sinclair/typebox";
import type { AgentEndpoint } from "../../placement/agent-endpoint.js";

export type Tier = "read" | "write" | "exec";

export interface TextContent {
  type: "text";
  text: string;
}

export interface ImageContent {
  type: "image";
  /** Base64 of the image's bytes. */
  data: string;
  mimeType: string;
}

/** What a tool's `execute`, and a pending action's `apply`/`reject`, return. */
export interface AgentToolResult<TDetails = unknown> {
  content: (TextContent | ImageContent)[];
  /** Kept for the author's own use; it does not reach the harness. */
  details?: TDetails;
}

/** Streams a partial result while `execute` runs (each one reaches the harness as a progress event). */
export type AgentToolUpdateCallback<TDetails = unknown> = (partial: AgentToolResult<TDetails>) => void;

/** A staged change `resolve` later applies or discards (a stack: the most recent first). */
export interface CustomToolPendingAction {
  /** Short and specific: resolve's result shows it (`Applied: <label>`; discarded, the label, then reject's result or "Discarded"). */
  label: string;
  /** Carries the change out; `reason` is what resolve was given ("" when none). */
  apply(reason: string): Promise<AgentToolResult<unknown> | string> | AgentToolResult<unknown> | string;
  /**
   * Cleans up on discard (temporary state, locks, notifications); omit it for a stateless preview.
   * What it returns replaces the default message "Discarded"; `undefined` keeps the default.
   */
  reject?(reason: string): Promise<AgentToolResult<unknown> | string | undefined> | AgentToolResult<unknown> | string | undefined;
  details?: unknown;
  /** Default "custom_tool". */
  sourceToolName?: string;
  /** Enclave's extension: workspace-relative files apply writes, so language servers are synced for them afterwards. */
  files?: string[];
}

/** An action as the stack holds it: what was pushed, with the id resolve names it by and its source filled in. */
export interface StagedPendingAction extends CustomToolPendingAction {
  /** "edit_K", counted per control plane. */
  id: string;
  sourceToolName: string;
}

/**
 * A run's stack of pending actions, in the document's terms. `resolve` pops the top one first, so
 * several previews resolve in the reverse of the order they were pushed.
 */
export interface PendingActionStore {
  /** Adds an action on top and returns it as staged. */
  push(action: CustomToolPendingAction): StagedPendingAction;
  /** The top (most recent) action, left in place. */
  peek(): StagedPendingAction | undefined;
  /** Removes and returns the top action. */
  pop(): StagedPendingAction | undefined;
  /** True while the stack is not empty: the run then steers tool selection to `resolve`. */
  readonly hasPending: boolean;
}

export interface CustomToolAPI {
  /** The real @sinclair/typebox: build `parameters` with it (its schemas are JSON Schema). */
  typebox: typeof TypeBox;
  /**
   * Stages a change for `resolve`, in the store of the run whose call is running, and returns its id
   * ("edit_K"). Throws "Pending action store unavailable for custom tools in this runtime." when the
   * run has no store (one without the ast resource) or when called outside a tool call.
   */
  pushPendingAction(action: CustomToolPendingAction): string;
}

/** What Enclave adds for a call, as `execute`'s fifth argument (authors of documented tools ignore it). */
export interface CustomToolCallContext {
  runId: string;
  conversationId: string;
  /**
   * The conversation's enclave agent (files, exec), resolved when called: how a tool acts on the
   * workspace wherever it is placed. A pending action's apply may keep and call it later.
   */
  agent(): Promise<AgentEndpoint>;
}

export interface CustomTool<TParams extends TSchema = TSchema, TDetails = unknown> {
  /** Lower-case letters, digits and `_`, starting with a letter. */
  name: string;
  /** A human name for the tool. */
  label: string;
  description: string;
  /** A JSON Schema (TypeBox builds one); arguments are validated against it before `execute` runs. */
  parameters: TParams;
  /**
   * Enclave's extension: which surfaces list the tool and how approval treats it. Default "exec", the
   * most cautious: the tool is off the plan and read-only surfaces and every approval policy but
   * `never` asks before it runs. Declare "read" only for a tool that changes nothing.
   */
  tier?: Tier;
  /** Enclave's extension: the run resource the tool needs to be listed (default "workspace"). */
  resource?: "workspace" | "shell" | "lsp" | "ast" | "debug" | "kernel" | "questions" | "vibe";
  /** Enclave's extension: true when the tool writes nothing itself and only stages pending actions, so it may run while one is pending. */
  stagesOnly?: boolean;
  execute(
    toolCallId: string,
    params: Static<TParams>,
    signal?: AbortSignal,
    onUpdate?: AgentToolUpdateCallback<TDetails>,
    context?: CustomToolCallContext,
  ): Promise<AgentToolResult<TDetails>> | AgentToolResult<TDetails>;
}

/**
 * A custom tool module's default export. Each tool it returns has its own schema, so the factory's
 * type cannot name them: `any` here is what lets `execute`'s `params` be used as the schema says.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyCustomTool = CustomTool<any, any>;
export type CustomToolFactory = (pi: CustomToolAPI) => AnyCustomTool | AnyCustomTool[] | Promise<AnyCustomTool | AnyCustomTool[]>;
