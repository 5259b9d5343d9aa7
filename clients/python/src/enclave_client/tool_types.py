"""Each tool's arguments and details as TypedDicts, and a typed accessor of each tool's details.

Generated from proto/tool-schemas.json (the tool registry's own schemas) by
scripts/gen-python-tool-types.py; do not edit. ``ToolResult.details`` is the dict these describe.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Literal, Optional, Protocol, Tuple, TypedDict, Union, cast

if TYPE_CHECKING:
    from .models import ToolResult

#: The tools these types describe (a control plane may offer others: custom tools, harness tools).
TOOL_NAMES: Tuple[str, ...] = (
    "apply_patch",
    "ask_user",
    "ast_edit",
    "ast_grep",
    "debug",
    "edit",
    "eval",
    "exec",
    "list",
    "lsp",
    "lsp_rename",
    "read",
    "resolve",
    "vibe_kill",
    "vibe_list",
    "vibe_send",
    "vibe_spawn",
    "vibe_wait",
    "write",
)


class ApplyPatchArgs(TypedDict):
    #: the unified diff: `--- a/path`, `+++ b/path`, `@@` hunks; /dev/null to add or delete a file
    patch: str


class ApplyPatchDetailsFilesItem(TypedDict):
    #: workspace-relative
    path: str
    #: added: the file is new; deleted: it is gone
    change: Literal["added", "modified", "deleted"]
    hunks: int


class ApplyPatchDetailsDiagnosticsFilesItem(TypedDict):
    #: workspace-relative
    path: str
    #: fresh: checked, its new diagnostics are listed; late: not checked in time (ask lsp diagnostics later); no_server: nothing checks it; failed: see detail
    state: Literal["fresh", "late", "no_server", "deleted", "failed"]
    #: the language servers that checked it
    servers: List[str]
    #: why it is late or failed; "" otherwise
    detail: str
    #: diagnostics new to the run in this file (fresh files), before the cap
    new_count: int
    #: its diagnostics before the change were not known in time, so some new ones may predate it
    earlier_unknown: bool


class ApplyPatchDetailsDiagnosticsNewItem(TypedDict):
    #: workspace-relative
    path: str
    #: 1-based
    line: int
    #: 1-based
    column: int
    #: information and hints are left out
    severity: Literal["error", "warning"]
    #: the checker that reported it (the server's "source"), or ""
    source: str
    #: its rule or error code, or ""
    code: str
    message: str


class ApplyPatchDetailsDiagnostics(TypedDict):
    """what the language servers found in the written files (runs wired with lsp)"""
    #: every file the write changed that was synced with the language servers
    files: List[ApplyPatchDetailsDiagnosticsFilesItem]
    #: the errors and warnings the write newly introduced, at most 100 per file
    new: List[ApplyPatchDetailsDiagnosticsNewItem]
    #: a file had more new diagnostics than listed (see its new_count)
    truncated: bool


class _ApplyPatchDetailsRequired(TypedDict):
    #: every file the patch changed; a rename is its old path deleted and its new path added
    files: List[ApplyPatchDetailsFilesItem]


class ApplyPatchDetails(_ApplyPatchDetailsRequired, total=False):
    #: what the language servers found in the written files (runs wired with lsp)
    diagnostics: ApplyPatchDetailsDiagnostics


class _AskUserArgsOptionsItemRequired(TypedDict):
    #: what the operator picks; returned as the answer
    label: str


class AskUserArgsOptionsItem(_AskUserArgsOptionsItemRequired, total=False):
    #: what choosing it means
    description: str


class _AskUserArgsRequired(TypedDict):
    #: the question, as the operator will read it
    question: str


class AskUserArgs(_AskUserArgsRequired, total=False):
    #: why you ask, and what depends on the answer
    context: str
    #: choices to offer; omit for a free-text question
    options: List[AskUserArgsOptionsItem]
    #: whether the operator may write an answer (default: true without options, false with)
    allow_free_text: bool
    #: whether several options may be chosen (default false)
    multi_select: bool


class AskUserDetails(TypedDict):
    #: the card's number in the conversation
    card: int
    #: skipped: the operator declined to answer; timed_out: nobody answered in time (an error result)
    outcome: Literal["answered", "skipped", "timed_out"]
    #: the labels of the options chosen, in the operator's order; empty unless answered
    selected: List[str]
    #: what the operator wrote; null when nothing
    free_text: Optional[str]


class _AstEditArgsRequired(TypedDict):
    #: code with $METAVARIABLES
    pattern: str
    #: replacement with the pattern's $METAVARIABLES
    rewrite: str


class AstEditArgs(_AstEditArgsRequired, total=False):
    #: file or folder relative to the workspace root (default: the whole workspace)
    path: str
    #: grammar id; required for a folder, inferred for a file
    language: str


class AstEditDetailsFilesItemParseError(TypedDict):
    #: 1-based
    line: int
    #: 1-based
    column: int
    message: str


class AstEditDetailsFilesItem(TypedDict):
    #: workspace-relative
    path: str
    replacements: int
    #: where the rewritten file no longer parses (it parsed before); null when it does
    parse_error: Optional[AstEditDetailsFilesItemParseError]


class AstEditDetails(TypedDict):
    #: the staged change's id, for resolve's edit_id; null when nothing matched and nothing was staged
    edit_id: Optional[str]
    #: the grammar searched
    language: str
    files_searched: int
    #: every file the staged change would write
    files: List[AstEditDetailsFilesItem]
    #: replacements in all files
    replacements: int


class _AstGrepArgsRequired(TypedDict):
    #: code with $METAVARIABLES, e.g. `foo($$$ARGS)`
    pattern: str


class AstGrepArgs(_AstGrepArgsRequired, total=False):
    #: file or folder relative to the workspace root (default: the whole workspace)
    path: str
    #: grammar id; required for a folder, inferred for a file
    language: str
    #: default 50
    max_results: int


class AstGrepDetailsMatchesItem(TypedDict):
    #: workspace-relative
    path: str
    #: 1-based
    line: int
    #: 1-based, in characters
    column: int
    #: 1-based, inclusive
    end_line: int
    #: 1-based, in characters, exclusive
    end_column: int
    #: the matched source
    text: str
    #: each metavariable's name (without $) and the text it matched
    bindings: Dict[str, str]


class AstGrepDetailsSkipped(TypedDict):
    """what the search left out"""
    #: vendored folders
    vendored: int
    #: .gitignored files
    ignored: int
    binary: int
    #: files over the size limit
    too_large: int
    #: files with more than one name
    hard_linked: int


class AstGrepDetails(TypedDict):
    #: the grammar searched
    language: str
    #: the context the pattern parsed in: "statement", "expression", …
    read_as: str
    #: what was supplied so the pattern parses in that context; empty when read as written
    fillers: List[str]
    #: at most max_results
    matches: List[AstGrepDetailsMatchesItem]
    #: matches listed
    total: int
    #: files with a match
    files: int
    #: max_results cut the list: more matches exist
    truncated: bool
    files_searched: int
    #: what the search left out
    skipped: AstGrepDetailsSkipped


class DebugArgsAdapters(TypedDict):
    op: Literal["adapters"]


class DebugArgsStatus(TypedDict):
    op: Literal["status"]


class DebugArgsBreakpoints(TypedDict):
    op: Literal["breakpoints"]
    #: source file relative to the workspace root
    file: str
    #: 1-based lines; an empty list clears the file
    lines: List[int]


class _DebugArgsLaunchRequired(TypedDict):
    op: Literal["launch"]
    #: workspace-relative program: a .py script, a Go package folder or .go file, a compiled executable
    program: str


class DebugArgsLaunch(_DebugArgsLaunchRequired, total=False):
    #: command-line arguments of the program
    args: List[str]
    #: an adapter id from the adapters op; picked from the program when omitted
    adapter: str
    #: text for the program's standard input, then end-of-file; without it stdin is not connected (a read gets end-of-file at once)
    stdin: str
    #: which exceptions stop the program: uncaught (default), raised (every raise, even one caught later), none
    exceptions: Literal["uncaught", "raised", "none"]


class _DebugArgsAttachRequired(TypedDict):
    op: Literal["attach"]


class DebugArgsAttach(_DebugArgsAttachRequired, total=False):
    #: the port an adapter's DAP server listens on, on 127.0.0.1 where the conversation's code runs (the adapters op marks which attach by port)
    port: int
    #: the pid of the running program, as exec reports it, for an adapter that attaches by pid (lldb)
    pid: int
    #: an adapter id from the adapters op; default debugpy with a port, lldb with a pid
    adapter: str


class _DebugArgsContinueRequired(TypedDict):
    op: Literal["continue"]


class DebugArgsContinue(_DebugArgsContinueRequired, total=False):
    #: thread to resume; default the one that stopped
    thread_id: int
    #: how long to wait for the next stop before answering that it runs (default 60)
    wait_seconds: int


class _DebugArgsPauseRequired(TypedDict):
    op: Literal["pause"]


class DebugArgsPause(_DebugArgsPauseRequired, total=False):
    #: thread to pause; default the first
    thread_id: int


class _DebugArgsStepOverRequired(TypedDict):
    op: Literal["step_over"]


class DebugArgsStepOver(_DebugArgsStepOverRequired, total=False):
    #: thread to resume; default the one that stopped
    thread_id: int
    #: how long to wait for the next stop before answering that it runs (default 60)
    wait_seconds: int


class _DebugArgsStepInRequired(TypedDict):
    op: Literal["step_in"]


class DebugArgsStepIn(_DebugArgsStepInRequired, total=False):
    #: thread to resume; default the one that stopped
    thread_id: int
    #: how long to wait for the next stop before answering that it runs (default 60)
    wait_seconds: int


class _DebugArgsStepOutRequired(TypedDict):
    op: Literal["step_out"]


class DebugArgsStepOut(_DebugArgsStepOutRequired, total=False):
    #: thread to resume; default the one that stopped
    thread_id: int
    #: how long to wait for the next stop before answering that it runs (default 60)
    wait_seconds: int


class DebugArgsThreads(TypedDict):
    op: Literal["threads"]


class _DebugArgsStackRequired(TypedDict):
    op: Literal["stack"]


class DebugArgsStack(_DebugArgsStackRequired, total=False):
    #: default the thread that stopped
    thread_id: int


class DebugArgsScopes(TypedDict):
    op: Literal["scopes"]
    #: a frame_id from stack (valid until the program resumes)
    frame_id: int


class DebugArgsVariables(TypedDict):
    op: Literal["variables"]
    #: a reference from scopes, variables or evaluate (valid until the program resumes)
    reference: int


class _DebugArgsEvaluateRequired(TypedDict):
    op: Literal["evaluate"]
    expression: str


class DebugArgsEvaluate(_DebugArgsEvaluateRequired, total=False):
    #: a frame_id from stack; default the top frame where it stopped
    frame_id: int


class DebugArgsOutput(TypedDict):
    op: Literal["output"]


class DebugArgsTerminate(TypedDict):
    op: Literal["terminate"]


class DebugDetails1SessionStopped(TypedDict):
    #: breakpoint, step, exception, pause… as the adapter says
    reason: str
    description: str
    text: str
    thread_id: int
    #: workspace-relative source file; null when it is outside the workspace or the frame has no source
    path: Optional[str]
    #: 1-based line
    line: int
    function: str


class DebugDetails1SessionExceptionFramesItem(TypedDict):
    function: str
    #: workspace-relative source file; null when it is outside the workspace or the frame has no source
    path: Optional[str]
    #: 1-based line
    line: int


class DebugDetails1SessionException(TypedDict):
    #: its type (ValueError, panic, signal SIGSEGV…)
    type: str
    message: str
    #: "always" (a raised-exception stop), "unhandled"… as the adapter says; may be empty
    break_mode: str
    #: the program's own frames, innermost first, at most 30
    frames: List[DebugDetails1SessionExceptionFramesItem]


class DebugDetails1SessionBreakpointsItemBreakpointsItem(TypedDict):
    #: 1-based line asked for
    requested_line: int
    #: 1-based line where the adapter put it; null when not known yet
    line: Optional[int]
    verified: bool
    #: why it is not verified, as the adapter says, or empty
    message: str


class DebugDetails1SessionBreakpointsItem(TypedDict):
    #: workspace-relative source file
    file: str
    #: a running session received them; false while they wait for the next launch or attach
    applied: bool
    breakpoints: List[DebugDetails1SessionBreakpointsItemBreakpointsItem]


class DebugDetails1Session(TypedDict):
    #: null when no debug session has run in this conversation
    session_id: Optional[str]
    adapter: str
    #: workspace-relative program, or "127.0.0.1:PORT" for an attach by port
    program: str
    #: a session exists and has not ended
    active: bool
    #: "starting", "running", "stopped", "exited" or "terminated"; empty when there never was a session
    state: str
    #: where it is stopped; null unless state is stopped
    stopped: Optional[DebugDetails1SessionStopped]
    #: the exception it is stopped on, if any
    exception: Optional[DebugDetails1SessionException]
    #: the program's exit status, once known
    exit_code: Optional[int]
    #: why the session ended; null while it runs
    ended_kind: Optional[Literal["program_ended", "terminated", "ttl_expired", "adapter_closed", "start_failed", "agent_stopped"]]
    #: the same in words
    ended_reason: Optional[str]
    #: when the session's hard TTL ends it (Unix ms); null once ended
    expires_at_ms: Optional[int]
    breakpoints: List[DebugDetails1SessionBreakpointsItem]
    notes: List[str]


class DebugDetails1(TypedDict):
    op: Literal["status", "launch", "attach", "pause", "continue", "step_over", "step_in", "step_out", "terminate"]
    session: DebugDetails1Session


class DebugDetailsAdaptersAdaptersItem(TypedDict):
    #: what launch and attach take as `adapter`
    id: str
    state: Literal["usable", "missing_marker", "missing_binary", "unknown"]
    #: workspace-relative root markers found
    markers: List[str]
    #: it can attach by port to a program already listening
    attach: bool
    #: program file extensions that pick it when launch names no adapter
    extensions: List[str]


class DebugDetailsAdapters(TypedDict):
    op: Literal["adapters"]
    adapters: List[DebugDetailsAdaptersAdaptersItem]


class DebugDetailsBreakpointsBreakpointsItem(TypedDict):
    #: 1-based line asked for
    requested_line: int
    #: 1-based line where the adapter put it; null when not known yet
    line: Optional[int]
    verified: bool
    #: why it is not verified, as the adapter says, or empty
    message: str


class DebugDetailsBreakpoints(TypedDict):
    #: workspace-relative source file
    file: str
    #: a running session received them; false while they wait for the next launch or attach
    applied: bool
    breakpoints: List[DebugDetailsBreakpointsBreakpointsItem]
    op: Literal["breakpoints"]


class DebugDetailsThreadsThreadsItem(TypedDict):
    id: int
    name: str


class DebugDetailsThreads(TypedDict):
    op: Literal["threads"]
    threads: List[DebugDetailsThreadsThreadsItem]


class DebugDetailsStackFramesItem(TypedDict):
    #: the frame_id scopes and evaluate take (valid until the program resumes)
    id: int
    #: the function
    name: str
    #: workspace-relative source file; null when outside the workspace or without source
    path: Optional[str]
    #: 1-based line
    line: int


class DebugDetailsStackExceptionFramesItem(TypedDict):
    function: str
    #: workspace-relative source file; null when it is outside the workspace or the frame has no source
    path: Optional[str]
    #: 1-based line
    line: int


class DebugDetailsStackException(TypedDict):
    #: its type (ValueError, panic, signal SIGSEGV…)
    type: str
    message: str
    #: "always" (a raised-exception stop), "unhandled"… as the adapter says; may be empty
    break_mode: str
    #: the program's own frames, innermost first, at most 30
    frames: List[DebugDetailsStackExceptionFramesItem]


class DebugDetailsStack(TypedDict):
    op: Literal["stack"]
    #: innermost first, at most 30
    frames: List[DebugDetailsStackFramesItem]
    #: frames the thread has, as the adapter counts them (at least the frames listed)
    total: int
    #: the thread has more frames than listed (capped at 30)
    truncated: bool
    #: the exception it is stopped on, if any
    exception: Optional[DebugDetailsStackException]


class DebugDetailsScopesScopesItem(TypedDict):
    #: Locals, Globals, Registers…
    name: str
    #: what variables takes; 0 when it has no children
    reference: int
    expensive: bool


class DebugDetailsScopes(TypedDict):
    op: Literal["scopes"]
    scopes: List[DebugDetailsScopesScopesItem]


class DebugDetailsVariablesVariablesItem(TypedDict):
    name: str
    #: its type as the adapter says, or empty
    type: str
    #: cut at 400 characters
    value: str
    value_cut: bool
    #: its children's reference for variables; 0 when it has none
    reference: int


class DebugDetailsVariables(TypedDict):
    op: Literal["variables"]
    #: at most 50, in the adapter's order
    variables: List[DebugDetailsVariablesVariablesItem]
    #: children the reference has
    total: int
    #: more children than listed (capped at 50)
    truncated: bool


class DebugDetailsEvaluate(TypedDict):
    op: Literal["evaluate"]
    #: cut at 400 characters
    value: str
    value_cut: bool
    #: its type as the adapter says, or empty
    type: str
    #: what variables takes for its children; 0 when it has none (valid until the program resumes)
    reference: int


class DebugDetailsOutput(TypedDict):
    op: Literal["output"]
    session_id: str
    #: the program's stdout and stderr as they came, the newest kept
    text: str
    #: earlier bytes the bounded buffer dropped
    dropped_bytes: int
    #: bytes the program wrote in all
    total_bytes: int


class _EditArgsRequired(TypedDict):
    #: file path relative to the workspace root
    path: str
    #: the exact text to replace
    old_text: str
    #: the replacement
    new_text: str


class EditArgs(_EditArgsRequired, total=False):
    #: replace every occurrence instead of requiring exactly one
    replace_all: bool


class EditDetailsFilesItem(TypedDict):
    #: workspace-relative
    path: str
    #: added: the file is new; deleted: it is gone
    change: Literal["added", "modified", "deleted"]
    #: occurrences of old_text replaced in it
    replacements: int


class EditDetailsDiagnosticsFilesItem(TypedDict):
    #: workspace-relative
    path: str
    #: fresh: checked, its new diagnostics are listed; late: not checked in time (ask lsp diagnostics later); no_server: nothing checks it; failed: see detail
    state: Literal["fresh", "late", "no_server", "deleted", "failed"]
    #: the language servers that checked it
    servers: List[str]
    #: why it is late or failed; "" otherwise
    detail: str
    #: diagnostics new to the run in this file (fresh files), before the cap
    new_count: int
    #: its diagnostics before the change were not known in time, so some new ones may predate it
    earlier_unknown: bool


class EditDetailsDiagnosticsNewItem(TypedDict):
    #: workspace-relative
    path: str
    #: 1-based
    line: int
    #: 1-based
    column: int
    #: information and hints are left out
    severity: Literal["error", "warning"]
    #: the checker that reported it (the server's "source"), or ""
    source: str
    #: its rule or error code, or ""
    code: str
    message: str


class EditDetailsDiagnostics(TypedDict):
    """what the language servers found in the written files (runs wired with lsp)"""
    #: every file the write changed that was synced with the language servers
    files: List[EditDetailsDiagnosticsFilesItem]
    #: the errors and warnings the write newly introduced, at most 100 per file
    new: List[EditDetailsDiagnosticsNewItem]
    #: a file had more new diagnostics than listed (see its new_count)
    truncated: bool


class _EditDetailsRequired(TypedDict):
    #: the one file edited
    files: List[EditDetailsFilesItem]
    #: occurrences replaced in all
    replacements: int


class EditDetails(_EditDetailsRequired, total=False):
    #: what the language servers found in the written files (runs wired with lsp)
    diagnostics: EditDetailsDiagnostics


class _EvalArgsRequired(TypedDict):
    #: the cell: Python (IPython idioms such as %pip, !cmd, %%bash work) or JavaScript (top-level await works)
    code: str
    #: 5 to 10 words saying what the cell does, shown in the transcript
    description: str


class EvalArgs(_EvalArgsRequired, total=False):
    #: python (default) or javascript
    language: Literal["python", "javascript"]
    #: discard the kernel and everything in it, and start clean before running the code
    reset: bool
    #: idle budget: seconds the cell may run, not counting time waiting for its tool() calls (default 300)
    timeout_seconds: int
    #: limit the tools the cell may call with tool() to a narrower surface than the run's (for example `plan`: read tools only); later cells in the same kernel stay limited to it until the kernel is reset
    bridge_surface: Literal["default", "plan", "readonly_subagent"]


class EvalDetailsOutputsItem(TypedDict):
    #: the object in every representation the kernel made, by MIME type: text types as text, images (image/png…) as base64
    data: Dict[str, str]
    #: the cell's echoed last expression; false for display() and figures
    echo: bool


class EvalDetailsError(TypedDict):
    #: the exception's type (ZeroDivisionError, TypeError, KeyboardInterrupt…)
    name: str
    #: its message
    value: str
    #: the traceback's lines, pointing at the cell's own lines
    traceback: List[str]


class EvalDetailsKernel(TypedDict):
    #: new for every kernel process: a restart makes a new id
    id: str
    language: Literal["python", "javascript"]
    #: the interpreter and its version ("cpython 3.12.3", "node v22.12.0")
    interpreter: str
    #: the kernel was started for this cell (first use, reset, or after the previous one was lost)
    fresh: bool
    #: why the previous kernel is gone, when it died between cells and its state was lost; null otherwise
    previous_fate: Optional[str]


class EvalDetails(TypedDict):
    #: ok; error: the cell raised; interrupted: stopped by its time budget or the caller (the kernel and its state are kept); killed: it did not stop after the interrupt and was killed; died: the kernel exited during the cell
    status: Literal["ok", "error", "interrupted", "killed", "died"]
    #: what the cell printed to standard output (UTF-8), clipped to head and tail at 65536 bytes
    stdout: str
    #: what it printed to standard error, clipped the same way
    stderr: str
    stdout_clipped: bool
    stderr_clipped: bool
    #: what the cell displayed, in order; bundles carrying an image past the 20th are left out, as in the text, and so are bundles past 4194304 bytes in all
    outputs: List[EvalDetailsOutputsItem]
    #: bundles the cell displayed
    outputs_total: int
    #: some bundles were left out (outputs_total says how many there were)
    outputs_truncated: bool
    #: what the cell raised (also on interrupt: the interrupt's own exception); null when it raised nothing
    error: Optional[EvalDetailsError]
    #: the cell's time budget ran out (status interrupted or killed); false when the caller interrupted it
    timed_out: bool
    duration_ms: int
    #: running time charged to the budget (time in tool() calls excluded)
    budget_used_ms: int
    #: output beyond the kernel's per-cell cap was dropped before it reached the control plane
    output_truncated: bool
    #: tool() calls the cell made
    bridge_calls: int
    #: the kernel the cell ran in; null when the agent never named one
    kernel: Optional[EvalDetailsKernel]
    #: this cell's end lost the kernel's state (killed, or the kernel died)
    state_lost: bool


class _ExecArgsRequired(TypedDict):
    #: the command line, run by /bin/sh -c
    command: str


class ExecArgs(_ExecArgsRequired, total=False):
    #: working folder relative to the workspace root
    cwd: str
    timeout_seconds: int
    #: text given to the command on standard input
    stdin: str
    #: extra environment variables
    env: Dict[str, str]


class ExecDetails(TypedDict):
    #: the command's exit status; null when a signal or the timeout ended it
    exit_code: Optional[int]
    #: the signal that killed it (SIGKILL…), or null
    signal: Optional[str]
    #: the command ran past timeout_seconds and was killed
    timed_out: bool
    duration_ms: int
    #: standard output as UTF-8, clipped to head and tail when long
    stdout: str
    #: standard error as UTF-8, clipped to head and tail when long
    stderr: str
    stdout_clipped: bool
    stderr_clipped: bool
    #: output beyond the agent's cap was dropped before it reached the control plane
    output_truncated: bool


class ListArgs(TypedDict, total=False):
    #: folder relative to the workspace root
    path: str
    recursive: bool
    max_entries: int


class ListDetailsEntriesItem(TypedDict):
    #: workspace-relative
    path: str
    type: Literal["file", "directory", "symlink", "other"]
    #: bytes, for a file; null otherwise
    size: Optional[int]


class ListDetails(TypedDict):
    #: the folder listed, workspace-relative ("" for the root)
    path: str
    #: at most max_entries
    entries: List[ListDetailsEntriesItem]
    #: the folder has more entries than listed (max_entries cut the list)
    truncated: bool


class LspArgsDiagnostics(TypedDict):
    action: Literal["diagnostics"]
    #: workspace-relative file, or "*" to run the project's own checker
    file: str


class LspArgsDefinition(TypedDict):
    action: Literal["definition"]
    #: workspace-relative file the symbol is in
    file: str
    #: 1-based line of the symbol
    line: int
    #: the symbol as written on that line; `name#N` for its Nth occurrence
    symbol: str


class LspArgsTypeDefinition(TypedDict):
    action: Literal["type_definition"]
    #: workspace-relative file the symbol is in
    file: str
    #: 1-based line of the symbol
    line: int
    #: the symbol as written on that line; `name#N` for its Nth occurrence
    symbol: str


class LspArgsImplementation(TypedDict):
    action: Literal["implementation"]
    #: workspace-relative file the symbol is in
    file: str
    #: 1-based line of the symbol
    line: int
    #: the symbol as written on that line; `name#N` for its Nth occurrence
    symbol: str


class LspArgsReferences(TypedDict):
    action: Literal["references"]
    #: workspace-relative file the symbol is in
    file: str
    #: 1-based line of the symbol
    line: int
    #: the symbol as written on that line; `name#N` for its Nth occurrence
    symbol: str


class LspArgsHover(TypedDict):
    action: Literal["hover"]
    #: workspace-relative file the symbol is in
    file: str
    #: 1-based line of the symbol
    line: int
    #: the symbol as written on that line; `name#N` for its Nth occurrence
    symbol: str


class _LspArgsSymbolsRequired(TypedDict):
    action: Literal["symbols"]


class LspArgsSymbols(_LspArgsSymbolsRequired, total=False):
    #: workspace search text; with file, searched by that file's server
    query: str
    #: workspace-relative file: its outline (or, with query, the server to search)
    file: str


class LspArgsCodeActions(TypedDict):
    action: Literal["code_actions"]
    #: workspace-relative file the symbol is in
    file: str
    #: 1-based line of the symbol
    line: int
    #: the symbol as written on that line; `name#N` for its Nth occurrence
    symbol: str


class LspArgsStatus(TypedDict):
    action: Literal["status"]


class _LspArgsReloadRequired(TypedDict):
    action: Literal["reload"]


class LspArgsReload(_LspArgsReloadRequired, total=False):
    #: a file whose root to reload; without it every running server
    file: str


class LspDetailsDiagnosticsDiagnosticsItem(TypedDict):
    #: workspace-relative file; null for a file outside the workspace (a library's), whose path is not given
    path: Optional[str]
    #: 1-based line
    line: int
    #: 1-based column, in characters
    column: int
    #: "error" or "warning" (information and hints are left out, as in the text)
    severity: str
    #: the server's code for it (reportAssignmentType, 2451…), or empty
    code: str
    message: str
    #: the tool that reported it, as the server says (Pyright, ts…), or empty
    source: str
    #: the text of `line`, or empty
    line_text: str


class LspDetailsDiagnosticsChecker(TypedDict):
    #: the command line run ("tsc --noEmit -p ."…); null when no checker fits the project
    command: Optional[str]
    #: the workspace-relative folder it ran in
    cwd: str
    #: why no checker ran, when command is null
    detail: str
    #: its exit status; null when it did not run or timed out
    exit_code: Optional[int]
    timed_out: bool
    #: its output, clipped to head and tail at 65536 characters
    output: str
    output_clipped: bool
    #: output beyond the agent's cap was dropped before it reached the control plane
    output_truncated: bool


class LspDetailsDiagnostics(TypedDict):
    action: Literal["diagnostics"]
    #: the file asked about, or "*"
    file: str
    #: the language server that answered; null for "*"
    server: Optional[str]
    #: errors and warnings, at most 100; empty for "*"
    diagnostics: List[LspDetailsDiagnosticsDiagnosticsItem]
    #: how many there were before the cap
    total: int
    #: the list was cut at the cap (total says how many there were)
    truncated: bool
    #: the server did not report fresh diagnostics in time: these may be stale
    stale: bool
    indexing: bool
    #: for "*": the project's checker and what it printed; null otherwise
    checker: Optional[LspDetailsDiagnosticsChecker]


class LspDetails2Target(TypedDict):
    #: workspace-relative file; null for a file outside the workspace (a library's), whose path is not given
    path: Optional[str]
    #: 1-based line
    line: int
    #: 1-based column, in characters
    column: int
    #: 1-based line where the range ends
    end_line: int
    #: 1-based column where the range ends (exclusive), in characters
    end_column: int
    #: the text of `line` (cut at 400 characters); empty when the file is outside the workspace or unreadable
    line_text: str


class LspDetails2LocationsItem(TypedDict):
    #: workspace-relative file; null for a file outside the workspace (a library's), whose path is not given
    path: Optional[str]
    #: 1-based line
    line: int
    #: 1-based column, in characters
    column: int
    #: 1-based line where the range ends
    end_line: int
    #: 1-based column where the range ends (exclusive), in characters
    end_column: int
    #: the text of `line` (cut at 400 characters); empty when the file is outside the workspace or unreadable
    line_text: str


class LspDetails2(TypedDict):
    action: Literal["definition", "type_definition", "implementation", "references"]
    #: the language server that answered
    server: str
    #: where the line and symbol resolved to
    target: Optional[LspDetails2Target]
    #: the server was still indexing: the answer may be incomplete
    indexing: bool
    #: in the server's order, at most 50 references or 50 of the others
    locations: List[LspDetails2LocationsItem]
    #: how many there were before the cap
    total: int
    #: the list was cut at the cap (total says how many there were)
    truncated: bool


class LspDetailsHoverTarget(TypedDict):
    #: workspace-relative file; null for a file outside the workspace (a library's), whose path is not given
    path: Optional[str]
    #: 1-based line
    line: int
    #: 1-based column, in characters
    column: int
    #: 1-based line where the range ends
    end_line: int
    #: 1-based column where the range ends (exclusive), in characters
    end_column: int
    #: the text of `line` (cut at 400 characters); empty when the file is outside the workspace or unreadable
    line_text: str


class LspDetailsHover(TypedDict):
    action: Literal["hover"]
    #: the language server that answered
    server: str
    #: where the line and symbol resolved to
    target: Optional[LspDetailsHoverTarget]
    #: the server was still indexing: the answer may be incomplete
    indexing: bool
    #: the server's hover text (markdown as the server wrote it), cut at 4000 characters; null when it has none
    contents: Optional[str]
    #: contents were cut
    truncated: bool


class LspDetailsSymbolsSymbolsItemLocation(TypedDict):
    #: workspace-relative file; null for a file outside the workspace (a library's), whose path is not given
    path: Optional[str]
    #: 1-based line
    line: int
    #: 1-based column, in characters
    column: int
    #: 1-based line where the range ends
    end_line: int
    #: 1-based column where the range ends (exclusive), in characters
    end_column: int
    #: the text of `line` (cut at 400 characters); empty when the file is outside the workspace or unreadable
    line_text: str


class LspDetailsSymbolsSymbolsItem(TypedDict):
    name: str
    #: function, class, variable…
    kind: str
    #: what it is declared in (workspace search), or empty
    container: str
    #: its signature or type as the server gives it (outline), or empty
    detail: str
    #: nesting in the outline, 0 at top level
    depth: int
    location: Optional[LspDetailsSymbolsSymbolsItemLocation]


class LspDetailsSymbols(TypedDict):
    action: Literal["symbols"]
    server: str
    #: the workspace search text; null for a file's outline
    query: Optional[str]
    #: the file outlined (or whose server searched)
    file: Optional[str]
    #: at most 100 for a search, 200 for an outline
    symbols: List[LspDetailsSymbolsSymbolsItem]
    #: how many there were before the cap
    total: int
    #: the list was cut at the cap (total says how many there were)
    truncated: bool
    indexing: bool


class LspDetailsCodeActionsTarget(TypedDict):
    #: workspace-relative file; null for a file outside the workspace (a library's), whose path is not given
    path: Optional[str]
    #: 1-based line
    line: int
    #: 1-based column, in characters
    column: int
    #: 1-based line where the range ends
    end_line: int
    #: 1-based column where the range ends (exclusive), in characters
    end_column: int
    #: the text of `line` (cut at 400 characters); empty when the file is outside the workspace or unreadable
    line_text: str


class LspDetailsCodeActionsCodeActionsItemEditsItem(TypedDict):
    #: workspace-relative file; null outside the workspace
    path: Optional[str]
    edits: int


class LspDetailsCodeActionsCodeActionsItem(TypedDict):
    title: str
    #: quickfix, refactor.extract…, or empty
    kind: str
    preferred: bool
    edits: List[LspDetailsCodeActionsCodeActionsItemEditsItem]
    #: the command it runs instead of (or after) its edits, or empty
    command: str
    #: its first few edits, as `path:line:col → "new text"` (1-based)
    preview: List[str]


class LspDetailsCodeActions(TypedDict):
    action: Literal["code_actions"]
    #: the language server that answered
    server: str
    #: where the line and symbol resolved to
    target: Optional[LspDetailsCodeActionsTarget]
    #: the server was still indexing: the answer may be incomplete
    indexing: bool
    #: at most 30; listed, not applied
    code_actions: List[LspDetailsCodeActionsCodeActionsItem]
    #: how many there were before the cap
    total: int
    #: the list was cut at the cap (total says how many there were)
    truncated: bool


class LspDetailsStatusServersItem(TypedDict):
    id: str
    languages: List[str]
    #: broken: it kept crashing and is not restarted until a reload; unknown: a state this control plane does not know
    state: Literal["running", "available", "missing_marker", "missing_binary", "broken", "unknown"]
    #: workspace-relative roots: the running ones when running, else those with a root marker
    roots: List[str]
    root_markers: List[str]


class LspDetailsStatus(TypedDict):
    action: Literal["status"]
    servers: List[LspDetailsStatusServersItem]


class LspDetailsReload(TypedDict):
    action: Literal["reload"]
    #: "server@root" of each server stopped (each starts again on its next call)
    stopped: List[str]
    #: servers forgiven for earlier crashes
    unbroken: List[str]


class LspRenameArgs(TypedDict):
    #: workspace-relative file
    file: str
    #: 1-based line of the symbol
    line: int
    #: the symbol as written on that line; `name#N` for its Nth occurrence
    symbol: str
    #: the new name: an identifier of the file's language
    new_name: str


class LspRenameDetailsTarget(TypedDict):
    #: workspace-relative file; null for a file outside the workspace (a library's), whose path is not given
    path: Optional[str]
    #: 1-based line
    line: int
    #: 1-based column, in characters
    column: int
    #: 1-based line where the range ends
    end_line: int
    #: 1-based column where the range ends (exclusive), in characters
    end_column: int
    #: the text of `line` (cut at 400 characters); empty when the file is outside the workspace or unreadable
    line_text: str


class LspRenameDetailsFilesItem(TypedDict):
    #: workspace-relative file
    path: Optional[str]
    edits: int


class LspRenameDetailsDiagnosticsFilesItem(TypedDict):
    #: workspace-relative
    path: str
    #: fresh: checked, its new diagnostics are listed; late: not checked in time (ask lsp diagnostics later); no_server: nothing checks it; failed: see detail
    state: Literal["fresh", "late", "no_server", "deleted", "failed"]
    #: the language servers that checked it
    servers: List[str]
    #: why it is late or failed; "" otherwise
    detail: str
    #: diagnostics new to the run in this file (fresh files), before the cap
    new_count: int
    #: its diagnostics before the change were not known in time, so some new ones may predate it
    earlier_unknown: bool


class LspRenameDetailsDiagnosticsNewItem(TypedDict):
    #: workspace-relative
    path: str
    #: 1-based
    line: int
    #: 1-based
    column: int
    #: information and hints are left out
    severity: Literal["error", "warning"]
    #: the checker that reported it (the server's "source"), or ""
    source: str
    #: its rule or error code, or ""
    code: str
    message: str


class LspRenameDetailsDiagnostics(TypedDict):
    """what the language servers found in the renamed files: the diagnostics the rename introduced, as a write's"""
    #: every file the write changed that was synced with the language servers
    files: List[LspRenameDetailsDiagnosticsFilesItem]
    #: the errors and warnings the write newly introduced, at most 100 per file
    new: List[LspRenameDetailsDiagnosticsNewItem]
    #: a file had more new diagnostics than listed (see its new_count)
    truncated: bool


