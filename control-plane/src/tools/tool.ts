// What a tool is: a name, a tier, the resource it needs, an argument schema and a handler. Tools are
// defined with defineTool so the handler gets typed, validated arguments.
import { z } from "zod";
import { formatArgumentErrors } from "./argument-errors.js";
import type { AgentEndpoint, AgentPrepare } from "../placement/agent-endpoint.js";
import type { EnclaveErrorCode } from "../errors.js";
import type { Tier } from "../model/tier.js";
import type { PendingActionStore } from "../pending/pending-action-store.js";
import type { ResourceKind, Run, Surface } from "../model/run.js";

export type ContentPart = (
  | { type: "text"; text: string }
  | { type: "image"; mimeType: string; data: Buffer }
  /** A richer form kept beside the transcript's text (a table's HTML). */
  | { type: "rich"; mimeType: string; text: string }
) & {
  /** The part repeats what the call already sent as output events, so a viewer of the stream skips it. */
  streamed?: boolean;
};

export interface ToolOutput<D = unknown> {
  parts: ContentPart[];
  /** The result as data for a program (exit code, staged change id…), shaped by the tool's details schema. The model reads only the parts. */
  details?: D;
  /** Set when the parts describe a failure that still has output worth keeping (a cell that raised). */
  error?: { code: EnclaveErrorCode };
  /** What the audit log should add about this call (the kernel a cell ran in). */
  audit?: { kernelId?: string; detail?: string };
  /** Workspace-relative files the call wrote, when its arguments do not say (resolve). */
  writtenPaths?: string[];
}

export type ToolStreamEvent = { kind: "progress"; text: string } | { kind: "output"; stream: "stdout" | "stderr"; data: Buffer };

/** "model" for calls the harness makes for its model; "bridge" for calls from a kernel cell. */
export type CallOrigin = "model" | "bridge";

/** A call a tool makes on its run's behalf (the kernel bridge), and what came of it. */
export interface NestedCall {
  tool: string;
  argumentsJson: string;
  origin: CallOrigin;
  /** The kernel a bridge call came from, for the audit log. */
  kernelId?: string;
  /** A narrower surface than the run's own (a cell limited to read tools). */
  surface?: Surface;
  signal: AbortSignal;
}

export interface NestedResult {
  isError: boolean;
  parts: ContentPart[];
  errorCode: string;
  durationMs: number;
  details?: unknown;
}

export interface ToolContext {
  run: Run;
  origin: CallOrigin;
  /** Calls another tool for the same run through the same dispatcher: registry, surface, approval gate, audit. */
  dispatch(call: NestedCall): Promise<NestedResult>;
  /** The agent this call goes to, resolved now from the conversation's state (never starts one). */
  agent(prepare?: AgentPrepare): Promise<AgentEndpoint>;
  emit(event: ToolStreamEvent): void;
  signal: AbortSignal;
  /** The run's pending-action stack, when the run has one (the ast resource). */
  pending?: PendingActionStore;
  /** The kernel a bridge call came from. */
  kernelId?: string;
  /** What a cell under this surface may call with tool(): Enclave's tools and the harness's. */
  callable(surface: Surface): Tool[];
}

export interface Tool {
  name: string;
  tier: Tier;
  resource: ResourceKind;
  description: string;
  parallelSafe: boolean;
  inputSchema: Record<string, unknown>;
  /** JSON Schema of the details its results carry; absent when it has none. */
  detailsSchema?: Record<string, unknown>;
  /** Writes nothing itself, only stages pending actions: allowed while others are pending. */
  stagesOnly?: boolean;
  /** On failure, `error` is the whole message: one line naming each field that is wrong. */
  validate(raw: unknown): { ok: true; args: unknown } | { ok: false; error: string };
  invoke(args: unknown, ctx: ToolContext): Promise<ToolOutput>;
}

export interface ToolSpec<S extends z.ZodType, D extends z.ZodType = z.ZodType<unknown>> {
  name: string;
  tier: Tier;
  resource: ResourceKind;
  description: string;
  parallelSafe?: boolean;
  stagesOnly?: boolean;
  args: S;
  /** The shape of ToolOutput.details, published in ListTools and the clients' generated types. */
  details?: D;
  /** Why a required field the call left out is needed, given the raw arguments (which action asked). */
  missingFieldHint?(field: string, raw: unknown): string | undefined;
  run(args: z.infer<S>, ctx: ToolContext): Promise<ToolOutput<z.infer<D>>>;
}

export function defineTool<S extends z.ZodType, D extends z.ZodType = z.ZodType<unknown>>(spec: ToolSpec<S, D>): Tool {
  return {
    name: spec.name,
    tier: spec.tier,
    resource: spec.resource,
    description: spec.description,
    parallelSafe: spec.parallelSafe ?? spec.tier === "read",
    inputSchema: z.toJSONSchema(spec.args) as Record<string, unknown>,
    ...(spec.details ? { detailsSchema: z.toJSONSchema(spec.details, { io: "output" }) as Record<string, unknown> } : {}),
    stagesOnly: spec.stagesOnly ?? false,
    validate(raw) {
      const r = spec.args.safeParse(raw);
      return r.success
        ? { ok: true, args: r.data }
        : { ok: false, error: formatArgumentErrors(spec.name, r.error, spec.missingFieldHint && ((f) => spec.missingFieldHint?.(f, raw))) };
    },
    // Only reached with arguments validate() accepted.
    invoke: (args, ctx) => spec.run(args as z.infer<S>, ctx),
  };
}

export function text(t: string): ToolOutput {
  return { parts: [{ type: "text", text: t }] };
}
