"""The synchronous client of the control-plane API: every call a harness makes, on grpc's blocking channel.

The same shape as the Node client (``@enclave-sandbox/client``): conversations, enclosures, runs,
tools (a call's result, or its events as an iterator), placement, audit and cards, a bearer token
and TLS. Failures raise the code's EnclaveError subclass; reads are retried while the control plane
drains or is unreachable, tool calls never are.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Iterator, List, Mapping, Optional, Sequence, Tuple, TypeVar, Union

import grpc

from . import models as m
from ._gen.enclave.control.v1 import control_pb2 as pb
from ._gen.enclave.control.v1 import control_pb2_grpc as pb_grpc
from ._wire import (
    NO_RETRY,
    RetryPolicy,
    Tls,
    arguments_json,
    call_error,
    channel_options as build_channel_options,
    credentials,
    metadata,
    resolve_address,
    retryable,
)
from .errors import EnclaveError
from .tool_types import RunTools

_E = TypeVar("_E")
_T = TypeVar("_T")

Arguments = Union[Mapping[str, Any], str, None]


class EventStream(Iterator[_E]):
    """A server stream as an iterator: ends with the stream, raises its failure as an EnclaveError.
    ``cancel()`` (from any thread), ``close()`` or leaving a ``with`` block cancels it on the server."""

    def __init__(self, address: str, call: Any, convert: Callable[[Any], Optional[_E]]) -> None:
        self._address = address
        self._call = call
        self._convert = convert
        self._cancelled = False

    def __iter__(self) -> "EventStream[_E]":
        return self

    def __next__(self) -> _E:
        while True:
            try:
                raw = next(self._call)
            except grpc.RpcError as err:
                if self._cancelled:
                    raise StopIteration from None
                raise call_error(self._address, err) from None
            event = self._convert(raw)
            if event is not None:
                return event

    def cancel(self) -> None:
        """Cancels the stream on the server (a command or cell it runs is stopped); iteration then ends."""
        self._cancelled = True
        self._call.cancel()

    close = cancel

    def __enter__(self) -> "EventStream[_E]":
        return self

    def __exit__(self, *exc: object) -> None:
        self.cancel()


class EnclaveClient:
    """A connection to a control plane.

    ``address``: "host:port" or "unix:///path/to.sock" (default: ENCLAVE_ADDRESS, else 127.0.0.1:7400).
    ``token``: sent as ``authorization: Bearer TOKEN`` with every call. ``tls``: True for TLS with the
    system's roots, a TlsOptions for others. ``retry``: a RetryPolicy for reads, False for none.
    ``timeout``: the default deadline of unary calls in seconds (None: none; each call may pass its own).
    """

    def __init__(
        self,
        address: Optional[str] = None,
        *,
        token: Optional[str] = None,
        tls: Tls = None,
        retry: Union[RetryPolicy, bool] = True,
        timeout: Optional[float] = None,
        channel_options: Sequence[Tuple[str, Any]] = (),
    ) -> None:
        self.address = resolve_address(address)
        creds = credentials(tls)
        opts = build_channel_options(tls, channel_options)
        self._channel = grpc.secure_channel(self.address, creds, opts) if creds else grpc.insecure_channel(self.address, opts)
        self._stub = pb_grpc.ControlPlaneStub(self._channel)  # type: ignore[no-untyped-call]
        self._metadata = metadata(token)
        self._retry = NO_RETRY if retry is False else (RetryPolicy() if retry is True else retry)
        self._timeout = timeout

    def close(self) -> None:
        """Closes the connection; calls still in flight are cancelled."""
        self._channel.close()

    def __enter__(self) -> "EnclaveClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _call(self, method: Callable[..., Any], request: Any, timeout: Optional[float]) -> Any:
        try:
            return method(request, metadata=self._metadata, timeout=timeout if timeout is not None else self._timeout)
        except grpc.RpcError as err:
            raise call_error(self.address, err) from None

    def _read(self, method: Callable[..., Any], request: Any, timeout: Optional[float]) -> Any:
        """A call that is safe to repeat: retried while the control plane drains or is unreachable."""
        attempt = 1
        while True:
            try:
                return self._call(method, request, timeout)
            except EnclaveError as err:
                if attempt >= self._retry.attempts or not retryable(err):
                    raise
                attempt += 1
                time.sleep(self._retry.delay(attempt))

    def _stream(self, method: Callable[..., Any], request: Any, convert: Callable[[Any], Optional[_E]], timeout: Optional[float] = None) -> EventStream[_E]:
        return EventStream(self.address, method(request, metadata=self._metadata, timeout=timeout), convert)

    # Conversations and enclosures.

    def create_conversation(
        self,
        id: str = "",
        workspace_path: str = "",
        *,
        idle_timeout_seconds: int = 0,
        max_lifetime_seconds: int = 0,
        egress: Sequence[m.EgressDestination] = (),
        timeout: Optional[float] = None,
    ) -> m.Conversation:
        """A new conversation; its id and workspace are made when not given. ``idle_timeout_seconds`` and
        ``max_lifetime_seconds``: its lifecycle (0: the server's defaults). ``egress``: where its code may
        reach through the egress proxy (default: nowhere)."""
        req = pb.CreateConversationRequest(
            id=id,
            workspace_path=workspace_path,
            idle_timeout_seconds=idle_timeout_seconds,
            max_lifetime_seconds=max_lifetime_seconds,
            egress=m.egress_policy_pb(egress) if egress else None,
        )
        return m.conversation_from_pb(self._call(self._stub.CreateConversation, req, timeout))

    def get_conversation(self, conversation_id: str, *, timeout: Optional[float] = None) -> m.Conversation:
        return m.conversation_from_pb(self._read(self._stub.GetConversation, pb.GetConversationRequest(conversation_id=conversation_id), timeout))

    def list_conversations(self, *, page_size: int = 0, timeout: Optional[float] = None) -> List[m.Conversation]:
        """Every conversation the caller may see, oldest first: the pages followed to the last (a call per page)."""
        out: List[m.Conversation] = []
        token = ""
        while True:
            page, token = self.list_conversations_page(page_size=page_size, page_token=token, timeout=timeout)
            out.extend(page)
            if not token:
                return out

    def list_conversations_page(
        self, *, page_size: int = 0, page_token: str = "", timeout: Optional[float] = None
    ) -> Tuple[List[m.Conversation], str]:
        """One page of conversations, oldest first: at most ``page_size`` (0: the server's default page), from
        where ``page_token`` (a previous page's next token; empty for the first) says. Returns the page and the
        next page's token, empty on the last page."""
        req = pb.ListConversationsRequest(page_size=page_size, page_token=page_token)
        res = self._read(self._stub.ListConversations, req, timeout)
        return [m.conversation_from_pb(c) for c in res.conversations], res.next_page_token

    def fork_conversation(
        self, source_conversation_id: str, id: str = "", *, workspace_only: bool = False, timeout: Optional[float] = None
    ) -> m.Conversation:
        """A new conversation from a copy of the source's workspace and, unless workspace_only, a new enclosure
        with the source's options when it has one. Memory is not forked. Not retried (it makes something)."""
        req = pb.ForkConversationRequest(source_conversation_id=source_conversation_id, id=id, workspace_only=workspace_only)
        return m.conversation_from_pb(self._call(self._stub.ForkConversation, req, timeout))

    def delete_conversation(self, conversation_id: str, *, timeout: Optional[float] = None) -> None:
        self._call(self._stub.DeleteConversation, pb.DeleteConversationRequest(conversation_id=conversation_id), timeout)

    def start_enclosure(self, conversation_id: str, options: Optional[m.EnclosureOptions] = None, *, timeout: Optional[float] = None) -> m.Conversation:
        req = pb.StartEnclosureRequest(conversation_id=conversation_id, options=(options or m.EnclosureOptions()).to_pb())
        return m.conversation_from_pb(self._call(self._stub.StartEnclosure, req, timeout))

    def set_conversation_egress(
        self, conversation_id: str, allow: Sequence[m.EgressDestination], *, timeout: Optional[float] = None
    ) -> m.Conversation:
        """Replaces the conversation's egress policy (within the tenant's operator maximum, else ``invalid_arguments``); empty turns egress off."""
        req = pb.EgressSetRequest(conversation_id=conversation_id, egress=m.egress_policy_pb(allow))
        return m.conversation_from_pb(self._call(self._stub.SetConversationEgress, req, timeout))

    def stop_enclosure(self, conversation_id: str, *, force: bool = False, timeout: Optional[float] = None) -> m.Conversation:
        """Stops the enclosure; ``force`` (operators only) skips copy mode's copy back."""
        req = pb.StopEnclosureRequest(conversation_id=conversation_id, force=force)
        return m.conversation_from_pb(self._call(self._stub.StopEnclosure, req, timeout))

    def set_conversation_lifecycle(
        self, conversation_id: str, *, idle_timeout_seconds: int = 0, max_lifetime_seconds: int = 0, timeout: Optional[float] = None
    ) -> m.Conversation:
        """The conversation's idle timeout and maximum lifetime in seconds (0: the server's default), within its tenant's maxima."""
        req = pb.SetConversationLifecycleRequest(
            conversation_id=conversation_id, idle_timeout_seconds=idle_timeout_seconds, max_lifetime_seconds=max_lifetime_seconds
        )
        return m.conversation_from_pb(self._call(self._stub.SetConversationLifecycle, req, timeout))

    def pause_tenant(self, tenant: str, *, reason: str = "", timeout: Optional[float] = None) -> m.TenantPauseState:
        """Operators only: every call of the tenant is refused (``tenant_paused``) and its conversations sleep, until resumed."""
        return m.tenant_pause_from_pb(self._call(self._stub.PauseTenant, pb.PauseTenantRequest(tenant=tenant, reason=reason), timeout))

    def resume_tenant(self, tenant: str, *, timeout: Optional[float] = None) -> m.TenantPauseState:
        """Operators only: the tenant's calls are taken again; its conversations wake on their next call."""
        return m.tenant_pause_from_pb(self._call(self._stub.ResumeTenant, pb.ResumeTenantRequest(tenant=tenant), timeout))

    def pause_enclosure(self, conversation_id: str, *, timeout: Optional[float] = None) -> m.Conversation:
        """Pauses the enclosure with its memory (runsc): kernels, language servers and the agent are
        checkpointed to the engine's disk. ``checkpoint_unsupported`` under runc; ``checkpoint_failed``
        when the engine cannot take it (the enclosure keeps running)."""
        req = pb.PauseEnclosureRequest(conversation_id=conversation_id)
        return m.conversation_from_pb(self._call(self._stub.PauseEnclosure, req, timeout))

    def resume_enclosure(self, conversation_id: str, *, timeout: Optional[float] = None) -> m.Conversation:
        """Resumes a paused enclosure from its checkpoint; ``resume_failed`` leaves it paused with its checkpoint."""
        req = pb.ResumeEnclosureRequest(conversation_id=conversation_id)
        return m.conversation_from_pb(self._call(self._stub.ResumeEnclosure, req, timeout))

    # Runs.

    def open_run(
        self,
        conversation_id: str,
        *,
        surface: str = "",
        resources: Sequence[str] = (),
        approval_policy: str = "",
        target_space: str = "",
        vibe_mode: bool = False,
        question_timeout_seconds: int = 0,
        strict_resolve: bool = False,
        timeout: Optional[float] = None,
    ) -> m.Run:
        """Opens a run. ``approval_policy`` defaults to "write" (cards for write and exec tools); a headless harness passes "never".
        ``strict_resolve``: while a change is staged, every tool but resolve is refused."""
        req = pb.OpenRunRequest(
            conversation_id=conversation_id,
            surface=surface,
            resources=list(resources),
            approval_policy=approval_policy,
            target_space=target_space,
            vibe_mode=vibe_mode,
            question_timeout_seconds=question_timeout_seconds,
            strict_resolve=strict_resolve,
        )
        return m.run_from_pb(self._call(self._stub.OpenRun, req, timeout))

    def attach_cli_run(
        self,
        conversation_id: str,
        *,
        surface: str = "",
        approval_policy: str = "",
        vibe_mode: bool = False,
        new_run: bool = False,
        timeout: Optional[float] = None,
    ) -> m.Run:
        """The command line's kept run for (conversation, surface); opened when none is kept or ``new_run`` asks."""
        req = pb.AttachCliRunRequest(
            conversation_id=conversation_id, surface=surface, approval_policy=approval_policy, vibe_mode=vibe_mode, new_run=new_run
        )
        return m.run_from_pb(self._call(self._stub.AttachCliRun, req, timeout))

    def list_runs(self, conversation_id: str = "", *, timeout: Optional[float] = None) -> List[m.Run]:
        """Open runs of a conversation, or of every conversation with ""."""
        res = self._read(self._stub.ListRuns, pb.ListRunsRequest(conversation_id=conversation_id), timeout)
        return [m.run_from_pb(r) for r in res.runs]

    def set_vibe_mode(self, run_id: str, enabled: bool, *, timeout: Optional[float] = None) -> m.Run:
        return m.run_from_pb(self._call(self._stub.SetVibeMode, pb.SetVibeModeRequest(run_id=run_id, enabled=enabled), timeout))

    def close_run(self, run_id: str, *, timeout: Optional[float] = None) -> None:
        self._call(self._stub.CloseRun, pb.CloseRunRequest(run_id=run_id), timeout)

    # The operator's hands: a plain tenant's token raises PermissionDeniedError.

    def list_calls_in_flight(self, conversation_id: str = "", *, timeout: Optional[float] = None) -> List[m.CallInFlight]:
        """Operators only: every tool call in flight now, or one conversation's."""
        res = self._read(self._stub.ListCallsInFlight, pb.ListCallsInFlightRequest(conversation_id=conversation_id), timeout)
        return [m.call_in_flight_from_pb(c) for c in res.calls]

    def cancel_call(self, call_id: str, *, timeout: Optional[float] = None) -> m.CallInFlight:
        """Operators only: cancels a call in flight (its caller gets ``cancelled``); NotFoundError when it is not in flight."""
        return m.call_in_flight_from_pb(self._call(self._stub.CancelCall, pb.CancelCallRequest(call_id=call_id), timeout).call)

    def stop_kernel(self, conversation_id: str, *, kernel_id: str = "", language: str = "", timeout: Optional[float] = None) -> m.StoppedKernel:
        """Operators only: kills one kernel of the conversation's running agent, by id or by language."""
        req = pb.StopKernelRequest(conversation_id=conversation_id, kernel_id=kernel_id, language=language)
        res = self._call(self._stub.StopKernel, req, timeout)
        return m.StoppedKernel(kernel_id=res.kernel_id, language=res.language, pid=res.pid)

    def stop_host_agent(self, conversation_id: str, *, timeout: Optional[float] = None) -> int:
        """Operators only: stops the conversation's host agent; returns the pid it had."""
        return int(self._call(self._stub.StopHostAgent, pb.StopHostAgentRequest(conversation_id=conversation_id), timeout).pid)

    # Tools.

    def list_tools(self, run_id: str, *, timeout: Optional[float] = None) -> m.ListToolsResult:
        """The run's tools, each with its arguments' and its details' JSON Schema."""
        return m.list_tools_from_pb(self._read(self._stub.ListTools, pb.ListToolsRequest(run_id=run_id), timeout))

    def tools(self, run_id: str) -> RunTools:
        """The run's built-in tools as typed methods: ``tools(run.id).exec({"command": "ls"})``, arguments checked by the type checker."""
        return RunTools(self, run_id)

    def stream_tool(self, run_id: str, tool: str, args: Arguments = None, *, timeout: Optional[float] = None) -> EventStream[m.ToolEvent]:
        """Calls a tool and yields its events as they come: progress and output, the result last.
        Cancelling the stream (``cancel()``, ``close()``, a ``with`` block's end) stops the call on the server."""
        req = pb.CallToolRequest(run_id=run_id, tool=tool, arguments_json=arguments_json(args))
        return self._stream(self._stub.CallTool, req, m.tool_event_from_pb, timeout)

    def call_tool(
        self,
        run_id: str,
        tool: str,
        args: Arguments = None,
        *,
        on_event: Optional[Callable[[m.ToolEvent], None]] = None,
        timeout: Optional[float] = None,
    ) -> m.ToolResult:
        """Calls a tool and returns its result (a failed tool is a result with ``is_error``, not an exception;
        ``raise_for_error()`` makes it one). ``on_event`` sees progress and output as they stream; when
        ``timeout`` seconds pass first the call is cancelled on the server and DeadlineExceededError raised."""
        with self.stream_tool(run_id, tool, args, timeout=timeout if timeout is not None else self._timeout) as events:
            for event in events:
                if isinstance(event, m.ToolResultEvent):
                    return event.result
                if on_event is not None:
                    on_event(event)
        raise EnclaveError("the tool call ended without a result")

    def sync_writes(
        self, run_id: str, paths: Sequence[str], *, before_write: bool = False, timeout: Optional[float] = None
    ) -> m.SyncWritesResult:
        """Diagnostics for files the harness wrote with its own tools (only those new to the run). With
        ``before_write``, sent before the harness writes: the files' diagnostics as they are become the
        baseline, so the call after the write reports only what the write introduced."""
        res = self._call(self._stub.SyncWrites, pb.SyncWritesRequest(run_id=run_id, paths=list(paths), before_write=before_write), timeout)
        return m.sync_writes_from_pb(res)

    def with_synced_write(
        self, run_id: str, paths: Sequence[str], write: Callable[[], _T], *, timeout: Optional[float] = None
    ) -> Tuple[_T, m.SyncWritesResult]:
        """Wraps a harness's own write: announces the paths (their diagnostics as they are become the
        baseline), runs ``write``, then syncs them. Returns what ``write`` returned and the sync's answer,
        whose new diagnostics are only those the write introduced."""
        self.sync_writes(run_id, paths, before_write=True, timeout=timeout)
        value = write()
        return value, self.sync_writes(run_id, paths, timeout=timeout)

    # Placement and audit.

    def describe_placement(self, conversation_id: str, *, timeout: Optional[float] = None) -> m.PlacementDescription:
        res = self._read(self._stub.DescribePlacement, pb.DescribePlacementRequest(conversation_id=conversation_id), timeout)
        return m.placement_from_pb(res)

    def audit_enclosure(self, conversation_id: str, *, timeout: Optional[float] = None) -> m.EnclosureAudit:
        res = self._read(self._stub.AuditEnclosure, pb.AuditEnclosureRequest(conversation_id=conversation_id), timeout)
        return m.enclosure_audit_from_pb(res)

    def audit_events(self, conversation_id: str = "", *, include_history: bool = False, history_only: bool = False) -> EventStream[m.AuditEvent]:
        """Audit events: the history first when asked (only it with ``history_only``), then live ones until cancelled."""
        req = pb.SubscribeAuditRequest(conversation_id=conversation_id, include_history=include_history, history_only=history_only)
        return self._stream(self._stub.SubscribeAudit, req, m.audit_event_from_pb)

    # Cards: questions and permission requests.

    def card_events(self, conversation_id: str = "") -> EventStream[m.CardEvent]:
        """The open cards, ``subscribed``, then each card opened or closed, until cancelled; a human counts as attached meanwhile."""
        return self._stream(self._stub.SubscribeCards, pb.SubscribeCardsRequest(conversation_id=conversation_id), m.card_event_from_pb)

    def answer_card(self, conversation_id: str, number: int, answer: m.CardAnswer, *, timeout: Optional[float] = None) -> m.Card:
        req = pb.AnswerCardRequest(conversation_id=conversation_id, number=number, answer=answer.to_pb())
        return m.card_from_pb(self._call(self._stub.AnswerCard, req, timeout))

    def list_cards(self, conversation_id: str = "", include_closed: bool = False, *, timeout: Optional[float] = None) -> List[m.Card]:
        res = self._read(self._stub.ListCards, pb.ListCardsRequest(conversation_id=conversation_id, include_closed=include_closed), timeout)
        return [m.card_from_pb(c) for c in res.cards]

    def get_card_arguments(self, conversation_id: str, number: int, offset: int = 0, limit: int = 0, *, timeout: Optional[float] = None) -> m.CardArguments:
        """One page of an open card's complete arguments (limit 0: the largest page)."""
        req = pb.GetCardArgumentsRequest(conversation_id=conversation_id, number=number, offset=offset, limit=limit)
        return m.card_arguments_from_pb(self._read(self._stub.GetCardArguments, req, timeout))

    def card_arguments_text(self, conversation_id: str, number: int, *, timeout: Optional[float] = None) -> str:
        """An open card's complete arguments JSON, read page by page."""
        parts: List[str] = []
        offset = 0
        while True:
            page = self.get_card_arguments(conversation_id, number, offset, timeout=timeout)
            parts.append(page.text)
            if page.next_offset >= page.total_chars or page.next_offset <= offset:
                return "".join(parts)
            offset = page.next_offset