class LspRenameDetails(TypedDict):
    #: the language server that renamed
    server: str
    #: where the line and symbol resolved to
    target: Optional[LspRenameDetailsTarget]
    #: the symbol as asked (`name#N` as given)
    old_name: str
    new_name: str
    #: every file changed, in the server's order
    files: List[LspRenameDetailsFilesItem]
    files_changed: int
    #: edits across all files
    edits: int
    #: the server was still indexing: files it had not indexed may still use the old name
    indexing: bool
    #: what the language servers found in the renamed files: the diagnostics the rename introduced, as a write's
    diagnostics: LspRenameDetailsDiagnostics


class _ReadArgsRequired(TypedDict):
    #: file path relative to the workspace root
    path: str


class ReadArgs(_ReadArgsRequired, total=False):
    #: first line to return, 1-based
    offset: int
    #: how many lines to return
    limit: int


class ReadDetails(TypedDict):
    #: the file, workspace-relative
    path: str
    #: the lines returned, as UTF-8 (without the truncation note the text adds)
    content: str
    #: the file's size on disk
    size_bytes: int
    #: the file is longer than the bytes read: only its head was read (see bytes_read)
    truncated: bool
    bytes_read: int
    #: the file's line count; null when truncated (not all of it was read)
    total_lines: Optional[int]
    #: 1-based first line returned
    start_line: int
    #: 1-based last line returned, inclusive; start_line - 1 when no line was returned
    end_line: int


