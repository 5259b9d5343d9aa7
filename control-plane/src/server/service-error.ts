// The one place a control-plane error becomes a gRPC status: its code maps to the status code and
// rides in the error-code trailer, its message is made safe to carry (see status-message.ts).
import { Metadata, type ServiceError } from "@grpc/grpc-js";
import { statusMessage } from "@enclave/proto/status-message.js";
import { asEnclaveError, ERROR_CODE_TRAILER } from "../errors.js";

export function toServiceError(err: unknown): ServiceError {
  const e = asEnclaveError(err);
  const message = statusMessage(e.message);
  const metadata = new Metadata();
  metadata.set(ERROR_CODE_TRAILER, e.code);
  return Object.assign(new Error(message), { code: e.grpcCode, details: message, metadata });
}
