"""The control-plane API's messages as plain, typed dataclasses, made from the generated protobuf classes.

Harnesses read these; the generated classes stay an implementation detail (``enclave_client._gen``).
A tool result's ``details`` is its data (exec's exit code, a staged change's id, an eval error's name),
parsed from ``details_json`` into a dict shaped by the tool's details schema, which ``list_tools``
publishes as ``ToolInfo.details_schema``; tool_types has them as TypedDicts (``exec_details(result)``).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Literal, Optional, Sequence, Type, TypeVar, Union, cast

from ._gen.enclave.control.v1 import control_pb2 as pb
from .errors import EnclaveError, error_for_code

_T = TypeVar("_T")


def _plain(cls: Type[_T], msg: Any, **given: Any) -> _T:
    """A dataclass of scalar fields (and lists of them) read by name from a message; `given` fills the rest."""
    values: Dict[str, Any] = {}
    for f in dataclasses.fields(cast(Any, cls)):
        if f.name in given:
            values[f.name] = given[f.name]
            continue
        v = getattr(msg, f.name)
        values[f.name] = v if isinstance(v, (str, int, float, bool, bytes)) else list(v)
    return cls(**values)


def _json_object(text: str) -> Optional[Dict[str, Any]]:
    """A JSON object sent as text; None for the empty string the wire uses for "none"."""
    if not text:
        return None
    value = json.loads(text)
    return value if isinstance(value, dict) else {"value": value}


def join_lines(pieces: Sequence[str]) -> str:
    """Pieces of text each on lines of their own (one that ends its line needs no newline after it), as the control plane joins a result's parts."""
    out = ""
    for i, t in enumerate(pieces):
        out = t if i == 0 else f"{out}{'' if out.endswith(chr(10)) else chr(10)}{t}"
    return out


@dataclass(frozen=True)
class EnclosureLimits:
    memory_bytes: int
    cpus: float
    pids: int
    disk_bytes: int


@dataclass(frozen=True)
class Enclosure:
    container_id: str
    image: str
    #: "starting", "running", "paused" (checkpointed with its memory) or "dead".
    state: str
    started_at_ms: int
    limits: Optional[EnclosureLimits]
    #: "bind" or "copy".
    workspace_mode: str
    detail: str
    relaxations: List[str]
    #: "runc" or "runsc".
    runtime: str
    notes: List[str]
    #: "pool" or "cold".
    origin: str
    #: While paused: when the pause was taken (0 when not paused).
    paused_at_ms: int = 0
    #: While paused: the checkpoint's size on the engine's disk (0 when unknown); at most the memory limit.
    checkpoint_bytes: int = 0
    #: While paused: whether the pause kept the processes' memory.
    memory_kept: bool = False
    #: While paused: what the pause ended (debug sessions), why the last resume failed.
    pause_notes: List[str] = field(default_factory=list)
    #: The last pause's and resume's durations ("pause 260 ms, resume 400 ms").
    pause_timings: str = ""


@dataclass(frozen=True)
class LifecycleSleep:
    """How a conversation was put to sleep (see docs/concepts/lifecycle.md)."""

    #: "idle", "max_lifetime", "tenant_paused", "operator" or "pause" (PauseEnclosure where memory cannot be kept).
    reason: str
    #: "stop" (memory not kept) or "checkpoint".
    mechanism: str
    memory_kept: bool
    #: "host" or "enclosure".
    placement: str
    image: str
    runtime: str
    detail: str


@dataclass(frozen=True)
class TenantPauseState:
    """What pause_tenant and resume_tenant answer."""

    tenant: str
    paused: bool
    paused_at_ms: int
    paused_by: str
    reason: str
    slept: List[str]


def tenant_pause_from_pb(m: pb.TenantPauseState) -> TenantPauseState:
    return _plain(TenantPauseState, m)


@dataclass(frozen=True)
class CgroupUsage:
    """CPU and memory as the placement's cgroup counts them since it was made; -1: not offered by this kernel."""

    #: Which cgroup and which of its files.
    source: str
    cpu_user_seconds: float
    cpu_system_seconds: float
    memory_bytes: int
    memory_peak_bytes: int
    #: -1 when unlimited.
    memory_limit_bytes: int
    pids: int
    measured_at_ms: int


