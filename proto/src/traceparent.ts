// The W3C Trace Context `traceparent` header, read strictly: it comes from callers (and the agent
// reads the control plane's), so anything but the exact version-00 shape is no trace context at all.
// A malformed header is ignored, never an error: tracing must not fail a call.

export interface TraceParent {
  /** 32 lowercase hex digits, not all zero. */
  traceId: string;
  /** 16 lowercase hex digits, not all zero. */
  spanId: string;
  /** The trace-flags byte; bit 0 is "sampled". */
  flags: number;
}

const SHAPE = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE = "0".repeat(32);
const ZERO_SPAN = "0".repeat(16);

/** The trace context a traceparent names, or undefined for anything not exactly version 00's shape. */
export function parseTraceparent(value: unknown): TraceParent | undefined {
  // The shape is 55 characters: anything longer is refused before the pattern reads it.
  if (typeof value !== "string" || value.length !== 55) return undefined;
  const m = SHAPE.exec(value);
  if (!m) return undefined;
  const [, traceId = "", spanId = "", flags = ""] = m;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  return { traceId, spanId, flags: parseInt(flags, 16) };
}

export function formatTraceparent(p: TraceParent): string {
  return `00-${p.traceId}-${p.spanId}-${(p.flags & 0xff).toString(16).padStart(2, "0")}`;
}
