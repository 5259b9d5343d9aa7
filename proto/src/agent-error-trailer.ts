// The agent's error code on the wire: a failed call's AgentErrorCode (errors.proto) travels in a
// trailer beside the gRPC status. The agent writes it, the control plane reads it; both use this codec.
import { Metadata } from "@grpc/grpc-js";
import { AgentErrorCode, AgentErrorStatus } from "../gen/enclave/agent/v1/errors.js";

/** The trailing-metadata key that carries an AgentErrorStatus on every failed call. */
export const AGENT_ERROR_TRAILER = "enclave-agent-error-bin";

/** Trailing metadata carrying `code` (none for UNSPECIFIED: no handler's failure). */
export function agentErrorTrailer(code: AgentErrorCode): Metadata {
  const metadata = new Metadata();
  if (code !== AgentErrorCode.AGENT_ERROR_CODE_UNSPECIFIED)
    metadata.set(AGENT_ERROR_TRAILER, Buffer.from(AgentErrorStatus.encode({ errorCode: code }).finish()));
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
