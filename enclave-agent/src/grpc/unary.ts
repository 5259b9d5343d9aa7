// Wraps an async function as a grpc-js unary handler: a thrown AgentError becomes its status and
// message; anything else becomes INTERNAL with the error's text, and the agent keeps serving.
import { Metadata, type sendUnaryData, type ServerUnaryCall, type ServiceError, status } from "@grpc/grpc-js";
import { AgentErrorStatus } from "../../../proto/gen/enclave/agent/v1/errors.js";
import { asAgentError } from "../errors.js";

/** The trailing-metadata key that carries an AgentErrorStatus on every failed call. */
export const AGENT_ERROR_TRAILER = "enclave-agent-error-bin";

export function toServiceError(err: unknown): Partial<ServiceError> {
  const e = asAgentError(err);
  const metadata = new Metadata();
  metadata.set(AGENT_ERROR_TRAILER, Buffer.from(AgentErrorStatus.encode({ errorCode: e.wireCode }).finish()));
  return { code: e.grpcCode, details: e.message, message: e.message, metadata };
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