class _ResolveArgsRequired(TypedDict):
    action: Literal["apply", "accept", "discard"]


class ResolveArgs(_ResolveArgsRequired, total=False):
    #: the id a staging tool gave, e.g. "edit_1" (default: the most recent)
    edit_id: str
    #: why (informational; passed to the action as given, "" when absent)
    reason: str


class ResolveDetailsDiagnosticsFilesItem(TypedDict):
    #: workspace-relative
    path: str
    #: fresh: checked, its new diagnostics are listed; late: not checked in time (ask lsp diagnostics later); no_server: nothing checks it; failed: see detail
    state: Literal["fresh", "late", "no_server", "deleted", "failed"]
    #: the language servers that checked it
    servers: List[str]
    #: why it is late or failed; "" otherwise
    detail: str
    #: diagnostics new to the run in this file (fresh files), before the cap
    new_count: int
    #: its diagnostics before the change were not known in time, so some new ones may predate it
    earlier_unknown: bool


class ResolveDetailsDiagnosticsNewItem(TypedDict):
    #: workspace-relative
    path: str
    #: 1-based
    line: int
    #: 1-based
    column: int
    #: information and hints are left out
    severity: Literal["error", "warning"]
    #: the checker that reported it (the server's "source"), or ""
    source: str
    #: its rule or error code, or ""
    code: str
    message: str


