"""The control plane's error codes as exceptions: one subclass of EnclaveError per stable code.

Callers branch on the class (``except NotFoundError``) or on ``.code`` and ``.grpc_code``, never on the
message, which is for people. A failure gRPC itself made (no control plane answered, the caller's own
deadline passed) carries no code and has a class of its own.
"""

from __future__ import annotations

from typing import ClassVar, Mapping, Optional, Tuple, Type

import grpc

#: The trailing-metadata key under which the control plane sends a failed call's code.
ERROR_CODE_TRAILER = "enclave-error-code"


class EnclaveError(Exception):
    """A call that failed: ``.code`` is the control plane's stable code (None when gRPC failed the
    call itself), ``.grpc_code`` its gRPC status, ``.message`` the text for people."""

    CODE: ClassVar[Optional[str]] = None
    GRPC_STATUS: ClassVar[Optional[grpc.StatusCode]] = None

    def __init__(self, message: str, *, code: Optional[str] = None, grpc_code: Optional[grpc.StatusCode] = None) -> None:
        super().__init__(message)
        self.message = message
        self.code: Optional[str] = code if code is not None else self.CODE
        self.grpc_code: grpc.StatusCode = grpc_code or self.GRPC_STATUS or grpc.StatusCode.UNKNOWN

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, grpc_code={self.grpc_code.name}, message={self.message!r})"


class ControlPlaneUnreachable(EnclaveError, ConnectionError):
    """No control plane answered at the address (gRPC's UNAVAILABLE with no code of the control plane's)."""

    GRPC_STATUS = grpc.StatusCode.UNAVAILABLE

    def __init__(self, address: str, cause: str) -> None:
        super().__init__(
            f"no Enclave control plane answers at {address} ({cause}); start one with `make run` or `enclave serve`, or pass another address",
        )
        self.address = address


class DeadlineExceededError(EnclaveError, TimeoutError):
    """The caller's own deadline (a call's ``timeout=``) passed before the control plane answered; the call was cancelled."""

    GRPC_STATUS = grpc.StatusCode.DEADLINE_EXCEEDED


class InvalidArgumentsError(EnclaveError):
    """The call's arguments are not what the call takes. Code ``invalid_arguments``."""

    CODE = "invalid_arguments"
    GRPC_STATUS = grpc.StatusCode.INVALID_ARGUMENT


class UnknownToolError(EnclaveError):
    """No tool of that name is offered to the run. Code ``unknown_tool``."""

    CODE = "unknown_tool"
    GRPC_STATUS = grpc.StatusCode.NOT_FOUND


class ApprovalRefusedError(EnclaveError):
    """The approval gate refused the call. Code ``approval_refused``."""

    CODE = "approval_refused"
    GRPC_STATUS = grpc.StatusCode.PERMISSION_DENIED


class PlacementUnavailableError(EnclaveError):
    """The conversation's placement cannot take calls now. Code ``placement_unavailable``."""

    CODE = "placement_unavailable"
    GRPC_STATUS = grpc.StatusCode.UNAVAILABLE


class EnclosureDeadError(EnclaveError):
    """The conversation's enclosure died. Code ``enclosure_dead``."""

    CODE = "enclosure_dead"
    GRPC_STATUS = grpc.StatusCode.FAILED_PRECONDITION


class AgentLostError(EnclaveError):
    """The enclave agent went away during the call. Code ``agent_lost``."""

    CODE = "agent_lost"
    GRPC_STATUS = grpc.StatusCode.UNAVAILABLE


class NotFoundError(EnclaveError):
    """What the call names (a conversation, a run, a file) does not exist. Code ``not_found``."""

    CODE = "not_found"
    GRPC_STATUS = grpc.StatusCode.NOT_FOUND


class AlreadyExistsError(EnclaveError):
    """What the call would create exists already. Code ``already_exists``."""

    CODE = "already_exists"
    GRPC_STATUS = grpc.StatusCode.ALREADY_EXISTS


class FailedPreconditionError(EnclaveError):
    """The call does not apply to the current state. Code ``failed_precondition``."""

    CODE = "failed_precondition"
    GRPC_STATUS = grpc.StatusCode.FAILED_PRECONDITION


class OutsideWorkspaceError(EnclaveError):
    """A path leads outside the workspace. Code ``outside_workspace``."""

    CODE = "outside_workspace"
    GRPC_STATUS = grpc.StatusCode.PERMISSION_DENIED


class TooLargeError(EnclaveError):
    """An argument or an answer is larger than the limits allow. Code ``too_large``."""

    CODE = "too_large"
    GRPC_STATUS = grpc.StatusCode.RESOURCE_EXHAUSTED


class EnclaveTimeoutError(EnclaveError, TimeoutError):
    """The control plane's own deadline for the work passed. Code ``timeout``."""

    CODE = "timeout"
    GRPC_STATUS = grpc.StatusCode.DEADLINE_EXCEEDED


