"""The asyncio client of the control-plane API, on ``grpc.aio``: the sync client's calls as coroutines and
its streams as async iterators. Cancelling the task that awaits a call (``asyncio.wait_for``, a task
group, ``task.cancel()``) cancels the call on the server: a command or cell it runs is stopped.
"""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable, Generic, List, Optional, Sequence, Tuple, TypeVar, Union

import grpc
import grpc.aio

from . import models as m
from ._gen.enclave.control.v1 import control_pb2 as pb
from ._gen.enclave.control.v1 import control_pb2_grpc as pb_grpc
from ._wire import NO_RETRY, RetryPolicy, Tls, arguments_json, call_error, credentials, metadata, resolve_address, retryable
from ._wire import channel_options as build_channel_options
from .client import Arguments
from .errors import EnclaveError
from .tool_types import AsyncRunTools

_E = TypeVar("_E")
_T = TypeVar("_T")


class AsyncEventStream(Generic[_E]):
    """A server stream as an async iterator: ends with the stream, raises its failure as an EnclaveError.
    ``cancel()``, leaving an ``async with`` block or cancelling the iterating task cancels it on the server."""

    def __init__(self, address: str, call: Any, convert: Callable[[Any], Optional[_E]]) -> None:
        self._address = address
        self._call = call
        self._convert = convert
        self._cancelled = False

    def __aiter__(self) -> "AsyncEventStream[_E]":
        return self

    async def __anext__(self) -> _E:
        while True:
            try:
                raw = await self._call.read()
            except asyncio.CancelledError:
                self.cancel()
                raise
            except grpc.RpcError as err:
                if self._cancelled:
                    raise StopAsyncIteration from None
                raise call_error(self._address, err) from None
            if raw is grpc.aio.EOF:
                raise StopAsyncIteration
            event = self._convert(raw)
            if event is not None:
                return event

    def cancel(self) -> None:
        """Cancels the stream on the server; iteration then ends."""
        self._cancelled = True
        self._call.cancel()

    async def aclose(self) -> None:
        self.cancel()

    async def __aenter__(self) -> "AsyncEventStream[_E]":
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.cancel()