class ResolveDetailsDiagnostics(TypedDict):
    """what the language servers found in the written files (runs wired with lsp)"""
    #: every file the write changed that was synced with the language servers
    files: List[ResolveDetailsDiagnosticsFilesItem]
    #: the errors and warnings the write newly introduced, at most 100 per file
    new: List[ResolveDetailsDiagnosticsNewItem]
    #: a file had more new diagnostics than listed (see its new_count)
    truncated: bool


class _ResolveDetailsRequired(TypedDict):
    outcome: Literal["applied", "discarded"]
    #: the staged change resolved
    edit_id: str
    #: what the staged change was, as its tool labelled it
    label: str
    #: the tool that staged it
    source_tool: str
    #: workspace-relative files the change names: written when applied, left alone when discarded
    files: List[str]
    #: ids of the changes still staged, most recent first (resolve without edit_id takes the first)
    still_pending: List[str]


class ResolveDetails(_ResolveDetailsRequired, total=False):
    #: what the language servers found in the written files (runs wired with lsp)
    diagnostics: ResolveDetailsDiagnostics


class VibeKillArgs(TypedDict):
    #: the id vibe_spawn returned, e.g. w1
    worker_id: str


class VibeKillDetailsWorker(TypedDict):
    #: what vibe_wait, vibe_send and vibe_kill take
    worker_id: str
    label: str
    tier: Literal["fast", "good"]
    state: Literal["running", "done", "failed", "killed"]
    #: 1, then one more for each vibe_send
    attempt: int
    #: the worker host running it
    host: str
    #: the current attempt's running time, to when it settled
    elapsed_ms: int
    #: the last settled attempt's result (its last 32768 characters); null before any attempt settled with one
    result: Optional[str]
    #: why it failed or was killed, in a few words; empty otherwise
    detail: str