class EnclaveCancelledError(EnclaveError):
    """The call was cancelled. Code ``cancelled``."""

    CODE = "cancelled"
    GRPC_STATUS = grpc.StatusCode.CANCELLED


class FailedError(EnclaveError):
    """The call failed (the message says how). Code ``failed``."""

    CODE = "failed"
    GRPC_STATUS = grpc.StatusCode.UNKNOWN


class CellErrorError(EnclaveError):
    """An eval cell raised (its output and traceback are the result). Code ``cell_error``."""

    CODE = "cell_error"
    GRPC_STATUS = grpc.StatusCode.ABORTED


class KernelDiedError(EnclaveError):
    """A kernel died during a cell; its state was lost. Code ``kernel_died``."""

    CODE = "kernel_died"
    GRPC_STATUS = grpc.StatusCode.ABORTED


class BridgeLimitError(EnclaveError):
    """A cell made more bridge calls than one cell may. Code ``bridge_limit``."""

    CODE = "bridge_limit"
    GRPC_STATUS = grpc.StatusCode.RESOURCE_EXHAUSTED


class LspTimeoutError(EnclaveError):
    """A language server did not answer within the request's deadline. Code ``lsp_timeout``."""

    CODE = "lsp_timeout"
    GRPC_STATUS = grpc.StatusCode.DEADLINE_EXCEEDED


class LspServerDeadError(EnclaveError):
    """A language server exited or could not run; it is restarted on the next call. Code ``lsp_server_dead``."""

    CODE = "lsp_server_dead"
    GRPC_STATUS = grpc.StatusCode.UNAVAILABLE


class LspServerErrorError(EnclaveError):
    """A language server answered with an error of its own. Code ``lsp_server_error``."""

    CODE = "lsp_server_error"
    GRPC_STATUS = grpc.StatusCode.FAILED_PRECONDITION


class LspStateChangedError(EnclaveError):
    """A language server dropped the request because its state moved on; asking again may work. Code ``lsp_state_changed``."""

    CODE = "lsp_state_changed"
    GRPC_STATUS = grpc.StatusCode.UNAVAILABLE


class LspNoServerError(EnclaveError):
    """No language server can serve the request here (none handles the language, none has its root marker or binary); the message says what to do. Code ``lsp_no_server``."""

    CODE = "lsp_no_server"
    GRPC_STATUS = grpc.StatusCode.FAILED_PRECONDITION


class HarnessDeniedError(EnclaveError):
    """The harness's tool host refused a cell's bridge call. Code ``harness_denied``."""

    CODE = "harness_denied"
    GRPC_STATUS = grpc.StatusCode.PERMISSION_DENIED


class HarnessLostError(EnclaveError):
    """The run's harness tool host disconnected. Code ``harness_lost``."""

    CODE = "harness_lost"
    GRPC_STATUS = grpc.StatusCode.UNAVAILABLE


class DrainingError(EnclaveError):
    """The control plane is shutting down; retry against the next one. Code ``draining``."""

    CODE = "draining"
    GRPC_STATUS = grpc.StatusCode.UNAVAILABLE


class ImageUnusableError(EnclaveError):
    """An image named for an enclosure is missing or cannot run the agent. Code ``image_unusable``."""

    CODE = "image_unusable"
    GRPC_STATUS = grpc.StatusCode.FAILED_PRECONDITION


class DevcontainerInvalidError(EnclaveError):
    """A workspace's devcontainer.json is missing, not JSONC, or has a refused field. Code ``devcontainer_invalid``."""

    CODE = "devcontainer_invalid"
    GRPC_STATUS = grpc.StatusCode.INVALID_ARGUMENT


class DevcontainerBuildFailedError(EnclaveError):
    """The engine could not build a devcontainer's Dockerfile. Code ``devcontainer_build_failed``."""

    CODE = "devcontainer_build_failed"
    GRPC_STATUS = grpc.StatusCode.FAILED_PRECONDITION


class DevcontainerPostCreateFailedError(EnclaveError):
    """A devcontainer's postCreateCommand failed inside the enclosure. Code ``devcontainer_post_create_failed``."""

    CODE = "devcontainer_post_create_failed"
    GRPC_STATUS = grpc.StatusCode.ABORTED


class UnauthenticatedError(EnclaveError):
    """The call carried no valid bearer token. Code ``unauthenticated``."""

    CODE = "unauthenticated"
    GRPC_STATUS = grpc.StatusCode.UNAUTHENTICATED


class QuotaExceededError(EnclaveError):
    """The caller's tenant is at one of its quotas. Code ``quota_exceeded``."""

    CODE = "quota_exceeded"
    GRPC_STATUS = grpc.StatusCode.RESOURCE_EXHAUSTED


class RemoteEngineUnsupportedError(EnclaveError):
    """What was asked needs the engine's machine to be this one. Code ``remote_engine_unsupported``."""

    CODE = "remote_engine_unsupported"
    GRPC_STATUS = grpc.StatusCode.FAILED_PRECONDITION