class AsyncEnclaveClient:
    """A connection to a control plane for asyncio code; the options are EnclaveClient's.
    Make it inside the event loop that uses it (grpc.aio channels belong to one loop)."""

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
        self._channel = grpc.aio.secure_channel(self.address, creds, opts) if creds else grpc.aio.insecure_channel(self.address, opts)
        self._stub = pb_grpc.ControlPlaneStub(self._channel)  # type: ignore[no-untyped-call]
        self._metadata = metadata(token)
        self._retry = NO_RETRY if retry is False else (RetryPolicy() if retry is True else retry)
        self._timeout = timeout

    async def close(self) -> None:
        """Closes the connection; calls still in flight are cancelled."""
        await self._channel.close()

    async def __aenter__(self) -> "AsyncEnclaveClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _call(self, method: Callable[..., Any], request: Any, timeout: Optional[float]) -> Any:
        call = method(request, metadata=self._metadata, timeout=timeout if timeout is not None else self._timeout)
        try:
            return await call
        except asyncio.CancelledError:
            call.cancel()
            raise
        except grpc.RpcError as err:
            raise call_error(self.address, err) from None

    async def _read(self, method: Callable[..., Any], request: Any, timeout: Optional[float]) -> Any:
        """A call that is safe to repeat: retried while the control plane drains or is unreachable."""
        attempt = 1
        while True:
            try:
                return await self._call(method, request, timeout)
            except EnclaveError as err:
                if attempt >= self._retry.attempts or not retryable(err):
                    raise
                attempt += 1
                await asyncio.sleep(self._retry.delay(attempt))

    def _stream(self, method: Callable[..., Any], request: Any, convert: Callable[[Any], Optional[_E]], timeout: Optional[float] = None) -> AsyncEventStream[_E]:
        return AsyncEventStream(self.address, method(request, metadata=self._metadata, timeout=timeout), convert)

    # Conversations and enclosures.

    async def create_conversation(
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
        return m.conversation_from_pb(await self._call(self._stub.CreateConversation, req, timeout))

    async def get_conversation(self, conversation_id: str, *, timeout: Optional[float] = None) -> m.Conversation:
        res = await self._read(self._stub.GetConversation, pb.GetConversationRequest(conversation_id=conversation_id), timeout)
        return m.conversation_from_pb(res)

    async def list_conversations(self, *, page_size: int = 0, timeout: Optional[float] = None) -> List[m.Conversation]:
        """Every conversation the caller may see, oldest first: the pages followed to the last (a call per page)."""
        out: List[m.Conversation] = []
        token = ""
        while True:
            page, token = await self.list_conversations_page(page_size=page_size, page_token=token, timeout=timeout)
            out.extend(page)
            if not token:
                return out

    async def list_conversations_page(
        self, *, page_size: int = 0, page_token: str = "", timeout: Optional[float] = None
    ) -> Tuple[List[m.Conversation], str]:
        """One page of conversations, oldest first: at most ``page_size`` (0: the server's default page), from
        where ``page_token`` (a previous page's next token; empty for the first) says. Returns the page and the
        next page's token, empty on the last page."""
        req = pb.ListConversationsRequest(page_size=page_size, page_token=page_token)
        res = await self._read(self._stub.ListConversations, req, timeout)
        return [m.conversation_from_pb(c) for c in res.conversations], res.next_page_token

    async def fork_conversation(
        self, source_conversation_id: str, id: str = "", *, workspace_only: bool = False, timeout: Optional[float] = None
    ) -> m.Conversation:
        req = pb.ForkConversationRequest(source_conversation_id=source_conversation_id, id=id, workspace_only=workspace_only)
        return m.conversation_from_pb(await self._call(self._stub.ForkConversation, req, timeout))

    async def delete_conversation(self, conversation_id: str, *, timeout: Optional[float] = None) -> None:
        await self._call(self._stub.DeleteConversation, pb.DeleteConversationRequest(conversation_id=conversation_id), timeout)

    async def start_enclosure(
        self, conversation_id: str, options: Optional[m.EnclosureOptions] = None, *, timeout: Optional[float] = None
    ) -> m.Conversation:
        req = pb.StartEnclosureRequest(conversation_id=conversation_id, options=(options or m.EnclosureOptions()).to_pb())
        return m.conversation_from_pb(await self._call(self._stub.StartEnclosure, req, timeout))

    async def set_conversation_egress(
        self, conversation_id: str, allow: Sequence[m.EgressDestination], *, timeout: Optional[float] = None
    ) -> m.Conversation:
        """Replaces the conversation's egress policy (within the tenant's operator maximum, else ``invalid_arguments``); empty turns egress off."""
        req = pb.EgressSetRequest(conversation_id=conversation_id, egress=m.egress_policy_pb(allow))
        return m.conversation_from_pb(await self._call(self._stub.SetConversationEgress, req, timeout))

    async def stop_enclosure(self, conversation_id: str, *, force: bool = False, timeout: Optional[float] = None) -> m.Conversation:
        req = pb.StopEnclosureRequest(conversation_id=conversation_id, force=force)
        return m.conversation_from_pb(await self._call(self._stub.StopEnclosure, req, timeout))

    async def set_conversation_lifecycle(
        self, conversation_id: str, *, idle_timeout_seconds: int = 0, max_lifetime_seconds: int = 0, timeout: Optional[float] = None
    ) -> m.Conversation:
        """The conversation's idle timeout and maximum lifetime in seconds (0: the server's default), within its tenant's maxima."""
        req = pb.SetConversationLifecycleRequest(
            conversation_id=conversation_id, idle_timeout_seconds=idle_timeout_seconds, max_lifetime_seconds=max_lifetime_seconds
        )
        return m.conversation_from_pb(await self._call(self._stub.SetConversationLifecycle, req, timeout))

    async def pause_tenant(self, tenant: str, *, reason: str = "", timeout: Optional[float] = None) -> m.TenantPauseState:
        """Operators only: every call of the tenant is refused (``tenant_paused``) and its conversations sleep, until resumed."""
        return m.tenant_pause_from_pb(await self._call(self._stub.PauseTenant, pb.PauseTenantRequest(tenant=tenant, reason=reason), timeout))

    async def resume_tenant(self, tenant: str, *, timeout: Optional[float] = None) -> m.TenantPauseState:
        """Operators only: the tenant's calls are taken again; its conversations wake on their next call."""
        return m.tenant_pause_from_pb(await self._call(self._stub.ResumeTenant, pb.ResumeTenantRequest(tenant=tenant), timeout))

    async def pause_enclosure(self, conversation_id: str, *, timeout: Optional[float] = None) -> m.Conversation:
        """Pauses the enclosure with its memory (runsc); ``checkpoint_unsupported`` under runc."""
        req = pb.PauseEnclosureRequest(conversation_id=conversation_id)
        return m.conversation_from_pb(await self._call(self._stub.PauseEnclosure, req, timeout))

    async def resume_enclosure(self, conversation_id: str, *, timeout: Optional[float] = None) -> m.Conversation:
        """Resumes a paused enclosure; ``resume_failed`` leaves it paused with its checkpoint."""
        req = pb.ResumeEnclosureRequest(conversation_id=conversation_id)
        return m.conversation_from_pb(await self._call(self._stub.ResumeEnclosure, req, timeout))

    # Runs.

    async def open_run(
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
        return m.run_from_pb(await self._call(self._stub.OpenRun, req, timeout))

    async def attach_cli_run(
        self,
        conversation_id: str,
        *,
        surface: str = "",
        approval_policy: str = "",
        vibe_mode: bool = False,
        new_run: bool = False,
        timeout: Optional[float] = None,
    ) -> m.Run:
        req = pb.AttachCliRunRequest(
            conversation_id=conversation_id, surface=surface, approval_policy=approval_policy, vibe_mode=vibe_mode, new_run=new_run
        )
        return m.run_from_pb(await self._call(self._stub.AttachCliRun, req, timeout))

    async def list_runs(self, conversation_id: str = "", *, timeout: Optional[float] = None) -> List[m.Run]:
        res = await self._read(self._stub.ListRuns, pb.ListRunsRequest(conversation_id=conversation_id), timeout)
        return [m.run_from_pb(r) for r in res.runs]

    async def set_vibe_mode(self, run_id: str, enabled: bool, *, timeout: Optional[float] = None) -> m.Run:
        return m.run_from_pb(await self._call(self._stub.SetVibeMode, pb.SetVibeModeRequest(run_id=run_id, enabled=enabled), timeout))

    async def close_run(self, run_id: str, *, timeout: Optional[float] = None) -> None:
        await self._call(self._stub.CloseRun, pb.CloseRunRequest(run_id=run_id), timeout)

    # The operator's hands: a plain tenant's token raises PermissionDeniedError.

    async def list_calls_in_flight(self, conversation_id: str = "", *, timeout: Optional[float] = None) -> List[m.CallInFlight]:
        """Operators only: every tool call in flight now, or one conversation's."""
        res = await self._read(self._stub.ListCallsInFlight, pb.ListCallsInFlightRequest(conversation_id=conversation_id), timeout)
        return [m.call_in_flight_from_pb(c) for c in res.calls]

    async def cancel_call(self, call_id: str, *, timeout: Optional[float] = None) -> m.CallInFlight:
        """Operators only: cancels a call in flight (its caller gets ``cancelled``); NotFoundError when it is not in flight."""
        return m.call_in_flight_from_pb((await self._call(self._stub.CancelCall, pb.CancelCallRequest(call_id=call_id), timeout)).call)

    async def stop_kernel(self, conversation_id: str, *, kernel_id: str = "", language: str = "", timeout: Optional[float] = None) -> m.StoppedKernel:
        """Operators only: kills one kernel of the conversation's running agent, by id or by language."""
        req = pb.StopKernelRequest(conversation_id=conversation_id, kernel_id=kernel_id, language=language)
        res = await self._call(self._stub.StopKernel, req, timeout)
        return m.StoppedKernel(kernel_id=res.kernel_id, language=res.language, pid=res.pid)

    async def stop_host_agent(self, conversation_id: str, *, timeout: Optional[float] = None) -> int:
        """Operators only: stops the conversation's host agent; returns the pid it had."""
        return int((await self._call(self._stub.StopHostAgent, pb.StopHostAgentRequest(conversation_id=conversation_id), timeout)).pid)

    # Tools.

    async def list_tools(self, run_id: str, *, timeout: Optional[float] = None) -> m.ListToolsResult:
        return m.list_tools_from_pb(await self._read(self._stub.ListTools, pb.ListToolsRequest(run_id=run_id), timeout))

    def tools(self, run_id: str) -> AsyncRunTools:
        """The run's built-in tools as typed methods: ``tools(run.id).exec({"command": "ls"})``, arguments checked by the type checker."""
        return AsyncRunTools(self, run_id)

    def stream_tool(self, run_id: str, tool: str, args: Arguments = None, *, timeout: Optional[float] = None) -> AsyncEventStream[m.ToolEvent]:
        """Calls a tool and yields its events as they come: progress and output, the result last."""
        req = pb.CallToolRequest(run_id=run_id, tool=tool, arguments_json=arguments_json(args))
        return self._stream(self._stub.CallTool, req, m.tool_event_from_pb, timeout)

    async def call_tool(
        self,
        run_id: str,
        tool: str,
        args: Arguments = None,
        *,
        on_event: Optional[Callable[[m.ToolEvent], None]] = None,
        timeout: Optional[float] = None,
    ) -> m.ToolResult:
        """Calls a tool and returns its result; as EnclaveClient.call_tool. Cancelling the awaiting task stops the call on the server."""
        async with self.stream_tool(run_id, tool, args, timeout=timeout if timeout is not None else self._timeout) as events:
            async for event in events:
                if isinstance(event, m.ToolResultEvent):
                    return event.result
                if on_event is not None:
                    on_event(event)
        raise EnclaveError("the tool call ended without a result")

    async def sync_writes(
        self, run_id: str, paths: Sequence[str], *, before_write: bool = False, timeout: Optional[float] = None
    ) -> m.SyncWritesResult:
        res = await self._call(self._stub.SyncWrites, pb.SyncWritesRequest(run_id=run_id, paths=list(paths), before_write=before_write), timeout)
        return m.sync_writes_from_pb(res)

    async def with_synced_write(
        self, run_id: str, paths: Sequence[str], write: Callable[[], Awaitable[_T]], *, timeout: Optional[float] = None
    ) -> Tuple[_T, m.SyncWritesResult]:
        """Wraps a harness's own write (a coroutine function): announces the paths, awaits ``write``, then syncs them."""
        await self.sync_writes(run_id, paths, before_write=True, timeout=timeout)
        value = await write()
        return value, await self.sync_writes(run_id, paths, timeout=timeout)

    # Placement and audit.

    async def describe_placement(self, conversation_id: str, *, timeout: Optional[float] = None) -> m.PlacementDescription:
        res = await self._read(self._stub.DescribePlacement, pb.DescribePlacementRequest(conversation_id=conversation_id), timeout)
        return m.placement_from_pb(res)

    async def audit_enclosure(self, conversation_id: str, *, timeout: Optional[float] = None) -> m.EnclosureAudit:
        res = await self._read(self._stub.AuditEnclosure, pb.AuditEnclosureRequest(conversation_id=conversation_id), timeout)
        return m.enclosure_audit_from_pb(res)

    def audit_events(
        self, conversation_id: str = "", *, include_history: bool = False, history_only: bool = False
    ) -> AsyncEventStream[m.AuditEvent]:
        req = pb.SubscribeAuditRequest(conversation_id=conversation_id, include_history=include_history, history_only=history_only)
        return self._stream(self._stub.SubscribeAudit, req, m.audit_event_from_pb)

    # Cards.

    def card_events(self, conversation_id: str = "") -> AsyncEventStream[m.CardEvent]:
        return self._stream(self._stub.SubscribeCards, pb.SubscribeCardsRequest(conversation_id=conversation_id), m.card_event_from_pb)

    async def answer_card(self, conversation_id: str, number: int, answer: m.CardAnswer, *, timeout: Optional[float] = None) -> m.Card:
        req = pb.AnswerCardRequest(conversation_id=conversation_id, number=number, answer=answer.to_pb())
        return m.card_from_pb(await self._call(self._stub.AnswerCard, req, timeout))

    async def list_cards(self, conversation_id: str = "", include_closed: bool = False, *, timeout: Optional[float] = None) -> List[m.Card]:
        res = await self._read(self._stub.ListCards, pb.ListCardsRequest(conversation_id=conversation_id, include_closed=include_closed), timeout)
        return [m.card_from_pb(c) for c in res.cards]

    async def get_card_arguments(
        self, conversation_id: str, number: int, offset: int = 0, limit: int = 0, *, timeout: Optional[float] = None
    ) -> m.CardArguments:
        req = pb.GetCardArgumentsRequest(conversation_id=conversation_id, number=number, offset=offset, limit=limit)
        return m.card_arguments_from_pb(await self._read(self._stub.GetCardArguments, req, timeout))

    async def card_arguments_text(self, conversation_id: str, number: int, *, timeout: Optional[float] = None) -> str:
        parts: List[str] = []
        offset = 0
        while True:
            page = await self.get_card_arguments(conversation_id, number, offset, timeout=timeout)
            parts.append(page.text)
            if page.next_offset >= page.total_chars or page.next_offset <= offset:
                return "".join(parts)
            offset = page.next_offset