class VibeKillDetails(TypedDict):
    worker: VibeKillDetailsWorker
    #: it was running and is now killed; false when it had already settled
    was_running: bool


class VibeListDetailsWorkersItem(TypedDict):
    #: what vibe_wait, vibe_send and vibe_kill take
    worker_id: str
    label: str
    tier: Literal["fast", "good"]
    state: Literal["running", "done", "failed", "killed"]
    #: 1, then one more for each vibe_send
    attempt: int
    #: the worker host running it
    host: str
    #: the current attempt's running time, to when it settled
    elapsed_ms: int
    #: the last settled attempt's result (its last 32768 characters); null before any attempt settled with one
    result: Optional[str]
    #: why it failed or was killed, in a few words; empty otherwise
    detail: str


class VibeListDetails(TypedDict):
    #: every worker the conversation keeps, oldest first
    workers: List[VibeListDetailsWorkersItem]
    #: the worker hosts this conversation may use
    hosts: List[str]


class VibeSendArgs(TypedDict):
    #: the id vibe_spawn returned, e.g. w1
    worker_id: str
    #: what to add to the brief
    message: str


class VibeSendDetailsWorker(TypedDict):
    """the worker, re-running its new attempt"""
    #: what vibe_wait, vibe_send and vibe_kill take
    worker_id: str
    label: str
    tier: Literal["fast", "good"]
    state: Literal["running", "done", "failed", "killed"]
    #: 1, then one more for each vibe_send
    attempt: int
    #: the worker host running it
    host: str
    #: the current attempt's running time, to when it settled
    elapsed_ms: int
    #: the last settled attempt's result (its last 32768 characters); null before any attempt settled with one
    result: Optional[str]
    #: why it failed or was killed, in a few words; empty otherwise
    detail: str


