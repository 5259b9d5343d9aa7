// Per-call options every client method takes.
import type { ToolEvent } from "@enclave/proto/gen/enclave/control/v1/control.js";

/** Per call: an AbortSignal cancels it (the promise rejects, or the iteration throws, with an AbortError). */
export interface CallOptions {
  signal?: AbortSignal | undefined;
}

/** A tool call's options: onEvent sees progress and output as they stream. */
export interface CallToolOptions extends CallOptions {
  onEvent?: ((e: ToolEvent) => void) | undefined;
}
