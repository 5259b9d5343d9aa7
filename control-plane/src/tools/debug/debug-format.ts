// Texts of the debug tool: a session's status, breakpoints, a value cut to the cap.
import { type DebugBreakpointsResponse, DebugEndKind, type DebugException, type DebugStatus } from "@enclave/proto/gen/enclave/agent/v1/debug.js";
import { LIMITS } from "../../limits.js";

/** A value cut at the cap, saying how long it was. */
export function cutValue(value: string): string {
  if (value.length <= LIMITS.debugValueChars) return value;
  return `${value.slice(0, LIMITS.debugValueChars)}… [cut at ${LIMITS.debugValueChars} of ${value.length} characters]`;
}

function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  const m = Math.floor(s / 60);
  return m ? `${m} min ${s % 60} s` : `${s} s`;
}

export function formatBreakpoints(b: DebugBreakpointsResponse): string {
  if (b.breakpoints.length === 0) return `${b.file}: no breakpoints`;
  const parts = b.breakpoints.map((bp) => {
    if (!b.applied) return `${bp.requestedLine} (pending until launch or attach)`;
    const moved = bp.line && bp.line !== bp.requestedLine ? ` → line ${bp.line}` : "";
    return `${bp.requestedLine}${moved} ${bp.verified ? "(verified)" : `(not verified${bp.message ? `: ${bp.message}` : ""})`}`;
  });
  return `${b.file}: ${parts.join(", ")}`;
}

/** The exception stopped on: its type and message, then the program's own frames, innermost first. */
export function formatException(e: DebugException): string {
  const head = `exception ${e.type}${e.message ? `: ${e.message.replace(/\s*\n\s*/g, " ")}` : ""}`;
  const frames = e.frames.slice(0, LIMITS.debugStackFrames).map((f) => `  ${f.file}:${f.line} in ${f.function}`);
  return [head, ...(frames.length ? ["traceback (the program's frames, innermost first):", ...frames] : [])].join("\n");
}

export function formatStatus(s: DebugStatus): string {
  const lines: string[] = [];
  if (!s.sessionId) {
    lines.push("no debug session has run in this conversation; start one with launch (or attach)");
  } else {
    const head = `session ${s.sessionId} (${s.adapter}, ${s.program})`;
    if (s.active) {
      if (s.state === "stopped" && s.stopped) {
        const st = s.stopped;
        const where = st.file ? `${st.file}:${st.line}` : "an unknown location";
        const fn = st.function ? ` in ${st.function}` : "";
        const why = [st.reason, st.description && st.description !== st.reason ? st.description : "", st.text].filter(Boolean).join(": ");
        if (s.exception) {
          const mode = s.exception.breakMode;
          const kind = mode === "always" ? "a raised exception" : /unhandled/i.test(mode) ? "an uncaught exception" : "an exception";
          lines.push(`${head} is stopped on ${kind} at ${where}${fn}, thread ${st.threadId}`, formatException(s.exception));
        } else lines.push(`${head} is stopped at ${where}${fn} (${why}), thread ${st.threadId}`);
      } else if (s.state === "running") {
        lines.push(`${head} is running (not stopped at a breakpoint); pause it, or wait and ask status again`);
      } else {
        lines.push(`${head} is ${s.state}`);
      }
      lines.push(`expires in ${duration(s.expiresAtMs - Date.now())} (hard TTL; terminated then)`);
    } else {
      // A program's end already says its exit code; any other end (terminate, TTL) adds it when known.
      const saysExit = s.endedKind === DebugEndKind.DEBUG_END_KIND_PROGRAM_ENDED;
      lines.push(`${head} has ended: ${s.endedReason}${s.hasExitCode && !saysExit ? ` (exit code ${s.exitCode})` : ""}`);
    }
    if (s.interpreter) lines.push(`interpreter: ${s.interpreter}`);
  }
  if (s.breakpoints.length) lines.push(`breakpoints: ${s.breakpoints.map(formatBreakpoints).join("; ")}`);
  for (const n of s.notes) lines.push(`note: ${n}`);
  return lines.join("\n");
}