class AgentBundleMismatchError(EnclaveError):
    """The engine's shared agent-bundle volume does not hold this control plane's bundle. Code ``agent_bundle_mismatch``."""

    CODE = "agent_bundle_mismatch"
    GRPC_STATUS = grpc.StatusCode.FAILED_PRECONDITION


class TooManyCallsError(EnclaveError):
    """A CallTools session already carries the most calls in flight it may. Code ``too_many_calls``."""

    CODE = "too_many_calls"
    GRPC_STATUS = grpc.StatusCode.RESOURCE_EXHAUSTED


class SlowReaderError(EnclaveError):
    """A stream's reader fell behind too far; the stream was cut off. Code ``slow_reader``."""

    CODE = "slow_reader"
    GRPC_STATUS = grpc.StatusCode.RESOURCE_EXHAUSTED


class DevcontainerBuildRefusedError(EnclaveError):
    """Dockerfile builds are not turned on for the caller's tenant. Code ``devcontainer_build_refused``."""

    CODE = "devcontainer_build_refused"
    GRPC_STATUS = grpc.StatusCode.PERMISSION_DENIED


class PendingActionLostError(EnclaveError):
    """resolve on a staged change the control plane could not carry over a restart; it is dropped. Code ``pending_action_lost``."""

    CODE = "pending_action_lost"
    GRPC_STATUS = grpc.StatusCode.ABORTED

class CheckpointUnsupportedError(EnclaveError):
    """A pause that keeps memory cannot be taken here (runc, or an engine without checkpoints). Code ``checkpoint_unsupported``."""

    CODE = "checkpoint_unsupported"
    GRPC_STATUS = grpc.StatusCode.FAILED_PRECONDITION

class CheckpointFailedError(EnclaveError):
    """The engine could not checkpoint the enclosure; it keeps running. Code ``checkpoint_failed``."""

    CODE = "checkpoint_failed"
    GRPC_STATUS = grpc.StatusCode.ABORTED

class ResumeFailedError(EnclaveError):
    """A paused enclosure could not be restored; it stays paused with its checkpoint. Code ``resume_failed``."""

    CODE = "resume_failed"
    GRPC_STATUS = grpc.StatusCode.UNAVAILABLE


class TenantPausedError(EnclaveError):
    """The caller's tenant is paused by an operator; every call is refused until it is resumed. Code ``tenant_paused``."""

    CODE = "tenant_paused"
    GRPC_STATUS = grpc.StatusCode.PERMISSION_DENIED


class PermissionDeniedError(EnclaveError):
    """An operator's action (cancelling a call, stopping a kernel or a host agent) asked with a plain tenant's token. Code ``permission_denied``."""

    CODE = "permission_denied"
    GRPC_STATUS = grpc.StatusCode.PERMISSION_DENIED


#: Every code's exception class, by code.
ERROR_CLASSES: Mapping[str, Type[EnclaveError]] = {
    cls.CODE: cls
    for cls in (
        InvalidArgumentsError,
        UnknownToolError,
        ApprovalRefusedError,
        PlacementUnavailableError,
        EnclosureDeadError,
        AgentLostError,
        NotFoundError,
        AlreadyExistsError,
        FailedPreconditionError,
        OutsideWorkspaceError,
        TooLargeError,
        EnclaveTimeoutError,
        EnclaveCancelledError,
        FailedError,
        CellErrorError,
        KernelDiedError,
        BridgeLimitError,
        LspTimeoutError,
        LspServerDeadError,
        LspServerErrorError,
        LspStateChangedError,
        LspNoServerError,
        HarnessDeniedError,
        HarnessLostError,
        DrainingError,
        ImageUnusableError,
        DevcontainerInvalidError,
        DevcontainerBuildFailedError,
        DevcontainerPostCreateFailedError,
        UnauthenticatedError,
        QuotaExceededError,
        RemoteEngineUnsupportedError,
        AgentBundleMismatchError,
        TooManyCallsError,
        SlowReaderError,
        DevcontainerBuildRefusedError,
        PendingActionLostError,
        TenantPausedError,
        PermissionDeniedError,
        CheckpointUnsupportedError,
        CheckpointFailedError,
        ResumeFailedError,
    )
    if cls.CODE is not None
}

#: Every code the control plane sends, in the order the control plane's table lists them.
ENCLAVE_ERROR_CODES: Tuple[str, ...] = tuple(ERROR_CLASSES)


def error_for_code(code: Optional[str], message: str, grpc_code: Optional[grpc.StatusCode] = None) -> EnclaveError:
    """The exception a failure with this code raises: its code's class, or EnclaveError for a code this
    client does not know (a newer control plane's), keeping the code."""
    cls = ERROR_CLASSES.get(code or "")
    if cls is not None:
        return cls(message, grpc_code=grpc_code)
    return EnclaveError(message, code=code or None, grpc_code=grpc_code)

