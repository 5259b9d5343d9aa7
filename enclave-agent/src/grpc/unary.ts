// Wraps an async function as a grpc-js unary handler: a thrown AgentError becomes its status and
// message; anything else becomes INTERNAL with the error's text, and the agent keeps serving.
import { Metadata, type sendUnaryData, type ServerUnaryCall, type ServiceError, status } from "@grpc/grpc-js";
import { agentErrorTrailer } from "@enclave/proto/agent-error-trailer.js";
import { asAgentError } from "../errors.js";
import { statusMessage } from "@enclave/proto/status-message.js";
import { callTraceFor, type CallTrace, withCallTrace } from "../trace/call-trace.js";

export function toServiceError(err: unknown): Partial<ServiceError> {
  const e = asAgentError(err);
  const message = statusMessage(e.message);
  return { code: e.grpcCode, details: message, message, metadata: agentErrorTrailer(e.wireCode) };
}

/** A traced call (its metadata carries a traceparent) returns its spans in its trailers, success or failure. */
export function unary<Req, Res>(fn: (req: Req, call: ServerUnaryCall<Req, Res>) => Promise<Res>) {
  return (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>): void => {
    const trace = callTraceFor(call.metadata);
    withCallTrace(trace, () => fn(call.request, call)).then(
      (res) => callback(null, res, trace?.trailers()),
      (err: unknown) => callback(withSpans(toServiceError(err), trace) as ServiceError, null),
    );
  };
}

function withSpans(e: Partial<ServiceError>, trace: CallTrace | undefined): Partial<ServiceError> {
  if (trace) e.metadata = trace.trailers(e.metadata ?? new Metadata());
  return e;
}

/**
 * Ends a streaming call with the error's status. grpc-js sends a status only when the stream ends
 * normally after an "error" event; destroy() would drop it and leave the caller waiting forever.
 */
export function failStream(call: NodeJS.EventEmitter, err: unknown, trace?: CallTrace): void {
  call.emit("error", withSpans(toServiceError(err), trace));
}

export { status };
