// Traces across the agent channel: the control plane sends a call's W3C traceparent to the agent, and
// the agent sends the spans it made for that call back on the same call (trailers, or the MuxReply).
// Both ends use these names and bounds.
import { Metadata } from "@grpc/grpc-js";
import { AgentSpanBatch } from "../gen/enclave/agent/v1/trace.js";

/** Request metadata carrying the control plane's span for the call, as a W3C traceparent. */
export const TRACEPARENT_METADATA = "traceparent";

/** Trailing metadata carrying an encoded AgentSpanBatch. */
export const AGENT_SPANS_TRAILER = "enclave-agent-spans-bin";

export const AGENT_TRACE_LIMITS = {
  /**
   * The most an encoded batch may take. A trailer travels in one HTTP/2 header block, which a peer
   * bounds (grpc-js: 8 KiB for all the trailers together), so a batch stays well under it.
   */
  batchMaxBytes: 4 * 1024,
  /** Spans kept per call; the agent drops the rest (and counts them), the control plane too. */
  spansPerCall: 16,
  attributesPerSpan: 8,
  nameMaxChars: 64,
  attributeKeyMaxChars: 64,
  attributeValueMaxChars: 128,
} as const;

/** The span batch a call's trailers carry, or undefined when none does (or it is too large or does not decode). */
export function trailerSpans(metadata: Metadata | undefined): AgentSpanBatch | undefined {
  const [raw] = metadata?.get(AGENT_SPANS_TRAILER) ?? [];
  return Buffer.isBuffer(raw) ? decodeSpanBatch(raw) : undefined;
}

/** Decodes a batch the agent sent, refusing one over the size bound before reading it. */
export function decodeSpanBatch(bytes: Uint8Array): AgentSpanBatch | undefined {
  if (bytes.byteLength === 0 || bytes.byteLength > AGENT_TRACE_LIMITS.batchMaxBytes) return undefined;
  try {
    return AgentSpanBatch.decode(bytes);
  } catch {
    return undefined;
  }
}

/** The traceparent a call's request metadata carries, as sent (the receiver checks it). */
export function metadataTraceparent(metadata: Metadata | undefined): string | undefined {
  const values = metadata?.get(TRACEPARENT_METADATA) ?? [];
  // Two traceparents are no traceparent.
  const [v] = values;
  return values.length === 1 && typeof v === "string" ? v : undefined;
}