class VibeSendDetails(TypedDict):
    #: the worker, re-running its new attempt
    worker: VibeSendDetailsWorker
    #: messages appended to its brief so far
    messages: int


class _VibeSpawnArgsRequired(TypedDict):
    #: everything the worker needs to know: goal, files, constraints, what to report
    brief: str
    #: a few words naming the job, shown in vibe_list
    label: str


class VibeSpawnArgs(_VibeSpawnArgsRequired, total=False):
    #: fast (default) or good
    tier: Literal["fast", "good"]


class VibeSpawnDetailsWorker(TypedDict):
    """the worker started, running"""
    #: what vibe_wait, vibe_send and vibe_kill take
    worker_id: str
    label: str
    tier: Literal["fast", "good"]
    state: Literal["running", "done", "failed", "killed"]
    #: 1, then one more for each vibe_send
    attempt: int
    #: the worker host running it
    host: str
    #: the current attempt's running time, to when it settled
    elapsed_ms: int
    #: the last settled attempt's result (its last 32768 characters); null before any attempt settled with one
    result: Optional[str]
    #: why it failed or was killed, in a few words; empty otherwise
    detail: str


class VibeSpawnDetails(TypedDict):
    #: the worker started, running
    worker: VibeSpawnDetailsWorker


class _VibeWaitArgsRequired(TypedDict):
    #: the id vibe_spawn returned, e.g. w1
    worker_id: str


