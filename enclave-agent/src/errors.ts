// The agent's one error type. Handlers throw it with a code and a message that says what happened
// and what to do; the gRPC layer maps the code to a status.
import { status } from "@grpc/grpc-js";

export type AgentErrorCode =
  | "invalid_argument"
  | "outside_workspace"
  | "not_found"
  | "already_exists"
  | "failed_precondition"
  | "too_large"
  | "unavailable"
  | "internal";

const grpcStatus: Record<AgentErrorCode, status> = {
  invalid_argument: status.INVALID_ARGUMENT,
  outside_workspace: status.PERMISSION_DENIED,
  not_found: status.NOT_FOUND,
  already_exists: status.ALREADY_EXISTS,
  failed_precondition: status.FAILED_PRECONDITION,
  too_large: status.RESOURCE_EXHAUSTED,
  unavailable: status.UNAVAILABLE,
  internal: status.INTERNAL,
};

export class AgentError extends Error {
  constructor(
    readonly code: AgentErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "AgentError";
  }

  get grpcCode(): status {
    return grpcStatus[this.code];
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
