from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
SYNCED_FILE_STATE_DELETED: SyncedFileState
SYNCED_FILE_STATE_FAILED: SyncedFileState
SYNCED_FILE_STATE_FRESH: SyncedFileState
SYNCED_FILE_STATE_LATE: SyncedFileState
SYNCED_FILE_STATE_NO_SERVER: SyncedFileState
SYNCED_FILE_STATE_UNSPECIFIED: SyncedFileState

class AnswerCardRequest(_message.Message):
    __slots__ = ["answer", "conversation_id", "number"]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    answer: CardAnswer
    conversation_id: str
    number: int
    def __init__(self, conversation_id: _Optional[str] = ..., number: _Optional[int] = ..., answer: _Optional[_Union[CardAnswer, _Mapping]] = ...) -> None: ...

class AttachCliRunRequest(_message.Message):
    __slots__ = ["approval_policy", "conversation_id", "new_run", "surface", "vibe_mode"]
    APPROVAL_POLICY_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    NEW_RUN_FIELD_NUMBER: _ClassVar[int]
    SURFACE_FIELD_NUMBER: _ClassVar[int]
    VIBE_MODE_FIELD_NUMBER: _ClassVar[int]
    approval_policy: str
    conversation_id: str
    new_run: bool
    surface: str
    vibe_mode: bool
    def __init__(self, conversation_id: _Optional[str] = ..., surface: _Optional[str] = ..., approval_policy: _Optional[str] = ..., vibe_mode: bool = ..., new_run: bool = ...) -> None: ...

class AuditCheck(_message.Message):
    __slots__ = ["expected", "inside", "item", "ok", "outside"]
    EXPECTED_FIELD_NUMBER: _ClassVar[int]
    INSIDE_FIELD_NUMBER: _ClassVar[int]
    ITEM_FIELD_NUMBER: _ClassVar[int]
    OK_FIELD_NUMBER: _ClassVar[int]
    OUTSIDE_FIELD_NUMBER: _ClassVar[int]
    expected: str
    inside: str
    item: str
    ok: bool
    outside: str
    def __init__(self, item: _Optional[str] = ..., expected: _Optional[str] = ..., outside: _Optional[str] = ..., inside: _Optional[str] = ..., ok: bool = ...) -> None: ...

class AuditEnclosureRequest(_message.Message):
    __slots__ = ["conversation_id"]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    conversation_id: str
    def __init__(self, conversation_id: _Optional[str] = ...) -> None: ...

class AuditEvent(_message.Message):
    __slots__ = ["arguments_digest", "card_number", "conversation_id", "detail", "duration_ms", "kernel_id", "kind", "origin", "outcome", "placement", "run_id", "seq", "tenant", "tier", "time_ms", "tool"]
    ARGUMENTS_DIGEST_FIELD_NUMBER: _ClassVar[int]
    CARD_NUMBER_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    KERNEL_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    PLACEMENT_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    TENANT_FIELD_NUMBER: _ClassVar[int]
    TIER_FIELD_NUMBER: _ClassVar[int]
    TIME_MS_FIELD_NUMBER: _ClassVar[int]
    TOOL_FIELD_NUMBER: _ClassVar[int]
    arguments_digest: str
    card_number: int
    conversation_id: str
    detail: str
    duration_ms: int
    kernel_id: str
    kind: str
    origin: str
    outcome: str
    placement: str
    run_id: str
    seq: int
    tenant: str
    tier: str
    time_ms: int
    tool: str
    def __init__(self, seq: _Optional[int] = ..., time_ms: _Optional[int] = ..., conversation_id: _Optional[str] = ..., run_id: _Optional[str] = ..., kind: _Optional[str] = ..., tool: _Optional[str] = ..., tier: _Optional[str] = ..., arguments_digest: _Optional[str] = ..., outcome: _Optional[str] = ..., duration_ms: _Optional[int] = ..., origin: _Optional[str] = ..., detail: _Optional[str] = ..., placement: _Optional[str] = ..., kernel_id: _Optional[str] = ..., card_number: _Optional[int] = ..., tenant: _Optional[str] = ...) -> None: ...

class CallInFlight(_message.Message):
    __slots__ = ["call_id", "conversation_id", "origin", "run_id", "started_at_ms", "tenant", "tool"]
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    TENANT_FIELD_NUMBER: _ClassVar[int]
    TOOL_FIELD_NUMBER: _ClassVar[int]
    call_id: str
    conversation_id: str
    origin: str
    run_id: str
    started_at_ms: int
    tenant: str
    tool: str
    def __init__(self, call_id: _Optional[str] = ..., run_id: _Optional[str] = ..., conversation_id: _Optional[str] = ..., tenant: _Optional[str] = ..., tool: _Optional[str] = ..., started_at_ms: _Optional[int] = ..., origin: _Optional[str] = ...) -> None: ...

class CallToolRequest(_message.Message):
    __slots__ = ["arguments_json", "run_id", "tool"]
    ARGUMENTS_JSON_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_FIELD_NUMBER: _ClassVar[int]
    arguments_json: str
    run_id: str
    tool: str
    def __init__(self, run_id: _Optional[str] = ..., tool: _Optional[str] = ..., arguments_json: _Optional[str] = ...) -> None: ...

class CancelCallRequest(_message.Message):
    __slots__ = ["call_id"]
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    call_id: str
    def __init__(self, call_id: _Optional[str] = ...) -> None: ...

class CancelCallResponse(_message.Message):
    __slots__ = ["call"]
    CALL_FIELD_NUMBER: _ClassVar[int]
    call: CallInFlight
    def __init__(self, call: _Optional[_Union[CallInFlight, _Mapping]] = ...) -> None: ...

class Card(_message.Message):
    __slots__ = ["allow_free_text", "answer", "arguments_chars", "arguments_json", "arguments_truncated", "closed_at_ms", "context", "conversation_id", "created_at_ms", "expires_at_ms", "files", "files_note", "kind", "multi_select", "number", "options", "question", "run_id", "state", "tool"]
    ALLOW_FREE_TEXT_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    ARGUMENTS_CHARS_FIELD_NUMBER: _ClassVar[int]
    ARGUMENTS_JSON_FIELD_NUMBER: _ClassVar[int]
    ARGUMENTS_TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    CLOSED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_MS_FIELD_NUMBER: _ClassVar[int]
    FILES_FIELD_NUMBER: _ClassVar[int]
    FILES_NOTE_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    MULTI_SELECT_FIELD_NUMBER: _ClassVar[int]
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    QUESTION_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    TOOL_FIELD_NUMBER: _ClassVar[int]
    allow_free_text: bool
    answer: CardAnswer
    arguments_chars: int
    arguments_json: str
    arguments_truncated: bool
    closed_at_ms: int
    context: str
    conversation_id: str
    created_at_ms: int
    expires_at_ms: int
    files: _containers.RepeatedScalarFieldContainer[str]
    files_note: str
    kind: str
    multi_select: bool
    number: int
    options: _containers.RepeatedCompositeFieldContainer[CardOption]
    question: str
    run_id: str
    state: str
    tool: str
    def __init__(self, conversation_id: _Optional[str] = ..., number: _Optional[int] = ..., kind: _Optional[str] = ..., question: _Optional[str] = ..., context: _Optional[str] = ..., options: _Optional[_Iterable[_Union[CardOption, _Mapping]]] = ..., allow_free_text: bool = ..., multi_select: bool = ..., run_id: _Optional[str] = ..., tool: _Optional[str] = ..., arguments_json: _Optional[str] = ..., created_at_ms: _Optional[int] = ..., expires_at_ms: _Optional[int] = ..., state: _Optional[str] = ..., answer: _Optional[_Union[CardAnswer, _Mapping]] = ..., closed_at_ms: _Optional[int] = ..., files: _Optional[_Iterable[str]] = ..., files_note: _Optional[str] = ..., arguments_chars: _Optional[int] = ..., arguments_truncated: bool = ...) -> None: ...