class VibeWaitArgs(_VibeWaitArgsRequired, total=False):
    #: how long to wait at most; omit to wait until the worker settles
    timeout_seconds: float


class VibeWaitDetailsWorker(TypedDict):
    #: what vibe_wait, vibe_send and vibe_kill take
    worker_id: str
    label: str
    tier: Literal["fast", "good"]
    state: Literal["running", "done", "failed", "killed"]
    #: 1, then one more for each vibe_send
    attempt: int
    #: the worker host running it
    host: str
    #: the current attempt's running time, to when it settled
    elapsed_ms: int
    #: the last settled attempt's result (its last 32768 characters); null before any attempt settled with one
    result: Optional[str]
    #: why it failed or was killed, in a few words; empty otherwise
    detail: str


class VibeWaitDetails(TypedDict):
    worker: VibeWaitDetailsWorker
    #: it settled (done, failed, killed); false when timeout_seconds passed first and it keeps running
    settled: bool
    #: while it runs: its most recent output (at most 4096 characters); null once settled
    output_tail: Optional[str]


class WriteArgs(TypedDict):
    #: file path relative to the workspace root
    path: str
    #: the file's complete new content
    content: str


class WriteDetailsFilesItem(TypedDict):
    #: workspace-relative
    path: str
    #: added: the file is new; deleted: it is gone
    change: Literal["added", "modified", "deleted"]
    #: bytes written
    bytes: int


class WriteDetailsDiagnosticsFilesItem(TypedDict):
    #: workspace-relative
    path: str
    #: fresh: checked, its new diagnostics are listed; late: not checked in time (ask lsp diagnostics later); no_server: nothing checks it; failed: see detail
    state: Literal["fresh", "late", "no_server", "deleted", "failed"]
    #: the language servers that checked it
    servers: List[str]
    #: why it is late or failed; "" otherwise
    detail: str
    #: diagnostics new to the run in this file (fresh files), before the cap
    new_count: int
    #: its diagnostics before the change were not known in time, so some new ones may predate it
    earlier_unknown: bool


class WriteDetailsDiagnosticsNewItem(TypedDict):
    #: workspace-relative
    path: str
    #: 1-based
    line: int
    #: 1-based
    column: int
    #: information and hints are left out
    severity: Literal["error", "warning"]
    #: the checker that reported it (the server's "source"), or ""
    source: str
    #: its rule or error code, or ""
    code: str
    message: str


class WriteDetailsDiagnostics(TypedDict):
    """what the language servers found in the written files (runs wired with lsp)"""
    #: every file the write changed that was synced with the language servers
    files: List[WriteDetailsDiagnosticsFilesItem]
    #: the errors and warnings the write newly introduced, at most 100 per file
    new: List[WriteDetailsDiagnosticsNewItem]
    #: a file had more new diagnostics than listed (see its new_count)
    truncated: bool


class _WriteDetailsRequired(TypedDict):
    #: the one file written
    files: List[WriteDetailsFilesItem]


class WriteDetails(_WriteDetailsRequired, total=False):
    #: what the language servers found in the written files (runs wired with lsp)
    diagnostics: WriteDetailsDiagnostics


DebugArgs = Union[DebugArgsAdapters, DebugArgsStatus, DebugArgsBreakpoints, DebugArgsLaunch, DebugArgsAttach, DebugArgsContinue, DebugArgsPause, DebugArgsStepOver, DebugArgsStepIn, DebugArgsStepOut, DebugArgsThreads, DebugArgsStack, DebugArgsScopes, DebugArgsVariables, DebugArgsEvaluate, DebugArgsOutput, DebugArgsTerminate]
DebugDetails = Union[DebugDetails1, DebugDetailsAdapters, DebugDetailsBreakpoints, DebugDetailsThreads, DebugDetailsStack, DebugDetailsScopes, DebugDetailsVariables, DebugDetailsEvaluate, DebugDetailsOutput]
LspArgs = Union[LspArgsDiagnostics, LspArgsDefinition, LspArgsTypeDefinition, LspArgsImplementation, LspArgsReferences, LspArgsHover, LspArgsSymbols, LspArgsCodeActions, LspArgsStatus, LspArgsReload]
LspDetails = Union[LspDetailsDiagnostics, LspDetails2, LspDetailsHover, LspDetailsSymbols, LspDetailsCodeActions, LspDetailsStatus, LspDetailsReload]
VibeListArgs = Dict[str, Any]


def apply_patch_details(result: ToolResult) -> Optional[ApplyPatchDetails]:
    """apply_patch's details, typed; None when the result carries none (a refusal, an older control plane)."""
    return cast("Optional[ApplyPatchDetails]", result.details)


def ask_user_details(result: ToolResult) -> Optional[AskUserDetails]:
    """ask_user's details, typed; None when the result carries none (a refusal, an older control plane)."""
    return cast("Optional[AskUserDetails]", result.details)


def ast_edit_details(result: ToolResult) -> Optional[AstEditDetails]:
    """ast_edit's details, typed; None when the result carries none (a refusal, an older control plane)."""
    return cast("Optional[AstEditDetails]", result.details)


def ast_grep_details(result: ToolResult) -> Optional[AstGrepDetails]:
    """ast_grep's details, typed; None when the result carries none (a refusal, an older control plane)."""
    return cast("Optional[AstGrepDetails]", result.details)


def debug_details(result: ToolResult) -> Optional[DebugDetails]:
    """debug's details, typed; None when the result carries none (a refusal, an older control plane)."""
    return cast("Optional[DebugDetails]", result.details)


def edit_details(result: ToolResult) -> Optional[EditDetails]:
    """edit's details, typed; None when the result carries none (a refusal, an older control plane)."""
    return cast("Optional[EditDetails]", result.details)


def eval_details(result: ToolResult) -> Optional[EvalDetails]:
    """eval's details, typed; None when the result carries none (a refusal, an older control plane)."""
    return cast("Optional[EvalDetails]", result.details)


def exec_details(result: ToolResult) -> Optional[ExecDetails]:
    """exec's details, typed; None when the result carries none (a refusal, an older control plane)."""
    return cast("Optional[ExecDetails]", result.details)


def list_details(result: ToolResult) -> Optional[ListDetails]:
    """list's details, typed; None when the result carries none (a refusal, an older control plane)."""
    return cast("Optional[ListDetails]", result.details)


def lsp_details(result: ToolResult) -> Optional[LspDetails]:
    """lsp's details, typed; None when the result carries none (a refusal, an older control plane)."""
    return cast("Optional[LspDetails]", result.details)


def lsp_rename_details(result: ToolResult) -> Optional[LspRenameDetails]:
    """lsp_rename's details, typed; None when the result carries none (a refusal, an older control plane)."""
    return cast("Optional[LspRenameDetails]", result.details)


def read_details(result: ToolResult) -> Optional[ReadDetails]:
    """read's details, typed; None when the result carries none (a refusal, an older control plane)."""
    return cast("Optional[ReadDetails]", result.details)


