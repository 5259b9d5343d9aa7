// Wraps an async function as a grpc-js unary handler: a thrown AgentError becomes its status and
// message; anything else becomes INTERNAL with the error's text, and the agent keeps serving.
import { Metadata, type sendUnaryData, type ServerUnaryCall, type ServiceError, status } from "@grpc/grpc-js";
import { AgentErrorCode, AgentErrorStatus } from "../../../proto/gen/enclave/agent/v1/errors.js";
import { asAgentError } from "../errors.js";
import { statusMessage } from "./status-message.js";

/** The trailing-metadata key that carries an AgentErrorStatus on every failed call. */
export const AGENT_ERROR_TRAILER = "enclave-agent-error-bin";

/** Trailing metadata carrying `code` (none for UNSPECIFIED: no handler's failure). */
export function agentErrorTrailer(code: AgentErrorCode): Metadata {
  const metadata = new Metadata();
  if (code !== AgentErrorCode.AGENT_ERROR_CODE_UNSPECIFIED) metadata.set(AGENT_ERROR_TRAILER, Buffer.from(AgentErrorStatus.encode({ errorCode: code }).finish()));
  return metadata;
}

/** The AgentErrorCode a failure's trailers carry, or undefined when none does (or it does not decode). */
export function trailerErrorCode(metadata: Metadata | undefined): AgentErrorCode | undefined {
  const [raw] = metadata?.get(AGENT_ERROR_TRAILER) ?? [];
  if (!Buffer.isBuffer(raw)) return undefined;
  try {
    const code = AgentErrorStatus.decode(raw).errorCode;
    return code === AgentErrorCode.AGENT_ERROR_CODE_UNSPECIFIED ? undefined : code;
  } catch {
    return undefined;
  }
}

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