class CardAnswer(_message.Message):
    __slots__ = ["free_text", "selected", "skip"]
    FREE_TEXT_FIELD_NUMBER: _ClassVar[int]
    SELECTED_FIELD_NUMBER: _ClassVar[int]
    SKIP_FIELD_NUMBER: _ClassVar[int]
    free_text: str
    selected: _containers.RepeatedScalarFieldContainer[str]
    skip: bool
    def __init__(self, selected: _Optional[_Iterable[str]] = ..., free_text: _Optional[str] = ..., skip: bool = ...) -> None: ...

class CardArguments(_message.Message):
    __slots__ = ["conversation_id", "next_offset", "number", "offset", "text", "tool", "total_chars"]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    NEXT_OFFSET_FIELD_NUMBER: _ClassVar[int]
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    TOOL_FIELD_NUMBER: _ClassVar[int]
    TOTAL_CHARS_FIELD_NUMBER: _ClassVar[int]
    conversation_id: str
    next_offset: int
    number: int
    offset: int
    text: str
    tool: str
    total_chars: int
    def __init__(self, conversation_id: _Optional[str] = ..., number: _Optional[int] = ..., tool: _Optional[str] = ..., text: _Optional[str] = ..., offset: _Optional[int] = ..., next_offset: _Optional[int] = ..., total_chars: _Optional[int] = ...) -> None: ...

class CardEvent(_message.Message):
    __slots__ = ["closed", "opened", "subscribed"]
    CLOSED_FIELD_NUMBER: _ClassVar[int]
    OPENED_FIELD_NUMBER: _ClassVar[int]
    SUBSCRIBED_FIELD_NUMBER: _ClassVar[int]
    closed: Card
    opened: Card
    subscribed: CardsSubscribed
    def __init__(self, subscribed: _Optional[_Union[CardsSubscribed, _Mapping]] = ..., opened: _Optional[_Union[Card, _Mapping]] = ..., closed: _Optional[_Union[Card, _Mapping]] = ...) -> None: ...

