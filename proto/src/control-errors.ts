// The control-plane API's error codes on the wire: each code's gRPC status and the trailer that
// carries the code beside it. The service writes them, the Node client reads them; both use this table.
import { status } from "@grpc/grpc-js";

export type EnclaveErrorCode =
  | "invalid_arguments"
  | "unknown_tool"
  | "approval_refused"
  | "placement_unavailable"
  | "enclosure_dead"
  | "agent_lost"
  | "not_found"
  | "already_exists"
  | "failed_precondition"
  | "outside_workspace"
  | "too_large"
  | "timeout"
  | "cancelled"
  | "failed"
  /** An eval cell raised (its output and traceback are the result). */
  | "cell_error"
  /** A kernel died during a cell (out of memory, os._exit, a crash); its state was lost. */
  | "kernel_died"
  /** A cell made more bridge calls (tool() in a kernel) than one cell may. */
  | "bridge_limit"
  /** A language server did not answer within the request's deadline (it keeps running). */
  | "lsp_timeout"
  /** A language server exited, was killed or could not run; it is restarted on the next call. */
  | "lsp_server_dead"
  /** A language server answered with an error of its own. */
  | "lsp_server_error"
  /** A language server dropped the request because its state moved on (an edit); asking again may work. */
  | "lsp_state_changed"
  /** No language server can serve the request here (none handles the language, none has its root marker or binary); the message says what to do. */
  | "lsp_no_server"
  /** The harness's tool host refused a cell's bridge call it intercepted (its reason is the message). */
  | "harness_denied"
  /** The run's harness tool host disconnected (or none is connected where one is needed). */
  | "harness_lost"
  /** The control plane is shutting down (SIGTERM): it takes no new calls; retry against the next one. */
  | "draining"
  /** An image named for an enclosure is not on the engine, or cannot run the agent (not linux/amd64). */
  | "image_unusable"
  /** A workspace's devcontainer.json is missing, not JSONC, or has a field Enclave refuses. */
  | "devcontainer_invalid"
  /** The engine could not build a devcontainer's Dockerfile. */
  | "devcontainer_build_failed"
  /** A devcontainer's postCreateCommand failed inside the enclosure (which is then removed). */
  | "devcontainer_post_create_failed"
  /** The call carried no bearer token, or one that is not (or no longer) valid. */
  | "unauthenticated"
  /** The caller's tenant is at one of its quotas (the message names it and its limit). */
  | "quota_exceeded"
  /** What was asked needs the engine's machine to be this one (bind mode, reading its /proc), and the enclosure's engine is remote. */
  | "remote_engine_unsupported"
  /** A CallTools session already carries the most calls in flight one session may; wait for one, or use another session. */
  | "too_many_calls"
  /** A stream's reader fell behind by more than the control plane holds for one reader; the stream was cut off. */
  | "slow_reader"
  /** A dev container that builds from a Dockerfile, for a tenant whose builds an operator has not turned on. */
  | "devcontainer_build_refused"
  /** The shared agent-bundle volume on the engine does not hold this control plane's bundle: no enclosure starts with it. */
  | "agent_bundle_mismatch"
  /**
   * resolve on a staged change the control plane could not carry over a restart (a custom tool's,
   * whose apply and reject are code): the message names its id, the tool and its label; it is dropped.
   */
  | "pending_action_lost"
  /** The caller's tenant is paused by an operator: every call is refused until an operator resumes it. */
  | "tenant_paused"
  /** An operator's action (cancelling a call, stopping a kernel or a host agent, pausing a tenant) asked with a plain tenant's token. */
  | "permission_denied"
  /** A pause that keeps memory cannot be taken here: the enclosure runs under runc (CRIU fails on this kernel), or the engine lacks checkpoints (not experimental, or not runsc). */
  | "checkpoint_unsupported"
  /** The engine could not checkpoint the enclosure (an open TCP connection inside, an engine error); it keeps running and nothing was lost. */
  | "checkpoint_failed"
  /** A paused enclosure could not be restored from its checkpoint; it stays paused with its checkpoint in place, and the message says why. */
  | "resume_failed";

/** The gRPC status each code is sent with. */
export const ENCLAVE_ERROR_STATUS: Readonly<Record<EnclaveErrorCode, status>> = {
  invalid_arguments: status.INVALID_ARGUMENT,
  unknown_tool: status.NOT_FOUND,
  approval_refused: status.PERMISSION_DENIED,
  placement_unavailable: status.UNAVAILABLE,
  enclosure_dead: status.FAILED_PRECONDITION,
  agent_lost: status.UNAVAILABLE,
  not_found: status.NOT_FOUND,
  already_exists: status.ALREADY_EXISTS,
  failed_precondition: status.FAILED_PRECONDITION,
  outside_workspace: status.PERMISSION_DENIED,
  too_large: status.RESOURCE_EXHAUSTED,
  timeout: status.DEADLINE_EXCEEDED,
  cancelled: status.CANCELLED,
  failed: status.UNKNOWN,
  cell_error: status.ABORTED,
  kernel_died: status.ABORTED,
  bridge_limit: status.RESOURCE_EXHAUSTED,
  lsp_timeout: status.DEADLINE_EXCEEDED,
  lsp_server_dead: status.UNAVAILABLE,
  lsp_server_error: status.FAILED_PRECONDITION,
  lsp_state_changed: status.UNAVAILABLE,
  lsp_no_server: status.FAILED_PRECONDITION,
  harness_denied: status.PERMISSION_DENIED,
  harness_lost: status.UNAVAILABLE,
  draining: status.UNAVAILABLE,
  image_unusable: status.FAILED_PRECONDITION,
  devcontainer_invalid: status.INVALID_ARGUMENT,
  devcontainer_build_failed: status.FAILED_PRECONDITION,
  devcontainer_post_create_failed: status.ABORTED,
  unauthenticated: status.UNAUTHENTICATED,
  quota_exceeded: status.RESOURCE_EXHAUSTED,
  remote_engine_unsupported: status.FAILED_PRECONDITION,
  agent_bundle_mismatch: status.FAILED_PRECONDITION,
  too_many_calls: status.RESOURCE_EXHAUSTED,
  slow_reader: status.RESOURCE_EXHAUSTED,
  devcontainer_build_refused: status.PERMISSION_DENIED,
  pending_action_lost: status.ABORTED,
  tenant_paused: status.PERMISSION_DENIED,
  permission_denied: status.PERMISSION_DENIED,
  checkpoint_unsupported: status.FAILED_PRECONDITION,
  checkpoint_failed: status.ABORTED,
  resume_failed: status.UNAVAILABLE,
};

/** Every code, for tests and for reading one back from the wire. */
export const ENCLAVE_ERROR_CODES = Object.keys(ENCLAVE_ERROR_STATUS) as EnclaveErrorCode[];

export function isEnclaveErrorCode(s: string): s is EnclaveErrorCode {
  return Object.hasOwn(ENCLAVE_ERROR_STATUS, s);
}

/**
 * The trailing-metadata key under which the control-plane API sends a failed call's code (the same
 * string a tool result's error_code carries), beside the gRPC status.
 */
export const ERROR_CODE_TRAILER = "enclave-error-code";
