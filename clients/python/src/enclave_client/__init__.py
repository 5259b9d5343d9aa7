"""Enclave's Python client: the control-plane API for harnesses, sync (EnclaveClient) and asyncio
(AsyncEnclaveClient), typed results, the error codes as exceptions, and a sandbox-shaped layer (Sandbox,
AsyncSandbox)."""

from . import errors, tool_types
from ._wire import DEFAULT_ADDRESS, RetryPolicy, TlsOptions
from .aio import AsyncEnclaveClient, AsyncEventStream
from .aio_sandbox import AsyncSandbox
from .client import EnclaveClient, EventStream
from .errors import (
    ENCLAVE_ERROR_CODES,
    ERROR_CLASSES,
    ControlPlaneUnreachable,
    DeadlineExceededError,
    EnclaveError,
    error_for_code,
)
from .models import (
    AuditEvent,
    Card,
    CardAnswer,
    CardEvent,
    ContentPart,
    Conversation,
    EgressDestination,
    EnclosureOptions,
    ListToolsResult,
    PendingState,
    PlacementDescription,
    Run,
    SyncWritesResult,
    ToolEvent,
    ToolInfo,
    ToolOutput,
    ToolProgress,
    ToolResult,
    ToolResultEvent,
)
from .sandbox import ExecResult, Sandbox
from .tool_types import (
    AsyncRunTools,
    ExecDetails,
    RunTools,
    ast_edit_details,
    eval_details,
    exec_details,
    lsp_details,
    read_details,
    resolve_details,
)

__version__ = "0.1.0"

__all__ = [
    "AsyncEnclaveClient",
    "AsyncEventStream",
    "AsyncRunTools",
    "AsyncSandbox",
    "AuditEvent",
    "Card",
    "CardAnswer",
    "CardEvent",
    "ContentPart",
    "ControlPlaneUnreachable",
    "Conversation",
    "EgressDestination",
    "DEFAULT_ADDRESS",
    "DeadlineExceededError",
    "ENCLAVE_ERROR_CODES",
    "ERROR_CLASSES",
    "EnclaveClient",
    "EnclaveError",
    "EnclosureOptions",
    "EventStream",
    "ExecDetails",
    "ExecResult",
    "ListToolsResult",
    "PendingState",
    "PlacementDescription",
    "RetryPolicy",
    "Run",
    "RunTools",
    "Sandbox",
    "SyncWritesResult",
    "TlsOptions",
    "ToolEvent",
    "ToolInfo",
    "ToolOutput",
    "ToolProgress",
    "ToolResult",
    "ToolResultEvent",
    "error_for_code",
    "errors",
    "exec_details",
    "ast_edit_details",
    "eval_details",
    "lsp_details",
    "read_details",
    "resolve_details",
    "tool_types",
]