@dataclass(frozen=True)
class EngineUsage:
    """One sample of the Docker engine's stats for an enclosure's container."""

    engine: str
    cpu_total_seconds: float
    #: -1 when the engine gave no previous sample.
    cpu_percent: float
    memory_usage_bytes: int
    memory_limit_bytes: int
    pids: int
    measured_at_ms: int


@dataclass(frozen=True)
class WorkspaceUsage:
    #: "walk" (the host folder) or "volume" (copy mode's workspace volume).
    source: str
    #: Allocated on disk.
    bytes: int
    entries: int
    #: The walk stopped at a bound: bytes is a lower bound.
    capped: bool
    note: str
    measured_at_ms: int


@dataclass(frozen=True)
class ConversationUsage:
    """What a conversation costs now (get_conversation only); a part that could not be measured is None, with why."""

    measured_at_ms: int
    cgroup: Optional[CgroupUsage]
    cgroup_unavailable: str
    engine: Optional[EngineUsage]
    engine_unavailable: str
    workspace: Optional[WorkspaceUsage]
    workspace_unavailable: str


@dataclass(frozen=True)
class EgressDestination:
    """One destination a conversation's code may reach through the egress proxy: exactly one of ``host``
    (a name, or ``*.example.com`` for its subdomains) and ``cidr``, with the ports it allows (none: any)."""

    host: str = ""
    cidr: str = ""
    ports: List[int] = field(default_factory=list)


def egress_policy_pb(allow: Sequence[EgressDestination]) -> pb.EgressPolicy:
    return pb.EgressPolicy(allow=[pb.EgressDestination(host=d.host, cidr=d.cidr, ports=list(d.ports)) for d in allow])


@dataclass(frozen=True)
class Conversation:
    id: str
    workspace_path: str
    #: "host" or "enclosure": where tool calls go right now.
    placement: str
    enclosure: Optional[Enclosure]
    created_at_ms: int
    open_runs: List[str]
    not_copied_back: List[str]
    tenant: str
    #: What it costs now: get_conversation fills it, list_conversations does not.
    usage: Optional[ConversationUsage]
    #: "active" or "sleeping" (its placement put to sleep; the next call wakes it).
    lifecycle_state: str = "active"
    #: The idle timeout and maximum lifetime in force, in seconds (0: never).
    idle_timeout_seconds: int = 0
    max_lifetime_seconds: int = 0
    #: When it was put to sleep; 0 while active.
    slept_at_ms: int = 0
    sleep: Optional[LifecycleSleep] = None
    #: Where its code may reach through the egress proxy; empty: nowhere (no network at all).
    egress: List[EgressDestination] = field(default_factory=list)

    #: The conversation this one was forked from (fork_conversation); empty otherwise.
    forked_from: str = ""


def _usage_from_pb(u: pb.ConversationUsage) -> ConversationUsage:
    return _plain(
        ConversationUsage,
        u,
        cgroup=_plain(CgroupUsage, u.cgroup) if u.HasField("cgroup") else None,
        engine=_plain(EngineUsage, u.engine) if u.HasField("engine") else None,
        workspace=_plain(WorkspaceUsage, u.workspace) if u.HasField("workspace") else None,
    )


def conversation_from_pb(m: pb.Conversation) -> Conversation:
    enclosure = None
    if m.HasField("enclosure"):
        e = m.enclosure
        limits = _plain(EnclosureLimits, e.limits) if e.HasField("limits") else None
        enclosure = _plain(Enclosure, e, limits=limits)
    sleep = _plain(LifecycleSleep, m.sleep) if m.HasField("sleep") else None
    usage = _usage_from_pb(m.usage) if m.HasField("usage") else None
    egress = [EgressDestination(host=d.host, cidr=d.cidr, ports=list(d.ports)) for d in m.egress.allow]
    return _plain(Conversation, m, enclosure=enclosure, sleep=sleep, usage=usage, egress=egress)


@dataclass(frozen=True)
class CallInFlight:
    """A tool call running now, as ListCallsInFlight (operators only) answers it."""

    #: Decimal, unique in the control plane's process: what cancel_call takes.
    call_id: str
    run_id: str
    conversation_id: str
    tenant: str
    tool: str
    started_at_ms: int
    #: "model" or "bridge".
    origin: str


