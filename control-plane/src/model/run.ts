// A run: one agent run of a conversation, with its surface (which tiers it sees), the resources
// wired for it (which tools exist at all) and its approval policy.
import type { Tier } from "./tier.js";

export const SURFACES = ["default", "plan", "readonly_subagent"] as const;
export type Surface = (typeof SURFACES)[number];

export const APPROVAL_POLICIES = ["never", "write", "always"] as const;
export type ApprovalPolicy = (typeof APPROVAL_POLICIES)[number];
export const DEFAULT_APPROVAL_POLICY: ApprovalPolicy = "write";

/**
 * The resources a run can be wired with; each tool needs one. workspace: files; shell: exec;
 * lsp: a language-server supervisor; ast: a tree-sitter parser (and the pending-action store);
 * debug: a debug-session supervisor; kernel: a kernel factory; questions: a question port with a
 * target space; vibe: a vibe roster.
 */
export const RESOURCES = ["workspace", "shell", "lsp", "ast", "debug", "kernel", "questions", "vibe"] as const;
export type ResourceKind = (typeof RESOURCES)[number];

/** Plan mode and read-only subagents see read tools only: others are absent, not refused. */
export const SURFACE_TIERS: Record<Surface, readonly Tier[]> = {
  default: ["read", "write", "exec"],
  plan: ["read"],
  readonly_subagent: ["read"],
};

export interface Run {
  id: string;
  conversationId: string;
  surface: Surface;
  resources: ResourceKind[];
  approvalPolicy: ApprovalPolicy;
  openedAtMs: number;
  /** The conversation whose cards show this run's questions and permission requests. */
  targetSpace: string;
  /** While on, the vibe_* tools are listed (the vibe resource must be wired too). */
  vibeMode: boolean;
  /** How long a card raised by this run waits; 0 for the server's default. */
  questionTimeoutMs: number;
  /** Opened for the command line, which keeps it across calls until closed or idle. */
  cli: boolean;
  /** When the last call ended or the latest began; 0 before any. */
  lastUsedMs: number;
  callsInFlight: number;
  /** The tenant of the run's conversation. */
  tenant: string;
  /** While a change is staged, every tool but `resolve` is refused (absent on runs recorded before it existed: off). */
  strictResolve?: boolean;
}

export interface OpenRunRequest {
  conversationId: string;
  surface?: string;
  resources?: string[];
  approvalPolicy?: string;
  /** Defaults to the run's own conversation. */
  targetSpace?: string;
  vibeMode?: boolean;
  questionTimeoutSeconds?: number;
  /** Refuse every tool but `resolve` while a change is staged, reads and staging tools too. */
  strictResolve?: boolean;
  /** The tenant of the conversation (the control plane sets it); the implicit tenant when absent. */
  tenant?: string;
}

/**
 * Whether a resource is wired for a run: listed in its resources, and for questions a target space,
 * for vibe the run's vibe mode on.
 */
export function resourceWired(run: Run, kind: ResourceKind): boolean {
  if (!run.resources.includes(kind)) return false;
  if (kind === "questions") return run.targetSpace !== "";
  if (kind === "vibe") return run.vibeMode;
  return true;
}