def resolve_details(result: ToolResult) -> Optional[ResolveDetails]:
    """resolve's details, typed; None when the result carries none (a refusal, an older control plane)."""
    return cast("Optional[ResolveDetails]", result.details)


def vibe_kill_details(result: ToolResult) -> Optional[VibeKillDetails]:
    """vibe_kill's details, typed; None when the result carries none (a refusal, an older control plane)."""
    return cast("Optional[VibeKillDetails]", result.details)


def vibe_list_details(result: ToolResult) -> Optional[VibeListDetails]:
    """vibe_list's details, typed; None when the result carries none (a refusal, an older control plane)."""
    return cast("Optional[VibeListDetails]", result.details)


def vibe_send_details(result: ToolResult) -> Optional[VibeSendDetails]:
    """vibe_send's details, typed; None when the result carries none (a refusal, an older control plane)."""
    return cast("Optional[VibeSendDetails]", result.details)


def vibe_spawn_details(result: ToolResult) -> Optional[VibeSpawnDetails]:
    """vibe_spawn's details, typed; None when the result carries none (a refusal, an older control plane)."""
    return cast("Optional[VibeSpawnDetails]", result.details)


def vibe_wait_details(result: ToolResult) -> Optional[VibeWaitDetails]:
    """vibe_wait's details, typed; None when the result carries none (a refusal, an older control plane)."""
    return cast("Optional[VibeWaitDetails]", result.details)


def write_details(result: ToolResult) -> Optional[WriteDetails]:
    """write's details, typed; None when the result carries none (a refusal, an older control plane)."""
    return cast("Optional[WriteDetails]", result.details)


class ToolCaller(Protocol):
    """What RunTools needs of a client (EnclaveClient is one); the types module imports no client."""

    def call_tool(self, run_id: str, tool: str, args: Any = None, *, timeout: Optional[float] = None) -> ToolResult: ...


class AsyncToolCaller(Protocol):
    """What AsyncRunTools needs of a client (AsyncEnclaveClient is one)."""

    async def call_tool(self, run_id: str, tool: str, args: Any = None, *, timeout: Optional[float] = None) -> ToolResult: ...


class RunTools:
    """Typed calls of one run's built-in tools (``client.tools(run_id).exec({"command": "ls"})``): each takes its
    arguments' TypedDict and returns the result as ``call_tool`` does."""

    def __init__(self, client: ToolCaller, run_id: str) -> None:
        self._client = client
        self._run_id = run_id

    def apply_patch(self, args: ApplyPatchArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return self._client.call_tool(self._run_id, "apply_patch", args, timeout=timeout)

    def ask_user(self, args: AskUserArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return self._client.call_tool(self._run_id, "ask_user", args, timeout=timeout)

    def ast_edit(self, args: AstEditArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return self._client.call_tool(self._run_id, "ast_edit", args, timeout=timeout)

    def ast_grep(self, args: AstGrepArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return self._client.call_tool(self._run_id, "ast_grep", args, timeout=timeout)

    def debug(self, args: DebugArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return self._client.call_tool(self._run_id, "debug", args, timeout=timeout)

    def edit(self, args: EditArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return self._client.call_tool(self._run_id, "edit", args, timeout=timeout)

    def eval(self, args: EvalArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return self._client.call_tool(self._run_id, "eval", args, timeout=timeout)

    def exec(self, args: ExecArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return self._client.call_tool(self._run_id, "exec", args, timeout=timeout)

    def list(self, args: ListArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return self._client.call_tool(self._run_id, "list", args, timeout=timeout)

    def lsp(self, args: LspArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return self._client.call_tool(self._run_id, "lsp", args, timeout=timeout)

    def lsp_rename(self, args: LspRenameArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return self._client.call_tool(self._run_id, "lsp_rename", args, timeout=timeout)

    def read(self, args: ReadArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return self._client.call_tool(self._run_id, "read", args, timeout=timeout)

    def resolve(self, args: ResolveArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return self._client.call_tool(self._run_id, "resolve", args, timeout=timeout)

    def vibe_kill(self, args: VibeKillArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return self._client.call_tool(self._run_id, "vibe_kill", args, timeout=timeout)

    def vibe_list(self, args: VibeListArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return self._client.call_tool(self._run_id, "vibe_list", args, timeout=timeout)

    def vibe_send(self, args: VibeSendArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return self._client.call_tool(self._run_id, "vibe_send", args, timeout=timeout)

    def vibe_spawn(self, args: VibeSpawnArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return self._client.call_tool(self._run_id, "vibe_spawn", args, timeout=timeout)

    def vibe_wait(self, args: VibeWaitArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return self._client.call_tool(self._run_id, "vibe_wait", args, timeout=timeout)

    def write(self, args: WriteArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return self._client.call_tool(self._run_id, "write", args, timeout=timeout)


class AsyncRunTools:
    """RunTools for AsyncEnclaveClient: each tool a coroutine."""

    def __init__(self, client: AsyncToolCaller, run_id: str) -> None:
        self._client = client
        self._run_id = run_id

    async def apply_patch(self, args: ApplyPatchArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return await self._client.call_tool(self._run_id, "apply_patch", args, timeout=timeout)

    async def ask_user(self, args: AskUserArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return await self._client.call_tool(self._run_id, "ask_user", args, timeout=timeout)

    async def ast_edit(self, args: AstEditArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return await self._client.call_tool(self._run_id, "ast_edit", args, timeout=timeout)

    async def ast_grep(self, args: AstGrepArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return await self._client.call_tool(self._run_id, "ast_grep", args, timeout=timeout)

    async def debug(self, args: DebugArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return await self._client.call_tool(self._run_id, "debug", args, timeout=timeout)

    async def edit(self, args: EditArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return await self._client.call_tool(self._run_id, "edit", args, timeout=timeout)

    async def eval(self, args: EvalArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return await self._client.call_tool(self._run_id, "eval", args, timeout=timeout)

    async def exec(self, args: ExecArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return await self._client.call_tool(self._run_id, "exec", args, timeout=timeout)

    async def list(self, args: ListArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return await self._client.call_tool(self._run_id, "list", args, timeout=timeout)

    async def lsp(self, args: LspArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return await self._client.call_tool(self._run_id, "lsp", args, timeout=timeout)

    async def lsp_rename(self, args: LspRenameArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return await self._client.call_tool(self._run_id, "lsp_rename", args, timeout=timeout)

    async def read(self, args: ReadArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return await self._client.call_tool(self._run_id, "read", args, timeout=timeout)

    async def resolve(self, args: ResolveArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return await self._client.call_tool(self._run_id, "resolve", args, timeout=timeout)

    async def vibe_kill(self, args: VibeKillArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return await self._client.call_tool(self._run_id, "vibe_kill", args, timeout=timeout)

    async def vibe_list(self, args: VibeListArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return await self._client.call_tool(self._run_id, "vibe_list", args, timeout=timeout)

    async def vibe_send(self, args: VibeSendArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return await self._client.call_tool(self._run_id, "vibe_send", args, timeout=timeout)

    async def vibe_spawn(self, args: VibeSpawnArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return await self._client.call_tool(self._run_id, "vibe_spawn", args, timeout=timeout)

    async def vibe_wait(self, args: VibeWaitArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return await self._client.call_tool(self._run_id, "vibe_wait", args, timeout=timeout)

    async def write(self, args: WriteArgs, *, timeout: Optional[float] = None) -> ToolResult:
        return await self._client.call_tool(self._run_id, "write", args, timeout=timeout)