class CardOption(_message.Message):
    __slots__ = ["description", "label"]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    description: str
    label: str
    def __init__(self, label: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...

class CardsSubscribed(_message.Message):
    __slots__ = ["open_cards"]
    OPEN_CARDS_FIELD_NUMBER: _ClassVar[int]
    open_cards: int
    def __init__(self, open_cards: _Optional[int] = ...) -> None: ...

class CgroupUsage(_message.Message):
    __slots__ = ["cpu_system_seconds", "cpu_user_seconds", "measured_at_ms", "memory_bytes", "memory_limit_bytes", "memory_peak_bytes", "pids", "source"]
    CPU_SYSTEM_SECONDS_FIELD_NUMBER: _ClassVar[int]
    CPU_USER_SECONDS_FIELD_NUMBER: _ClassVar[int]
    MEASURED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    MEMORY_BYTES_FIELD_NUMBER: _ClassVar[int]
    MEMORY_LIMIT_BYTES_FIELD_NUMBER: _ClassVar[int]
    MEMORY_PEAK_BYTES_FIELD_NUMBER: _ClassVar[int]
    PIDS_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    cpu_system_seconds: float
    cpu_user_seconds: float
    measured_at_ms: int
    memory_bytes: int
    memory_limit_bytes: int
    memory_peak_bytes: int
    pids: int
    source: str
    def __init__(self, source: _Optional[str] = ..., cpu_user_seconds: _Optional[float] = ..., cpu_system_seconds: _Optional[float] = ..., memory_bytes: _Optional[int] = ..., memory_peak_bytes: _Optional[int] = ..., memory_limit_bytes: _Optional[int] = ..., pids: _Optional[int] = ..., measured_at_ms: _Optional[int] = ...) -> None: ...

class CloseRunRequest(_message.Message):
    __slots__ = ["run_id"]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    def __init__(self, run_id: _Optional[str] = ...) -> None: ...

class CloseRunResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ContentPart(_message.Message):
    __slots__ = ["image", "repeats_streamed", "rich", "text"]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    REPEATS_STREAMED_FIELD_NUMBER: _ClassVar[int]
    RICH_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    image: ImagePart
    repeats_streamed: bool
    rich: RichPart
    text: str
    def __init__(self, text: _Optional[str] = ..., image: _Optional[_Union[ImagePart, _Mapping]] = ..., rich: _Optional[_Union[RichPart, _Mapping]] = ..., repeats_streamed: bool = ...) -> None: ...

class Conversation(_message.Message):
    __slots__ = ["created_at_ms", "egress", "enclosure", "forked_from", "id", "idle_timeout_seconds", "lifecycle_state", "max_lifetime_seconds", "not_copied_back", "open_runs", "placement", "sleep", "slept_at_ms", "tenant", "usage", "workspace_path"]
    CREATED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    EGRESS_FIELD_NUMBER: _ClassVar[int]
    ENCLOSURE_FIELD_NUMBER: _ClassVar[int]
    FORKED_FROM_FIELD_NUMBER: _ClassVar[int]
    IDLE_TIMEOUT_SECONDS_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    LIFECYCLE_STATE_FIELD_NUMBER: _ClassVar[int]
    MAX_LIFETIME_SECONDS_FIELD_NUMBER: _ClassVar[int]
    NOT_COPIED_BACK_FIELD_NUMBER: _ClassVar[int]
    OPEN_RUNS_FIELD_NUMBER: _ClassVar[int]
    PLACEMENT_FIELD_NUMBER: _ClassVar[int]
    SLEEP_FIELD_NUMBER: _ClassVar[int]
    SLEPT_AT_MS_FIELD_NUMBER: _ClassVar[int]
    TENANT_FIELD_NUMBER: _ClassVar[int]
    USAGE_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_PATH_FIELD_NUMBER: _ClassVar[int]
    created_at_ms: int
    egress: EgressPolicy
    enclosure: Enclosure
    forked_from: str
    id: str
    idle_timeout_seconds: int
    lifecycle_state: str
    max_lifetime_seconds: int
    not_copied_back: _containers.RepeatedScalarFieldContainer[str]
    open_runs: _containers.RepeatedScalarFieldContainer[str]
    placement: str
    sleep: LifecycleSleep
    slept_at_ms: int
    tenant: str
    usage: ConversationUsage
    workspace_path: str
    def __init__(self, id: _Optional[str] = ..., workspace_path: _Optional[str] = ..., placement: _Optional[str] = ..., enclosure: _Optional[_Union[Enclosure, _Mapping]] = ..., created_at_ms: _Optional[int] = ..., open_runs: _Optional[_Iterable[str]] = ..., not_copied_back: _Optional[_Iterable[str]] = ..., tenant: _Optional[str] = ..., lifecycle_state: _Optional[str] = ..., idle_timeout_seconds: _Optional[int] = ..., max_lifetime_seconds: _Optional[int] = ..., slept_at_ms: _Optional[int] = ..., sleep: _Optional[_Union[LifecycleSleep, _Mapping]] = ..., forked_from: _Optional[str] = ..., usage: _Optional[_Union[ConversationUsage, _Mapping]] = ..., egress: _Optional[_Union[EgressPolicy, _Mapping]] = ...) -> None: ...

class ConversationUsage(_message.Message):
    __slots__ = ["cgroup", "cgroup_unavailable", "engine", "engine_unavailable", "measured_at_ms", "workspace", "workspace_unavailable"]
    CGROUP_FIELD_NUMBER: _ClassVar[int]
    CGROUP_UNAVAILABLE_FIELD_NUMBER: _ClassVar[int]
    ENGINE_FIELD_NUMBER: _ClassVar[int]
    ENGINE_UNAVAILABLE_FIELD_NUMBER: _ClassVar[int]
    MEASURED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_UNAVAILABLE_FIELD_NUMBER: _ClassVar[int]
    cgroup: CgroupUsage
    cgroup_unavailable: str
    engine: EngineUsage
    engine_unavailable: str
    measured_at_ms: int
    workspace: WorkspaceUsage
    workspace_unavailable: str
    def __init__(self, measured_at_ms: _Optional[int] = ..., cgroup: _Optional[_Union[CgroupUsage, _Mapping]] = ..., cgroup_unavailable: _Optional[str] = ..., engine: _Optional[_Union[EngineUsage, _Mapping]] = ..., engine_unavailable: _Optional[str] = ..., workspace: _Optional[_Union[WorkspaceUsage, _Mapping]] = ..., workspace_unavailable: _Optional[str] = ...) -> None: ...

class CreateConversationRequest(_message.Message):
    __slots__ = ["egress", "id", "idle_timeout_seconds", "max_lifetime_seconds", "workspace_path"]
    EGRESS_FIELD_NUMBER: _ClassVar[int]
    IDLE_TIMEOUT_SECONDS_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    MAX_LIFETIME_SECONDS_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_PATH_FIELD_NUMBER: _ClassVar[int]
    egress: EgressPolicy
    id: str
    idle_timeout_seconds: int
    max_lifetime_seconds: int
    workspace_path: str
    def __init__(self, id: _Optional[str] = ..., workspace_path: _Optional[str] = ..., idle_timeout_seconds: _Optional[int] = ..., max_lifetime_seconds: _Optional[int] = ..., egress: _Optional[_Union[EgressPolicy, _Mapping]] = ...) -> None: ...

class CustomToolLoadFailure(_message.Message):
    __slots__ = ["file", "reason"]
    FILE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    file: str
    reason: str
    def __init__(self, file: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class DeleteConversationRequest(_message.Message):
    __slots__ = ["conversation_id"]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    conversation_id: str
    def __init__(self, conversation_id: _Optional[str] = ...) -> None: ...

class DeleteConversationResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class DescribePlacementRequest(_message.Message):
    __slots__ = ["conversation_id"]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    conversation_id: str
    def __init__(self, conversation_id: _Optional[str] = ...) -> None: ...

class Diagnostic(_message.Message):
    __slots__ = ["code", "column", "line", "message", "path", "severity", "source"]
    CODE_FIELD_NUMBER: _ClassVar[int]
    COLUMN_FIELD_NUMBER: _ClassVar[int]
    LINE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    SEVERITY_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    code: str
    column: int
    line: int
    message: str
    path: str
    severity: str
    source: str
    def __init__(self, path: _Optional[str] = ..., line: _Optional[int] = ..., column: _Optional[int] = ..., severity: _Optional[str] = ..., code: _Optional[str] = ..., message: _Optional[str] = ..., source: _Optional[str] = ...) -> None: ...

class EgressDestination(_message.Message):
    __slots__ = ["cidr", "host", "ports"]
    CIDR_FIELD_NUMBER: _ClassVar[int]
    HOST_FIELD_NUMBER: _ClassVar[int]
    PORTS_FIELD_NUMBER: _ClassVar[int]
    cidr: str
    host: str
    ports: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, host: _Optional[str] = ..., cidr: _Optional[str] = ..., ports: _Optional[_Iterable[int]] = ...) -> None: ...

class EgressPolicy(_message.Message):
    __slots__ = ["allow"]
    ALLOW_FIELD_NUMBER: _ClassVar[int]
    allow: _containers.RepeatedCompositeFieldContainer[EgressDestination]
    def __init__(self, allow: _Optional[_Iterable[_Union[EgressDestination, _Mapping]]] = ...) -> None: ...

class EgressSetRequest(_message.Message):
    __slots__ = ["conversation_id", "egress"]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    EGRESS_FIELD_NUMBER: _ClassVar[int]
    conversation_id: str
    egress: EgressPolicy
    def __init__(self, conversation_id: _Optional[str] = ..., egress: _Optional[_Union[EgressPolicy, _Mapping]] = ...) -> None: ...

class Enclosure(_message.Message):
    __slots__ = ["checkpoint_bytes", "container_id", "detail", "image", "limits", "memory_kept", "notes", "origin", "pause_notes", "pause_timings", "paused_at_ms", "relaxations", "runtime", "started_at_ms", "state", "workspace_mode"]
    CHECKPOINT_BYTES_FIELD_NUMBER: _ClassVar[int]
    CONTAINER_ID_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    LIMITS_FIELD_NUMBER: _ClassVar[int]
    MEMORY_KEPT_FIELD_NUMBER: _ClassVar[int]
    NOTES_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    PAUSED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    PAUSE_NOTES_FIELD_NUMBER: _ClassVar[int]
    PAUSE_TIMINGS_FIELD_NUMBER: _ClassVar[int]
    RELAXATIONS_FIELD_NUMBER: _ClassVar[int]
    RUNTIME_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_MODE_FIELD_NUMBER: _ClassVar[int]
    checkpoint_bytes: int
    container_id: str
    detail: str
    image: str
    limits: EnclosureLimits
    memory_kept: bool
    notes: _containers.RepeatedScalarFieldContainer[str]
    origin: str
    pause_notes: _containers.RepeatedScalarFieldContainer[str]
    pause_timings: str
    paused_at_ms: int
    relaxations: _containers.RepeatedScalarFieldContainer[str]
    runtime: str
    started_at_ms: int
    state: str
    workspace_mode: str
    def __init__(self, container_id: _Optional[str] = ..., image: _Optional[str] = ..., state: _Optional[str] = ..., started_at_ms: _Optional[int] = ..., limits: _Optional[_Union[EnclosureLimits, _Mapping]] = ..., workspace_mode: _Optional[str] = ..., detail: _Optional[str] = ..., relaxations: _Optional[_Iterable[str]] = ..., runtime: _Optional[str] = ..., notes: _Optional[_Iterable[str]] = ..., origin: _Optional[str] = ..., paused_at_ms: _Optional[int] = ..., checkpoint_bytes: _Optional[int] = ..., memory_kept: bool = ..., pause_notes: _Optional[_Iterable[str]] = ..., pause_timings: _Optional[str] = ...) -> None: ...

class EnclosureAudit(_message.Message):
    __slots__ = ["bridge_calls", "checks", "container_id", "conversation_id", "image", "passed", "placement", "relaxations", "runtime", "text", "time_ms"]
    BRIDGE_CALLS_FIELD_NUMBER: _ClassVar[int]
    CHECKS_FIELD_NUMBER: _ClassVar[int]
    CONTAINER_ID_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    PASSED_FIELD_NUMBER: _ClassVar[int]
    PLACEMENT_FIELD_NUMBER: _ClassVar[int]
    RELAXATIONS_FIELD_NUMBER: _ClassVar[int]
    RUNTIME_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    TIME_MS_FIELD_NUMBER: _ClassVar[int]
    bridge_calls: _containers.RepeatedCompositeFieldContainer[AuditEvent]
    checks: _containers.RepeatedCompositeFieldContainer[AuditCheck]
    container_id: str
    conversation_id: str
    image: str
    passed: bool
    placement: str
    relaxations: _containers.RepeatedScalarFieldContainer[str]
    runtime: str
    text: str
    time_ms: int
    def __init__(self, conversation_id: _Optional[str] = ..., placement: _Optional[str] = ..., container_id: _Optional[str] = ..., image: _Optional[str] = ..., relaxations: _Optional[_Iterable[str]] = ..., checks: _Optional[_Iterable[_Union[AuditCheck, _Mapping]]] = ..., runtime: _Optional[str] = ..., bridge_calls: _Optional[_Iterable[_Union[AuditEvent, _Mapping]]] = ..., passed: bool = ..., time_ms: _Optional[int] = ..., text: _Optional[str] = ...) -> None: ...

class EnclosureLimits(_message.Message):
    __slots__ = ["cpus", "disk_bytes", "memory_bytes", "pids"]
    CPUS_FIELD_NUMBER: _ClassVar[int]
    DISK_BYTES_FIELD_NUMBER: _ClassVar[int]
    MEMORY_BYTES_FIELD_NUMBER: _ClassVar[int]
    PIDS_FIELD_NUMBER: _ClassVar[int]
    cpus: float
    disk_bytes: int
    memory_bytes: int
    pids: int
    def __init__(self, memory_bytes: _Optional[int] = ..., cpus: _Optional[float] = ..., pids: _Optional[int] = ..., disk_bytes: _Optional[int] = ...) -> None: ...

class EnclosureOptions(_message.Message):
    __slots__ = ["agent_delivery", "allow_new_privileges", "cpus", "devcontainer", "disk_limit_bytes", "image", "keep_capabilities", "memory_bytes", "network_mode", "pids_limit", "runtime", "user", "workspace_mode", "writable_root"]
    AGENT_DELIVERY_FIELD_NUMBER: _ClassVar[int]
    ALLOW_NEW_PRIVILEGES_FIELD_NUMBER: _ClassVar[int]
    CPUS_FIELD_NUMBER: _ClassVar[int]
    DEVCONTAINER_FIELD_NUMBER: _ClassVar[int]
    DISK_LIMIT_BYTES_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    KEEP_CAPABILITIES_FIELD_NUMBER: _ClassVar[int]
    MEMORY_BYTES_FIELD_NUMBER: _ClassVar[int]
    NETWORK_MODE_FIELD_NUMBER: _ClassVar[int]
    PIDS_LIMIT_FIELD_NUMBER: _ClassVar[int]
    RUNTIME_FIELD_NUMBER: _ClassVar[int]
    USER_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_MODE_FIELD_NUMBER: _ClassVar[int]
    WRITABLE_ROOT_FIELD_NUMBER: _ClassVar[int]
    agent_delivery: str
    allow_new_privileges: bool
    cpus: float
    devcontainer: bool
    disk_limit_bytes: int
    image: str
    keep_capabilities: _containers.RepeatedScalarFieldContainer[str]
    memory_bytes: int
    network_mode: str
    pids_limit: int
    runtime: str
    user: str
    workspace_mode: str
    writable_root: bool
    def __init__(self, image: _Optional[str] = ..., workspace_mode: _Optional[str] = ..., memory_bytes: _Optional[int] = ..., cpus: _Optional[float] = ..., pids_limit: _Optional[int] = ..., user: _Optional[str] = ..., network_mode: _Optional[str] = ..., keep_capabilities: _Optional[_Iterable[str]] = ..., writable_root: bool = ..., allow_new_privileges: bool = ..., agent_delivery: _Optional[str] = ..., disk_limit_bytes: _Optional[int] = ..., runtime: _Optional[str] = ..., devcontainer: bool = ...) -> None: ...

class EngineUsage(_message.Message):
    __slots__ = ["cpu_percent", "cpu_total_seconds", "engine", "measured_at_ms", "memory_limit_bytes", "memory_usage_bytes", "pids"]
    CPU_PERCENT_FIELD_NUMBER: _ClassVar[int]
    CPU_TOTAL_SECONDS_FIELD_NUMBER: _ClassVar[int]
    ENGINE_FIELD_NUMBER: _ClassVar[int]
    MEASURED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    MEMORY_LIMIT_BYTES_FIELD_NUMBER: _ClassVar[int]
    MEMORY_USAGE_BYTES_FIELD_NUMBER: _ClassVar[int]
    PIDS_FIELD_NUMBER: _ClassVar[int]
    cpu_percent: float
    cpu_total_seconds: float
    engine: str
    measured_at_ms: int
    memory_limit_bytes: int
    memory_usage_bytes: int
    pids: int
    def __init__(self, engine: _Optional[str] = ..., cpu_total_seconds: _Optional[float] = ..., cpu_percent: _Optional[float] = ..., memory_usage_bytes: _Optional[int] = ..., memory_limit_bytes: _Optional[int] = ..., pids: _Optional[int] = ..., measured_at_ms: _Optional[int] = ...) -> None: ...

class ForkConversationRequest(_message.Message):
    __slots__ = ["id", "source_conversation_id", "workspace_only"]
    ID_FIELD_NUMBER: _ClassVar[int]
    SOURCE_CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_ONLY_FIELD_NUMBER: _ClassVar[int]
    id: str
    source_conversation_id: str
    workspace_only: bool
    def __init__(self, source_conversation_id: _Optional[str] = ..., id: _Optional[str] = ..., workspace_only: bool = ...) -> None: ...

class GetCardArgumentsRequest(_message.Message):
    __slots__ = ["conversation_id", "limit", "number", "offset"]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    conversation_id: str
    limit: int
    number: int
    offset: int
    def __init__(self, conversation_id: _Optional[str] = ..., number: _Optional[int] = ..., offset: _Optional[int] = ..., limit: _Optional[int] = ...) -> None: ...

class GetConversationRequest(_message.Message):
    __slots__ = ["conversation_id"]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    conversation_id: str
    def __init__(self, conversation_id: _Optional[str] = ...) -> None: ...

class HarnessTool(_message.Message):
    __slots__ = ["description", "input_schema_json", "name", "tier"]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    INPUT_SCHEMA_JSON_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TIER_FIELD_NUMBER: _ClassVar[int]
    description: str
    input_schema_json: str
    name: str
    tier: str
    def __init__(self, name: _Optional[str] = ..., tier: _Optional[str] = ..., description: _Optional[str] = ..., input_schema_json: _Optional[str] = ...) -> None: ...

class HarnessToolCall(_message.Message):
    __slots__ = ["arguments_json", "call_id", "kernel_id", "run_id", "tool"]
    ARGUMENTS_JSON_FIELD_NUMBER: _ClassVar[int]
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    KERNEL_ID_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_FIELD_NUMBER: _ClassVar[int]
    arguments_json: str
    call_id: str
    kernel_id: str
    run_id: str
    tool: str
    def __init__(self, call_id: _Optional[str] = ..., tool: _Optional[str] = ..., arguments_json: _Optional[str] = ..., run_id: _Optional[str] = ..., kernel_id: _Optional[str] = ...) -> None: ...

class HarnessToolResult(_message.Message):
    __slots__ = ["call_id", "error_message", "is_error", "parts"]
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    ERROR_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    IS_ERROR_FIELD_NUMBER: _ClassVar[int]
    PARTS_FIELD_NUMBER: _ClassVar[int]
    call_id: str
    error_message: str
    is_error: bool
    parts: _containers.RepeatedCompositeFieldContainer[ContentPart]
    def __init__(self, call_id: _Optional[str] = ..., parts: _Optional[_Iterable[_Union[ContentPart, _Mapping]]] = ..., is_error: bool = ..., error_message: _Optional[str] = ...) -> None: ...

class ImagePart(_message.Message):
    __slots__ = ["data", "mime_type"]
    DATA_FIELD_NUMBER: _ClassVar[int]
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    mime_type: str
    def __init__(self, mime_type: _Optional[str] = ..., data: _Optional[bytes] = ...) -> None: ...

class InterceptDecision(_message.Message):
    __slots__ = ["answer", "call_id", "reason", "verdict"]
    ANSWER_FIELD_NUMBER: _ClassVar[int]
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    answer: HarnessToolResult
    call_id: str
    reason: str
    verdict: str
    def __init__(self, call_id: _Optional[str] = ..., verdict: _Optional[str] = ..., reason: _Optional[str] = ..., answer: _Optional[_Union[HarnessToolResult, _Mapping]] = ...) -> None: ...

class InterceptOffer(_message.Message):
    __slots__ = ["arguments_json", "call_id", "kernel_id", "run_id", "tier", "tool"]
    ARGUMENTS_JSON_FIELD_NUMBER: _ClassVar[int]
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    KERNEL_ID_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    TIER_FIELD_NUMBER: _ClassVar[int]
    TOOL_FIELD_NUMBER: _ClassVar[int]
    arguments_json: str
    call_id: str
    kernel_id: str
    run_id: str
    tier: str
    tool: str
    def __init__(self, call_id: _Optional[str] = ..., tool: _Optional[str] = ..., tier: _Optional[str] = ..., arguments_json: _Optional[str] = ..., run_id: _Optional[str] = ..., kernel_id: _Optional[str] = ...) -> None: ...

class LifecycleSleep(_message.Message):
    __slots__ = ["detail", "image", "mechanism", "memory_kept", "placement", "reason", "runtime"]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    MECHANISM_FIELD_NUMBER: _ClassVar[int]
    MEMORY_KEPT_FIELD_NUMBER: _ClassVar[int]
    PLACEMENT_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    RUNTIME_FIELD_NUMBER: _ClassVar[int]
    detail: str
    image: str
    mechanism: str
    memory_kept: bool
    placement: str
    reason: str
    runtime: str
    def __init__(self, reason: _Optional[str] = ..., mechanism: _Optional[str] = ..., memory_kept: bool = ..., placement: _Optional[str] = ..., image: _Optional[str] = ..., runtime: _Optional[str] = ..., detail: _Optional[str] = ...) -> None: ...

class ListCallsInFlightRequest(_message.Message):
    __slots__ = ["conversation_id"]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    conversation_id: str
    def __init__(self, conversation_id: _Optional[str] = ...) -> None: ...

class ListCallsInFlightResponse(_message.Message):
    __slots__ = ["calls"]
    CALLS_FIELD_NUMBER: _ClassVar[int]
    calls: _containers.RepeatedCompositeFieldContainer[CallInFlight]
    def __init__(self, calls: _Optional[_Iterable[_Union[CallInFlight, _Mapping]]] = ...) -> None: ...

class ListCardsRequest(_message.Message):
    __slots__ = ["conversation_id", "include_closed"]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_CLOSED_FIELD_NUMBER: _ClassVar[int]
    conversation_id: str
    include_closed: bool
    def __init__(self, conversation_id: _Optional[str] = ..., include_closed: bool = ...) -> None: ...

class ListCardsResponse(_message.Message):
    __slots__ = ["cards"]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedCompositeFieldContainer[Card]
    def __init__(self, cards: _Optional[_Iterable[_Union[Card, _Mapping]]] = ...) -> None: ...

class ListConversationsRequest(_message.Message):
    __slots__ = ["page_size", "page_token"]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListConversationsResponse(_message.Message):
    __slots__ = ["conversations", "next_page_token"]
    CONVERSATIONS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    conversations: _containers.RepeatedCompositeFieldContainer[Conversation]
    next_page_token: str
    def __init__(self, conversations: _Optional[_Iterable[_Union[Conversation, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ListRunsRequest(_message.Message):
    __slots__ = ["conversation_id"]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    conversation_id: str
    def __init__(self, conversation_id: _Optional[str] = ...) -> None: ...

class ListRunsResponse(_message.Message):
    __slots__ = ["runs"]
    RUNS_FIELD_NUMBER: _ClassVar[int]
    runs: _containers.RepeatedCompositeFieldContainer[Run]
    def __init__(self, runs: _Optional[_Iterable[_Union[Run, _Mapping]]] = ...) -> None: ...

class ListToolsRequest(_message.Message):
    __slots__ = ["run_id"]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    def __init__(self, run_id: _Optional[str] = ...) -> None: ...

class ListToolsResponse(_message.Message):
    __slots__ = ["custom_tool_failures", "required_next_tool", "tools"]
    CUSTOM_TOOL_FAILURES_FIELD_NUMBER: _ClassVar[int]
    REQUIRED_NEXT_TOOL_FIELD_NUMBER: _ClassVar[int]
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    custom_tool_failures: _containers.RepeatedCompositeFieldContainer[CustomToolLoadFailure]
    required_next_tool: str
    tools: _containers.RepeatedCompositeFieldContainer[ToolInfo]
    def __init__(self, tools: _Optional[_Iterable[_Union[ToolInfo, _Mapping]]] = ..., required_next_tool: _Optional[str] = ..., custom_tool_failures: _Optional[_Iterable[_Union[CustomToolLoadFailure, _Mapping]]] = ...) -> None: ...

class OpenRunRequest(_message.Message):
    __slots__ = ["approval_policy", "conversation_id", "question_timeout_seconds", "resources", "strict_resolve", "surface", "target_space", "vibe_mode"]
    APPROVAL_POLICY_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    QUESTION_TIMEOUT_SECONDS_FIELD_NUMBER: _ClassVar[int]
    RESOURCES_FIELD_NUMBER: _ClassVar[int]
    STRICT_RESOLVE_FIELD_NUMBER: _ClassVar[int]
    SURFACE_FIELD_NUMBER: _ClassVar[int]
    TARGET_SPACE_FIELD_NUMBER: _ClassVar[int]
    VIBE_MODE_FIELD_NUMBER: _ClassVar[int]
    approval_policy: str
    conversation_id: str
    question_timeout_seconds: int
    resources: _containers.RepeatedScalarFieldContainer[str]
    strict_resolve: bool
    surface: str
    target_space: str
    vibe_mode: bool
    def __init__(self, conversation_id: _Optional[str] = ..., surface: _Optional[str] = ..., resources: _Optional[_Iterable[str]] = ..., approval_policy: _Optional[str] = ..., target_space: _Optional[str] = ..., vibe_mode: bool = ..., question_timeout_seconds: _Optional[int] = ..., strict_resolve: bool = ...) -> None: ...

class PauseEnclosureRequest(_message.Message):
    __slots__ = ["conversation_id"]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    conversation_id: str
    def __init__(self, conversation_id: _Optional[str] = ...) -> None: ...

class PauseTenantRequest(_message.Message):
    __slots__ = ["reason", "tenant"]
    REASON_FIELD_NUMBER: _ClassVar[int]
    TENANT_FIELD_NUMBER: _ClassVar[int]
    reason: str
    tenant: str
    def __init__(self, tenant: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class PendingState(_message.Message):
    __slots__ = ["labels", "pending_ids", "required_next_tool"]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    PENDING_IDS_FIELD_NUMBER: _ClassVar[int]
    REQUIRED_NEXT_TOOL_FIELD_NUMBER: _ClassVar[int]
    labels: _containers.RepeatedScalarFieldContainer[str]
    pending_ids: _containers.RepeatedScalarFieldContainer[str]
    required_next_tool: str
    def __init__(self, required_next_tool: _Optional[str] = ..., pending_ids: _Optional[_Iterable[str]] = ..., labels: _Optional[_Iterable[str]] = ...) -> None: ...

class PlacementComponent(_message.Message):
    __slots__ = ["detail", "id", "kind", "usable"]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    USABLE_FIELD_NUMBER: _ClassVar[int]
    detail: str
    id: str
    kind: str
    usable: bool
    def __init__(self, kind: _Optional[str] = ..., id: _Optional[str] = ..., usable: bool = ..., detail: _Optional[str] = ...) -> None: ...

class PlacementDescription(_message.Message):
    __slots__ = ["agent_node_version", "agent_version", "components", "placement", "workspace_root"]
    AGENT_NODE_VERSION_FIELD_NUMBER: _ClassVar[int]
    AGENT_VERSION_FIELD_NUMBER: _ClassVar[int]
    COMPONENTS_FIELD_NUMBER: _ClassVar[int]
    PLACEMENT_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_ROOT_FIELD_NUMBER: _ClassVar[int]
    agent_node_version: str
    agent_version: str
    components: _containers.RepeatedCompositeFieldContainer[PlacementComponent]
    placement: str
    workspace_root: str
    def __init__(self, placement: _Optional[str] = ..., agent_version: _Optional[str] = ..., workspace_root: _Optional[str] = ..., components: _Optional[_Iterable[_Union[PlacementComponent, _Mapping]]] = ..., agent_node_version: _Optional[str] = ...) -> None: ...

class ResumeEnclosureRequest(_message.Message):
    __slots__ = ["conversation_id"]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    conversation_id: str
    def __init__(self, conversation_id: _Optional[str] = ...) -> None: ...

class ResumeTenantRequest(_message.Message):
    __slots__ = ["tenant"]
    TENANT_FIELD_NUMBER: _ClassVar[int]
    tenant: str
    def __init__(self, tenant: _Optional[str] = ...) -> None: ...

class RichPart(_message.Message):
    __slots__ = ["mime_type", "text"]
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    mime_type: str
    text: str
    def __init__(self, mime_type: _Optional[str] = ..., text: _Optional[str] = ...) -> None: ...

class Run(_message.Message):
    __slots__ = ["approval_policy", "calls_in_flight", "cli", "cli_current", "conversation_id", "id", "idle_expires_at_ms", "last_used_ms", "opened_at_ms", "pending_actions", "question_timeout_seconds", "resources", "strict_resolve", "surface", "target_space", "vibe_mode"]
    APPROVAL_POLICY_FIELD_NUMBER: _ClassVar[int]
    CALLS_IN_FLIGHT_FIELD_NUMBER: _ClassVar[int]
    CLI_CURRENT_FIELD_NUMBER: _ClassVar[int]
    CLI_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    IDLE_EXPIRES_AT_MS_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    LAST_USED_MS_FIELD_NUMBER: _ClassVar[int]
    OPENED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    PENDING_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    QUESTION_TIMEOUT_SECONDS_FIELD_NUMBER: _ClassVar[int]
    RESOURCES_FIELD_NUMBER: _ClassVar[int]
    STRICT_RESOLVE_FIELD_NUMBER: _ClassVar[int]
    SURFACE_FIELD_NUMBER: _ClassVar[int]
    TARGET_SPACE_FIELD_NUMBER: _ClassVar[int]
    VIBE_MODE_FIELD_NUMBER: _ClassVar[int]
    approval_policy: str
    calls_in_flight: int
    cli: bool
    cli_current: bool
    conversation_id: str
    id: str
    idle_expires_at_ms: int
    last_used_ms: int
    opened_at_ms: int
    pending_actions: int
    question_timeout_seconds: int
    resources: _containers.RepeatedScalarFieldContainer[str]
    strict_resolve: bool
    surface: str
    target_space: str
    vibe_mode: bool
    def __init__(self, id: _Optional[str] = ..., conversation_id: _Optional[str] = ..., surface: _Optional[str] = ..., resources: _Optional[_Iterable[str]] = ..., approval_policy: _Optional[str] = ..., target_space: _Optional[str] = ..., vibe_mode: bool = ..., question_timeout_seconds: _Optional[int] = ..., cli: bool = ..., cli_current: bool = ..., opened_at_ms: _Optional[int] = ..., last_used_ms: _Optional[int] = ..., idle_expires_at_ms: _Optional[int] = ..., pending_actions: _Optional[int] = ..., calls_in_flight: _Optional[int] = ..., strict_resolve: bool = ...) -> None: ...

class SetConversationLifecycleRequest(_message.Message):
    __slots__ = ["conversation_id", "idle_timeout_seconds", "max_lifetime_seconds"]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    IDLE_TIMEOUT_SECONDS_FIELD_NUMBER: _ClassVar[int]
    MAX_LIFETIME_SECONDS_FIELD_NUMBER: _ClassVar[int]
    conversation_id: str
    idle_timeout_seconds: int
    max_lifetime_seconds: int
    def __init__(self, conversation_id: _Optional[str] = ..., idle_timeout_seconds: _Optional[int] = ..., max_lifetime_seconds: _Optional[int] = ...) -> None: ...

class SetVibeModeRequest(_message.Message):
    __slots__ = ["enabled", "run_id"]
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    enabled: bool
    run_id: str
    def __init__(self, run_id: _Optional[str] = ..., enabled: bool = ...) -> None: ...

class StartEnclosureRequest(_message.Message):
    __slots__ = ["conversation_id", "options"]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    conversation_id: str
    options: EnclosureOptions
    def __init__(self, conversation_id: _Optional[str] = ..., options: _Optional[_Union[EnclosureOptions, _Mapping]] = ...) -> None: ...

class StopEnclosureRequest(_message.Message):
    __slots__ = ["conversation_id", "force"]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    FORCE_FIELD_NUMBER: _ClassVar[int]
    conversation_id: str
    force: bool
    def __init__(self, conversation_id: _Optional[str] = ..., force: bool = ...) -> None: ...

class StopHostAgentRequest(_message.Message):
    __slots__ = ["conversation_id"]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    conversation_id: str
    def __init__(self, conversation_id: _Optional[str] = ...) -> None: ...

class StopHostAgentResponse(_message.Message):
    __slots__ = ["pid"]
    PID_FIELD_NUMBER: _ClassVar[int]
    pid: int
    def __init__(self, pid: _Optional[int] = ...) -> None: ...

class StopKernelRequest(_message.Message):
    __slots__ = ["conversation_id", "kernel_id", "language"]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    KERNEL_ID_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    conversation_id: str
    kernel_id: str
    language: str
    def __init__(self, conversation_id: _Optional[str] = ..., kernel_id: _Optional[str] = ..., language: _Optional[str] = ...) -> None: ...

class StopKernelResponse(_message.Message):
    __slots__ = ["kernel_id", "language", "pid"]
    KERNEL_ID_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    PID_FIELD_NUMBER: _ClassVar[int]
    kernel_id: str
    language: str
    pid: int
    def __init__(self, kernel_id: _Optional[str] = ..., language: _Optional[str] = ..., pid: _Optional[int] = ...) -> None: ...

class SubscribeAuditRequest(_message.Message):
    __slots__ = ["conversation_id", "history_only", "include_history"]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    HISTORY_ONLY_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_HISTORY_FIELD_NUMBER: _ClassVar[int]
    conversation_id: str
    history_only: bool
    include_history: bool
    def __init__(self, conversation_id: _Optional[str] = ..., include_history: bool = ..., history_only: bool = ...) -> None: ...

class SubscribeCardsRequest(_message.Message):
    __slots__ = ["conversation_id"]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    conversation_id: str
    def __init__(self, conversation_id: _Optional[str] = ...) -> None: ...

class SyncWritesRequest(_message.Message):
    __slots__ = ["before_write", "paths", "run_id"]
    BEFORE_WRITE_FIELD_NUMBER: _ClassVar[int]
    PATHS_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    before_write: bool
    paths: _containers.RepeatedScalarFieldContainer[str]
    run_id: str
    def __init__(self, run_id: _Optional[str] = ..., paths: _Optional[_Iterable[str]] = ..., before_write: bool = ...) -> None: ...

class SyncWritesResponse(_message.Message):
    __slots__ = ["files", "text"]
    FILES_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    files: _containers.RepeatedCompositeFieldContainer[SyncedFile]
    text: str
    def __init__(self, text: _Optional[str] = ..., files: _Optional[_Iterable[_Union[SyncedFile, _Mapping]]] = ...) -> None: ...

class SyncedFile(_message.Message):
    __slots__ = ["detail", "new_diagnostics", "path", "servers", "state"]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    NEW_DIAGNOSTICS_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    SERVERS_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    detail: str
    new_diagnostics: _containers.RepeatedCompositeFieldContainer[Diagnostic]
    path: str
    servers: _containers.RepeatedScalarFieldContainer[str]
    state: SyncedFileState
    def __init__(self, path: _Optional[str] = ..., state: _Optional[_Union[SyncedFileState, str]] = ..., servers: _Optional[_Iterable[str]] = ..., new_diagnostics: _Optional[_Iterable[_Union[Diagnostic, _Mapping]]] = ..., detail: _Optional[str] = ...) -> None: ...

class TenantPauseState(_message.Message):
    __slots__ = ["paused", "paused_at_ms", "paused_by", "reason", "slept", "tenant"]
    PAUSED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    PAUSED_BY_FIELD_NUMBER: _ClassVar[int]
    PAUSED_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    SLEPT_FIELD_NUMBER: _ClassVar[int]
    TENANT_FIELD_NUMBER: _ClassVar[int]
    paused: bool
    paused_at_ms: int
    paused_by: str
    reason: str
    slept: _containers.RepeatedScalarFieldContainer[str]
    tenant: str
    def __init__(self, tenant: _Optional[str] = ..., paused: bool = ..., paused_at_ms: _Optional[int] = ..., paused_by: _Optional[str] = ..., reason: _Optional[str] = ..., slept: _Optional[_Iterable[str]] = ...) -> None: ...

class ToolCallCancel(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ToolCallError(_message.Message):
    __slots__ = ["code", "grpc_code", "message"]
    CODE_FIELD_NUMBER: _ClassVar[int]
    GRPC_CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    code: str
    grpc_code: int
    message: str
    def __init__(self, grpc_code: _Optional[int] = ..., code: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class ToolCallEvent(_message.Message):
    __slots__ = ["call_id", "error", "output", "progress", "result"]
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    call_id: int
    error: ToolCallError
    output: ToolOutput
    progress: str
    result: ToolResult
    def __init__(self, call_id: _Optional[int] = ..., progress: _Optional[str] = ..., output: _Optional[_Union[ToolOutput, _Mapping]] = ..., result: _Optional[_Union[ToolResult, _Mapping]] = ..., error: _Optional[_Union[ToolCallError, _Mapping]] = ...) -> None: ...

class ToolCallFrame(_message.Message):
    __slots__ = ["call", "call_id", "cancel"]
    CALL_FIELD_NUMBER: _ClassVar[int]
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    CANCEL_FIELD_NUMBER: _ClassVar[int]
    call: CallToolRequest
    call_id: int
    cancel: ToolCallCancel
    def __init__(self, call_id: _Optional[int] = ..., call: _Optional[_Union[CallToolRequest, _Mapping]] = ..., cancel: _Optional[_Union[ToolCallCancel, _Mapping]] = ...) -> None: ...

class ToolEvent(_message.Message):
    __slots__ = ["output", "progress", "result"]
    OUTPUT_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    output: ToolOutput
    progress: str
    result: ToolResult
    def __init__(self, progress: _Optional[str] = ..., output: _Optional[_Union[ToolOutput, _Mapping]] = ..., result: _Optional[_Union[ToolResult, _Mapping]] = ...) -> None: ...

class ToolHostCancel(_message.Message):
    __slots__ = ["call_id", "reason"]
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    call_id: str
    reason: str
    def __init__(self, call_id: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class ToolHostCommand(_message.Message):
    __slots__ = ["call", "cancel", "offer", "ready"]
    CALL_FIELD_NUMBER: _ClassVar[int]
    CANCEL_FIELD_NUMBER: _ClassVar[int]
    OFFER_FIELD_NUMBER: _ClassVar[int]
    READY_FIELD_NUMBER: _ClassVar[int]
    call: HarnessToolCall
    cancel: ToolHostCancel
    offer: InterceptOffer
    ready: ToolHostReady
    def __init__(self, ready: _Optional[_Union[ToolHostReady, _Mapping]] = ..., call: _Optional[_Union[HarnessToolCall, _Mapping]] = ..., offer: _Optional[_Union[InterceptOffer, _Mapping]] = ..., cancel: _Optional[_Union[ToolHostCancel, _Mapping]] = ...) -> None: ...

class ToolHostHello(_message.Message):
    __slots__ = ["intercept", "run_id", "tools"]
    INTERCEPT_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    intercept: bool
    run_id: str
    tools: _containers.RepeatedCompositeFieldContainer[HarnessTool]
    def __init__(self, run_id: _Optional[str] = ..., tools: _Optional[_Iterable[_Union[HarnessTool, _Mapping]]] = ..., intercept: bool = ...) -> None: ...

class ToolHostMessage(_message.Message):
    __slots__ = ["decision", "hello", "result"]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    HELLO_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    decision: InterceptDecision
    hello: ToolHostHello
    result: HarnessToolResult
    def __init__(self, hello: _Optional[_Union[ToolHostHello, _Mapping]] = ..., result: _Optional[_Union[HarnessToolResult, _Mapping]] = ..., decision: _Optional[_Union[InterceptDecision, _Mapping]] = ...) -> None: ...

class ToolHostReady(_message.Message):
    __slots__ = ["host_id", "tools"]
    HOST_ID_FIELD_NUMBER: _ClassVar[int]
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    host_id: str
    tools: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, host_id: _Optional[str] = ..., tools: _Optional[_Iterable[str]] = ...) -> None: ...

class ToolInfo(_message.Message):
    __slots__ = ["description", "details_schema_json", "input_schema_json", "name", "parallel_safe", "resource", "tier"]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    DETAILS_SCHEMA_JSON_FIELD_NUMBER: _ClassVar[int]
    INPUT_SCHEMA_JSON_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PARALLEL_SAFE_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_FIELD_NUMBER: _ClassVar[int]
    TIER_FIELD_NUMBER: _ClassVar[int]
    description: str
    details_schema_json: str
    input_schema_json: str
    name: str
    parallel_safe: bool
    resource: str
    tier: str
    def __init__(self, name: _Optional[str] = ..., tier: _Optional[str] = ..., description: _Optional[str] = ..., input_schema_json: _Optional[str] = ..., resource: _Optional[str] = ..., parallel_safe: bool = ..., details_schema_json: _Optional[str] = ...) -> None: ...

class ToolOutput(_message.Message):
    __slots__ = ["data", "stream"]
    DATA_FIELD_NUMBER: _ClassVar[int]
    STREAM_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    stream: str
    def __init__(self, stream: _Optional[str] = ..., data: _Optional[bytes] = ...) -> None: ...

class ToolResult(_message.Message):
    __slots__ = ["details_json", "duration_ms", "error_code", "is_error", "parts", "pending"]
    DETAILS_JSON_FIELD_NUMBER: _ClassVar[int]
    DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    ERROR_CODE_FIELD_NUMBER: _ClassVar[int]
    IS_ERROR_FIELD_NUMBER: _ClassVar[int]
    PARTS_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    details_json: str
    duration_ms: int
    error_code: str
    is_error: bool
    parts: _containers.RepeatedCompositeFieldContainer[ContentPart]
    pending: PendingState
    def __init__(self, is_error: bool = ..., parts: _Optional[_Iterable[_Union[ContentPart, _Mapping]]] = ..., error_code: _Optional[str] = ..., duration_ms: _Optional[int] = ..., details_json: _Optional[str] = ..., pending: _Optional[_Union[PendingState, _Mapping]] = ...) -> None: ...

class WorkerAssignment(_message.Message):
    __slots__ = ["attempt", "brief", "conversation_id", "label", "messages", "tier", "worker_id", "workspace_path"]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    BRIEF_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    TIER_FIELD_NUMBER: _ClassVar[int]
    WORKER_ID_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_PATH_FIELD_NUMBER: _ClassVar[int]
    attempt: int
    brief: str
    conversation_id: str
    label: str
    messages: _containers.RepeatedScalarFieldContainer[str]
    tier: str
    worker_id: str
    workspace_path: str
    def __init__(self, conversation_id: _Optional[str] = ..., worker_id: _Optional[str] = ..., attempt: _Optional[int] = ..., label: _Optional[str] = ..., tier: _Optional[str] = ..., brief: _Optional[str] = ..., messages: _Optional[_Iterable[str]] = ..., workspace_path: _Optional[str] = ...) -> None: ...

class WorkerHostCommand(_message.Message):
    __slots__ = ["assign", "kill", "ready"]
    ASSIGN_FIELD_NUMBER: _ClassVar[int]
    KILL_FIELD_NUMBER: _ClassVar[int]
    READY_FIELD_NUMBER: _ClassVar[int]
    assign: WorkerAssignment
    kill: WorkerKill
    ready: WorkerHostReady
    def __init__(self, ready: _Optional[_Union[WorkerHostReady, _Mapping]] = ..., assign: _Optional[_Union[WorkerAssignment, _Mapping]] = ..., kill: _Optional[_Union[WorkerKill, _Mapping]] = ...) -> None: ...

class WorkerHostHello(_message.Message):
    __slots__ = ["conversation_ids", "name", "tiers"]
    CONVERSATION_IDS_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TIERS_FIELD_NUMBER: _ClassVar[int]
    conversation_ids: _containers.RepeatedScalarFieldContainer[str]
    name: str
    tiers: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., conversation_ids: _Optional[_Iterable[str]] = ..., tiers: _Optional[_Iterable[str]] = ...) -> None: ...

class WorkerHostMessage(_message.Message):
    __slots__ = ["hello", "progress", "result"]
    HELLO_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    hello: WorkerHostHello
    progress: WorkerProgress
    result: WorkerResult
    def __init__(self, hello: _Optional[_Union[WorkerHostHello, _Mapping]] = ..., progress: _Optional[_Union[WorkerProgress, _Mapping]] = ..., result: _Optional[_Union[WorkerResult, _Mapping]] = ...) -> None: ...

class WorkerHostReady(_message.Message):
    __slots__ = ["host_id"]
    HOST_ID_FIELD_NUMBER: _ClassVar[int]
    host_id: str
    def __init__(self, host_id: _Optional[str] = ...) -> None: ...

class WorkerKill(_message.Message):
    __slots__ = ["attempt", "conversation_id", "worker_id"]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    WORKER_ID_FIELD_NUMBER: _ClassVar[int]
    attempt: int
    conversation_id: str
    worker_id: str
    def __init__(self, conversation_id: _Optional[str] = ..., worker_id: _Optional[str] = ..., attempt: _Optional[int] = ...) -> None: ...

class WorkerProgress(_message.Message):
    __slots__ = ["attempt", "conversation_id", "text", "worker_id"]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    WORKER_ID_FIELD_NUMBER: _ClassVar[int]
    attempt: int
    conversation_id: str
    text: str
    worker_id: str
    def __init__(self, conversation_id: _Optional[str] = ..., worker_id: _Optional[str] = ..., attempt: _Optional[int] = ..., text: _Optional[str] = ...) -> None: ...

class WorkerResult(_message.Message):
    __slots__ = ["attempt", "conversation_id", "result", "state", "worker_id"]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    WORKER_ID_FIELD_NUMBER: _ClassVar[int]
    attempt: int
    conversation_id: str
    result: str
    state: str
    worker_id: str
    def __init__(self, conversation_id: _Optional[str] = ..., worker_id: _Optional[str] = ..., attempt: _Optional[int] = ..., state: _Optional[str] = ..., result: _Optional[str] = ...) -> None: ...

class WorkspaceUsage(_message.Message):
    __slots__ = ["bytes", "capped", "entries", "measured_at_ms", "note", "source"]
    BYTES_FIELD_NUMBER: _ClassVar[int]
    CAPPED_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    MEASURED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    NOTE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    bytes: int
    capped: bool
    entries: int
    measured_at_ms: int
    note: str
    source: str
    def __init__(self, source: _Optional[str] = ..., bytes: _Optional[int] = ..., entries: _Optional[int] = ..., capped: bool = ..., note: _Optional[str] = ..., measured_at_ms: _Optional[int] = ...) -> None: ...

class SyncedFileState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