def call_in_flight_from_pb(m: pb.CallInFlight) -> CallInFlight:
    return _plain(CallInFlight, m)


@dataclass(frozen=True)
class StoppedKernel:
    kernel_id: str
    language: str
    pid: int


@dataclass
class EnclosureOptions:
    """How an enclosure starts: hardened by default; each field that weakens it is an explicit, recorded choice."""

    image: str = ""
    #: "bind" (default when the engine is local) or "copy".
    workspace_mode: str = ""
    memory_bytes: int = 0
    cpus: float = 0.0
    pids_limit: int = 0
    #: "uid:gid"; root is refused.
    user: str = ""
    network_mode: str = ""
    keep_capabilities: List[str] = field(default_factory=list)
    writable_root: bool = False
    allow_new_privileges: bool = False
    #: "mount" or "baked".
    agent_delivery: str = ""
    disk_limit_bytes: int = 0
    #: "runc" or "runsc".
    runtime: str = ""
    devcontainer: bool = False

    def to_pb(self) -> pb.EnclosureOptions:
        return pb.EnclosureOptions(**dataclasses.asdict(self))


@dataclass(frozen=True)
class Run:
    id: str
    conversation_id: str
    surface: str
    resources: List[str]
    approval_policy: str
    target_space: str
    vibe_mode: bool
    question_timeout_seconds: int
    cli: bool
    cli_current: bool
    opened_at_ms: int
    last_used_ms: int
    idle_expires_at_ms: int
    pending_actions: int
    calls_in_flight: int
    #: While a change is staged, every tool but resolve is refused.
    strict_resolve: bool


def run_from_pb(m: pb.Run) -> Run:
    return _plain(Run, m)


@dataclass(frozen=True)
class ToolInfo:
    name: str
    #: "read", "write" or "exec".
    tier: str
    description: str
    resource: str
    parallel_safe: bool
    #: JSON Schema of the arguments.
    input_schema: Dict[str, Any]
    #: JSON Schema of the tool's ToolResult.details; None when the tool has no details.
    details_schema: Optional[Dict[str, Any]]


@dataclass(frozen=True)
class CustomToolLoadFailure:
    file: str
    reason: str


@dataclass(frozen=True)
class ListToolsResult:
    tools: List[ToolInfo]
    #: Set when the run must call this tool before any other write or exec tool.
    required_next_tool: str
    custom_tool_failures: List[CustomToolLoadFailure]

    def get(self, name: str) -> Optional[ToolInfo]:
        return next((t for t in self.tools if t.name == name), None)


def list_tools_from_pb(m: pb.ListToolsResponse) -> ListToolsResult:
    tools = [
        _plain(
            ToolInfo,
            t,
            input_schema=_json_object(t.input_schema_json) or {},
            details_schema=_json_object(t.details_schema_json),
        )
        for t in m.tools
    ]
    return ListToolsResult(tools, m.required_next_tool, [_plain(CustomToolLoadFailure, f) for f in m.custom_tool_failures])


@dataclass(frozen=True)
class ImagePart:
    mime_type: str
    data: bytes


@dataclass(frozen=True)
class RichPart:
    mime_type: str
    text: str


@dataclass(frozen=True)
class ContentPart:
    """One part of a result: exactly one of text, image and rich is set."""

    text: Optional[str] = None
    image: Optional[ImagePart] = None
    rich: Optional[RichPart] = None
    #: The part repeats what the call already sent as output events.
    repeats_streamed: bool = False


@dataclass(frozen=True)
class PendingState:
    """A run's staged changes awaiting resolve, after a call."""

    #: "resolve" while something is pending, else "".
    required_next_tool: str
    #: Most recent first: resolve without an edit_id takes the first.
    pending_ids: List[str]
    labels: List[str]


