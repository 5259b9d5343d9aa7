// Wraps an async function as a grpc-js unary handler: a thrown AgentError becomes its status and
// message; anything else becomes INTERNAL with the error's text, and the agent keeps serving.
import { type sendUnaryData, type ServerUnaryCall, type ServiceError, status } from "@grpc/grpc-js";
import { agentErrorTrailer } from "@enclave/proto/agent-error-trailer.js";
import { asAgentError } from "../errors.js";
import { statusMessage } from "@enclave/proto/status-message.js";

export function toServiceError(err: unknown): Partial<ServiceError> {
  const e = asAgentError(err);
  const message = statusMessage(e.message);
  return { code: e.grpcCode, details: message, message, metadata: agentErrorTrailer(e.wireCode) };
}

export function unary<Req, Res>(fn: (req: Req, call: ServerUnaryCall<Req, Res>) => Promise<Res>) {
  return (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>): void => {
    fn(call.request, call).then(
      (res) => callback(null, res),
      (err: unknown) => callback(toServiceError(err) as ServiceError, null),
    );
  };
}

/**
 * Ends a streaming call with the error's status. grpc-js sends a status only when the stream ends
 * normally after an "error" event; destroy() would drop it and leave the caller waiting forever.
 */
export function failStream(call: NodeJS.EventEmitter, err: unknown): void {
  call.emit("error", toServiceError(err));
}

export { status };
