// The control plane's one error type. Its code is stable (tool results carry it as error_code, and
// the gRPC API maps it to a status and sends it in the `enclave-error-code` trailer); its message
// says what happened and what to do, and no code reads it.
import type { status } from "@grpc/grpc-js";
import { ENCLAVE_ERROR_STATUS, type EnclaveErrorCode } from "@enclave/proto/control-errors.js";
// One test mode for both sides: ENCLAVE_REWORD_ERRORS=1 rewrites every message.
import { reworded } from "@enclave/proto/reworded.js";

// The codes, their statuses and their trailer are the protocol's (the Node client reads them too).
export { ENCLAVE_ERROR_CODES, ERROR_CODE_TRAILER, type EnclaveErrorCode, isEnclaveErrorCode } from "@enclave/proto/control-errors.js";

export class EnclaveError extends Error {
  constructor(
    readonly code: EnclaveErrorCode,
    message: string,
  ) {
    super(reworded(message));
    this.name = "EnclaveError";
  }

  get grpcCode(): status {
    return ENCLAVE_ERROR_STATUS[this.code];
  }
}

export function asEnclaveError(err: unknown): EnclaveError {
  if (err instanceof EnclaveError) return err;
  return new EnclaveError("failed", err instanceof Error ? err.message : String(err));
}