@dataclass(frozen=True)
class ToolResult:
    """A tool call's final answer. ``details`` is the result as data (see the tool's ``details_schema``);
    ``text`` the text parts joined, as the model reads them."""

    is_error: bool
    parts: List[ContentPart]
    #: A stable code for errors ("invalid_arguments", "cell_error", …); "" when the call succeeded.
    error_code: str
    duration_ms: int
    details: Optional[Dict[str, Any]]
    details_json: str
    #: The run's staged changes after this call (None from a control plane that does not send them).
    pending: Optional[PendingState] = None

    @property
    def text(self) -> str:
        """The text parts joined (rich parts such as HTML left out; an image as a placeholder line)."""
        pieces: List[str] = []
        for p in self.parts:
            if p.text is not None:
                pieces.append(p.text)
            elif p.image is not None:
                pieces.append(f"[image {p.image.mime_type}, {len(p.image.data)} bytes]")
        return join_lines(pieces)

    def exception(self) -> Optional[EnclaveError]:
        """The error this result reports as its code's exception (the text as its message); None when it succeeded."""
        if not self.is_error:
            return None
        return error_for_code(self.error_code or "failed", self.text)

    def raise_for_error(self) -> "ToolResult":
        """Raises the result's error as its code's exception; returns the result when it succeeded."""
        err = self.exception()
        if err is not None:
            raise err
        return self


def _part_from_pb(p: pb.ContentPart) -> ContentPart:
    which = p.WhichOneof("part")
    if which == "text":
        return ContentPart(text=p.text, repeats_streamed=p.repeats_streamed)
    if which == "image":
        return ContentPart(image=ImagePart(p.image.mime_type, bytes(p.image.data)), repeats_streamed=p.repeats_streamed)
    if which == "rich":
        return ContentPart(rich=RichPart(p.rich.mime_type, p.rich.text), repeats_streamed=p.repeats_streamed)
    return ContentPart(repeats_streamed=p.repeats_streamed)


def tool_result_from_pb(m: pb.ToolResult) -> ToolResult:
    return ToolResult(
        is_error=m.is_error,
        parts=[_part_from_pb(p) for p in m.parts],
        error_code=m.error_code,
        duration_ms=m.duration_ms,
        details=_json_object(m.details_json),
        details_json=m.details_json,
        pending=_plain(PendingState, m.pending) if m.HasField("pending") else None,
    )


@dataclass(frozen=True)
class ToolProgress:
    """A progress line of a running call."""

    text: str
    kind: Literal["progress"] = "progress"


@dataclass(frozen=True)
class ToolOutput:
    """Output a running command or cell wrote, as it came."""

    #: "stdout" or "stderr".
    stream: str
    data: bytes
    kind: Literal["output"] = "output"


@dataclass(frozen=True)
class ToolResultEvent:
    """A call's last event: its result."""

    result: ToolResult
    kind: Literal["result"] = "result"


#: One event of a streamed tool call: progress and output as they come, the result last.
ToolEvent = Union[ToolProgress, ToolOutput, ToolResultEvent]


def tool_event_from_pb(m: pb.ToolEvent) -> Optional[ToolEvent]:
    which = m.WhichOneof("event")
    if which == "progress":
        return ToolProgress(m.progress)
    if which == "output":
        return ToolOutput(m.output.stream, bytes(m.output.data))
    if which == "result":
        return ToolResultEvent(tool_result_from_pb(m.result))
    return None


@dataclass(frozen=True)
class Diagnostic:
    path: str
    #: 1-based.
    line: int
    column: int
    #: "error", "warning", "information" or "hint".
    severity: str
    code: str
    message: str
    source: str


@dataclass(frozen=True)
class SyncedFile:
    path: str
    #: "fresh", "late", "no_server", "deleted" or "failed".
    state: str
    servers: List[str]
    new_diagnostics: List[Diagnostic]
    detail: str


@dataclass(frozen=True)
class SyncWritesResult:
    #: What Enclave's write tools append to their result for the same files.
    text: str
    files: List[SyncedFile]


def sync_writes_from_pb(m: pb.SyncWritesResponse) -> SyncWritesResult:
    files = []
    for f in m.files:
        state = pb.SyncedFileState.Name(f.state).removeprefix("SYNCED_FILE_STATE_").lower()
        files.append(_plain(SyncedFile, f, state=state, new_diagnostics=[_plain(Diagnostic, d) for d in f.new_diagnostics]))
    return SyncWritesResult(m.text, files)


@dataclass(frozen=True)
class PlacementComponent:
    kind: str
    id: str
    usable: bool
    detail: str


