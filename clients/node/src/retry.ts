// Retrying a call the control plane could not take: only for calls that are safe to repeat (reads,
// lists, status), never for a tool call, whose first attempt may have written before the failure.
import { status } from "@grpc/grpc-js";

/** How a call that is safe to repeat is retried when the control plane is draining or unavailable. */
export interface RetryPolicy {
  /** Attempts in all, the first included (1: no retry). */
  attempts: number;
  /** The wait before the second attempt; each later wait doubles, up to maxDelayMs. */
  initialDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = { attempts: 4, initialDelayMs: 100, maxDelayMs: 2_000 };

/**
 * A failure worth another attempt: a control plane shutting down (`draining`) or gRPC finding none to
 * answer (UNAVAILABLE without a code of the control plane's). Other UNAVAILABLE codes (agent_lost, a
 * language server's) say something about the call itself and are left to the caller.
 */
export function retryable(grpcCode: status, code: string | undefined): boolean {
  return code === "draining" || (grpcCode === status.UNAVAILABLE && code === undefined);
}

/** The wait before attempt `attempt` (2 is the first retry), with jitter so clients do not retry in step. */
export function retryDelayMs(policy: RetryPolicy, attempt: number): number {
  const base = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (attempt - 2));
  return base / 2 + Math.random() * (base / 2);
}
