// The agent's one error type. Handlers throw it with a code and a message that says what happened
// and what to do; the gRPC layer maps the code to a status and sends the code itself beside it
// (AgentErrorCode in errors.proto), so callers branch on the code and the message stays free text.
import { status } from "@grpc/grpc-js";
import { AgentErrorCode as WireCode } from "@enclave/proto/gen/enclave/agent/v1/errors.js";
import { reworded } from "@enclave/proto/reworded.js";

export type AgentErrorCode =
  | "invalid_argument"
  | "outside_workspace"
  | "not_found"
  | "already_exists"
  | "failed_precondition"
  | "too_large"
  /** What the call needs cannot run here (a kernel, an interpreter, a grammar); the agent is fine. */
  | "unavailable"
  /** The agent is stopping. */
  | "stopping"
  | "internal"
  /** A language server did not answer within the request's deadline. */
  | "lsp_timeout"
  /** A language server exited, was killed or could not run. */
  | "lsp_server_dead"
  /** A language server answered with an error of its own. */
  | "lsp_server_error"
  /** A language server dropped the request because its state moved on; asking again may work. */
  | "lsp_state_changed"
  /** No language server can serve the request here (none handles the language, none can start); the message says what to do. */
  | "lsp_no_server";

// The language-server codes keep the statuses they always had: a control plane of an older build
// reads them as before, a current one reads the finer code.
const grpcStatus: Record<AgentErrorCode, status> = {
  invalid_argument: status.INVALID_ARGUMENT,
  outside_workspace: status.PERMISSION_DENIED,
  not_found: status.NOT_FOUND,
  already_exists: status.ALREADY_EXISTS,
  failed_precondition: status.FAILED_PRECONDITION,
  too_large: status.RESOURCE_EXHAUSTED,
  unavailable: status.UNAVAILABLE,
  stopping: status.UNAVAILABLE,
  internal: status.INTERNAL,
  lsp_timeout: status.FAILED_PRECONDITION,
  lsp_server_dead: status.FAILED_PRECONDITION,
  lsp_server_error: status.FAILED_PRECONDITION,
  lsp_state_changed: status.UNAVAILABLE,
  lsp_no_server: status.FAILED_PRECONDITION,
};

const wireCode: Record<AgentErrorCode, WireCode> = {
  invalid_argument: WireCode.AGENT_ERROR_CODE_INVALID_ARGUMENT,
  outside_workspace: WireCode.AGENT_ERROR_CODE_OUTSIDE_WORKSPACE,
  not_found: WireCode.AGENT_ERROR_CODE_NOT_FOUND,
  already_exists: WireCode.AGENT_ERROR_CODE_ALREADY_EXISTS,
  failed_precondition: WireCode.AGENT_ERROR_CODE_FAILED_PRECONDITION,
  too_large: WireCode.AGENT_ERROR_CODE_TOO_LARGE,
  unavailable: WireCode.AGENT_ERROR_CODE_UNAVAILABLE,
  stopping: WireCode.AGENT_ERROR_CODE_STOPPING,
  internal: WireCode.AGENT_ERROR_CODE_INTERNAL,
  lsp_timeout: WireCode.AGENT_ERROR_CODE_LSP_TIMEOUT,
  lsp_server_dead: WireCode.AGENT_ERROR_CODE_LSP_SERVER_DEAD,
  lsp_server_error: WireCode.AGENT_ERROR_CODE_LSP_SERVER_ERROR,
  lsp_state_changed: WireCode.AGENT_ERROR_CODE_LSP_STATE_CHANGED,
  lsp_no_server: WireCode.AGENT_ERROR_CODE_LSP_NO_SERVER,
};

export class AgentError extends Error {
  constructor(
    readonly code: AgentErrorCode,
    message: string,
  ) {
    super(reworded(message));
    this.name = "AgentError";
  }

  get grpcCode(): status {
    return grpcStatus[this.code];
  }

  /** The code as errors.proto spells it on the wire. */
  get wireCode(): WireCode {
    return wireCode[this.code];
  }
}

/** Turns any thrown value into an AgentError, translating the usual filesystem errno codes. */
export function asAgentError(err: unknown, subject?: string): AgentError {
  if (err instanceof AgentError) return err;
  const e = err as NodeJS.ErrnoException;
  const what = subject ? `\`${subject}\`` : "the path";
  switch (e?.code) {
    case "ENOENT":
      return new AgentError("not_found", `${what} does not exist`);
    case "EISDIR":
      return new AgentError("invalid_argument", `${what} is a directory, not a file`);
    case "ENOTDIR":
      return new AgentError("invalid_argument", `${what} goes through something that is not a directory`);
    case "EEXIST":
      return new AgentError("already_exists", `${what} already exists`);
    case "EACCES":
    case "EPERM":
      return new AgentError("failed_precondition", `${what} is not accessible to the agent (${e.code})`);
    case "ENOSPC":
      return new AgentError("too_large", `no space left on the device while writing ${what}; nothing was changed`);
    case "EROFS":
      return new AgentError("failed_precondition", `${what} is on a read-only filesystem`);
    default:
      return new AgentError("internal", e instanceof Error ? e.message : String(err));
  }
}