@dataclass(frozen=True)
class PlacementDescription:
    #: "host" or "enclosure".
    placement: str
    agent_version: str
    workspace_root: str
    components: List[PlacementComponent]
    agent_node_version: str


def placement_from_pb(m: pb.PlacementDescription) -> PlacementDescription:
    return _plain(PlacementDescription, m, components=[_plain(PlacementComponent, c) for c in m.components])


@dataclass(frozen=True)
class AuditEvent:
    seq: int
    time_ms: int
    conversation_id: str
    run_id: str
    #: "tool_call", "enclosure_started", "conversation_created", … (see the API's AuditEvent).
    kind: str
    tool: str
    tier: str
    arguments_digest: str
    #: "ok", "error:<code>", "refused:<code>".
    outcome: str
    duration_ms: int
    #: "model" for the harness's calls, "bridge" for a kernel cell's.
    origin: str
    detail: str
    placement: str
    kernel_id: str
    card_number: int
    tenant: str


def audit_event_from_pb(m: pb.AuditEvent) -> AuditEvent:
    return _plain(AuditEvent, m)


@dataclass(frozen=True)
class AuditCheck:
    item: str
    expected: str
    outside: str
    inside: str
    ok: bool


@dataclass(frozen=True)
class EnclosureAudit:
    conversation_id: str
    #: "host" (nothing confined: no checks) or "enclosure".
    placement: str
    container_id: str
    image: str
    relaxations: List[str]
    checks: List[AuditCheck]
    runtime: str
    bridge_calls: List[AuditEvent]
    passed: bool
    time_ms: int
    #: The report as `enclave audit ID` prints it.
    text: str


def enclosure_audit_from_pb(m: pb.EnclosureAudit) -> EnclosureAudit:
    return _plain(
        EnclosureAudit,
        m,
        checks=[_plain(AuditCheck, c) for c in m.checks],
        bridge_calls=[audit_event_from_pb(e) for e in m.bridge_calls],
    )


@dataclass(frozen=True)
class CardOption:
    label: str
    description: str


@dataclass
class CardAnswer:
    """An answer to a card: the labels chosen (a permission card's are "allow" or "deny"), free text, or a skip."""

    selected: List[str] = field(default_factory=list)
    free_text: str = ""
    skip: bool = False

    def to_pb(self) -> pb.CardAnswer:
        return pb.CardAnswer(selected=self.selected, free_text=self.free_text, skip=self.skip)


@dataclass(frozen=True)
class Card:
    conversation_id: str
    number: int
    #: "question" (ask_user) or "permission" (the approval gate).
    kind: str
    question: str
    context: str
    options: List[CardOption]
    allow_free_text: bool
    multi_select: bool
    run_id: str
    tool: str
    arguments_json: str
    created_at_ms: int
    expires_at_ms: int
    #: "open", "answered", "skipped", "timed_out", "cancelled".
    state: str
    answer: Optional[CardAnswer]
    closed_at_ms: int
    files: List[str]
    files_note: str
    arguments_chars: int
    arguments_truncated: bool


def card_from_pb(m: pb.Card) -> Card:
    answer = CardAnswer(list(m.answer.selected), m.answer.free_text, m.answer.skip) if m.HasField("answer") else None
    return _plain(Card, m, options=[_plain(CardOption, o) for o in m.options], answer=answer)


@dataclass(frozen=True)
class CardEvent:
    """``subscribed`` (attached; the open cards came first, ``open_cards`` of them), ``opened`` or ``closed`` (with ``card``)."""

    kind: Literal["subscribed", "opened", "closed"]
    card: Optional[Card] = None
    open_cards: int = 0


def card_event_from_pb(m: pb.CardEvent) -> Optional[CardEvent]:
    which = m.WhichOneof("event")
    if which == "subscribed":
        return CardEvent("subscribed", open_cards=m.subscribed.open_cards)
    if which == "opened":
        return CardEvent("opened", card_from_pb(m.opened))
    if which == "closed":
        return CardEvent("closed", card_from_pb(m.closed))
    return None


@dataclass(frozen=True)
class CardArguments:
    conversation_id: str
    number: int
    tool: str
    text: str
    offset: int
    next_offset: int
    total_chars: int


def card_arguments_from_pb(m: pb.CardArguments) -> CardArguments:
    return _plain(CardArguments, m)
