// The debug tool's details: each op's answer as data. Lines are 1-based, as the text shows them;
// paths workspace-relative (null for a file outside the workspace: a runtime's or library's own).
import { z } from "zod";
import { type DebugBreakpointsResponse, DebugEndKind, type DebugException, type DebugStatus } from "@enclave/proto/gen/enclave/agent/v1/debug.js";
import { LIMITS } from "../../limits.js";
import { workspaceRelative } from "../details-paths.js";

const PATH = "workspace-relative source file; null when it is outside the workspace or the frame has no source";

export const BREAKPOINTS_DETAILS = z.object({
  file: z.string().describe("workspace-relative source file"),
  applied: z.boolean().describe("a running session received them; false while they wait for the next launch or attach"),
  breakpoints: z.array(
    z.object({
      requested_line: z.number().int().describe("1-based line asked for"),
      line: z.number().int().nullable().describe("1-based line where the adapter put it; null when not known yet"),
      verified: z.boolean(),
      message: z.string().describe("why it is not verified, as the adapter says, or empty"),
    }),
  ),
});

export function breakpointsDetails(b: DebugBreakpointsResponse): z.infer<typeof BREAKPOINTS_DETAILS> {
  return {
    file: b.file,
    applied: b.applied,
    breakpoints: b.breakpoints.map((bp) => ({ requested_line: bp.requestedLine, line: bp.line || null, verified: bp.verified, message: bp.message })),
  };
}

export const EXCEPTION_DETAILS = z.object({
  type: z.string().describe("its type (ValueError, panic, signal SIGSEGV…)"),
  message: z.string(),
  break_mode: z.string().describe('"always" (a raised-exception stop), "unhandled"… as the adapter says; may be empty'),
  frames: z
    .array(z.object({ function: z.string(), path: z.string().nullable().describe(PATH), line: z.number().int().describe("1-based line") }))
    .describe(`the program's own frames, innermost first, at most ${LIMITS.debugStackFrames}`),
});

export function exceptionDetails(e: DebugException | undefined): z.infer<typeof EXCEPTION_DETAILS> | null {
  if (!e) return null;
  return {
    type: e.type,
    message: e.message,
    break_mode: e.breakMode,
    frames: e.frames.slice(0, LIMITS.debugStackFrames).map((f) => ({ function: f.function, path: workspaceRelative(f.file), line: f.line })),
  };
}

const END_KINDS = ["program_ended", "terminated", "ttl_expired", "adapter_closed", "start_failed", "agent_stopped"] as const;
const END_KIND: Partial<Record<DebugEndKind, (typeof END_KINDS)[number]>> = {
  [DebugEndKind.DEBUG_END_KIND_PROGRAM_ENDED]: "program_ended",
  [DebugEndKind.DEBUG_END_KIND_TERMINATED]: "terminated",
  [DebugEndKind.DEBUG_END_KIND_TTL_EXPIRED]: "ttl_expired",
  [DebugEndKind.DEBUG_END_KIND_ADAPTER_CLOSED]: "adapter_closed",
  [DebugEndKind.DEBUG_END_KIND_START_FAILED]: "start_failed",
  [DebugEndKind.DEBUG_END_KIND_AGENT_STOPPED]: "agent_stopped",
};

/** A session's state: what status, launch, attach, pause, continue, the steps and terminate answer. */
export const SESSION_DETAILS = z.object({
  session_id: z.string().nullable().describe("null when no debug session has run in this conversation"),
  adapter: z.string(),
  program: z.string().describe('workspace-relative program, or "127.0.0.1:PORT" for an attach by port'),
  active: z.boolean().describe("a session exists and has not ended"),
  state: z.string().describe('"starting", "running", "stopped", "exited" or "terminated"; empty when there never was a session'),
  stopped: z
    .object({
      reason: z.string().describe("breakpoint, step, exception, pause… as the adapter says"),
      description: z.string(),
      text: z.string(),
      thread_id: z.number().int(),
      path: z.string().nullable().describe(PATH),
      line: z.number().int().describe("1-based line"),
      function: z.string(),
    })
    .nullable()
    .describe("where it is stopped; null unless state is stopped"),
  exception: EXCEPTION_DETAILS.nullable().describe("the exception it is stopped on, if any"),
  exit_code: z.number().int().nullable().describe("the program's exit status, once known"),
  ended_kind: z.enum(END_KINDS).nullable().describe("why the session ended; null while it runs"),
  ended_reason: z.string().nullable().describe("the same in words"),
  expires_at_ms: z.number().int().nullable().describe("when the session's hard TTL ends it (Unix ms); null once ended"),
  breakpoints: z.array(BREAKPOINTS_DETAILS),
  notes: z.array(z.string()),
});
export type SessionDetails = z.infer<typeof SESSION_DETAILS>;

export function sessionDetails(s: DebugStatus): SessionDetails {
  const st = s.state === "stopped" ? s.stopped : undefined;
  return {
    session_id: s.sessionId || null,
    adapter: s.adapter,
    program: s.program,
    active: s.active,
    state: s.state,
    stopped: st
      ? {
          reason: st.reason,
          description: st.description,
          text: st.text,
          thread_id: Number(st.threadId),
          path: workspaceRelative(st.file),
          line: st.line,
          function: st.function,
        }
      : null,
    exception: exceptionDetails(s.exception),
    exit_code: s.hasExitCode ? s.exitCode : null,
    ended_kind: END_KIND[s.endedKind] ?? null,
    ended_reason: s.active || !s.sessionId ? null : s.endedReason,
    expires_at_ms: s.active ? Number(s.expiresAtMs) : null,
    breakpoints: s.breakpoints.map(breakpointsDetails),
    notes: s.notes,
  };
}

/** A value as the text shows it: cut at the cap, with whether it was. */
export function valueDetails(value: string): { value: string; value_cut: boolean } {
  return { value: value.slice(0, LIMITS.debugValueChars), value_cut: value.length > LIMITS.debugValueChars };
}

export const VALUE_FIELDS = {
  value: z.string().describe(`cut at ${LIMITS.debugValueChars} characters`),
  value_cut: z.boolean(),
};

export const SESSION_OPS = ["status", "launch", "attach", "pause", "continue", "step_over", "step_in", "step_out", "terminate"] as const;
export type SessionOp = (typeof SESSION_OPS)[number];

/** What the ops that answer with the session's state carry: which op, and the session. */
export const SESSION_OP_DETAILS = z.object({ op: z.enum(SESSION_OPS), session: SESSION_DETAILS });
