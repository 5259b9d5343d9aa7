"""A sandbox-shaped layer over the client, for code that wants "a place to run things" and nothing more:

    with Sandbox.create(workspace="/path/to/project") as sb:
        print(sb.exec("pytest -q").exit_code)
        sb.files.write("notes.txt", "hi\\n")
        sb.eval("x = 41")
        print(sb.eval("x + 1").text)

Each method is a tool call through the same API (the approval gate, the quotas and the audit log see it
as they see any call). A sandbox is a conversation and a headless run in it; leaving the ``with``
block closes the run, and deletes the conversation when the sandbox made it (``keep=True`` keeps it).
A failed call raises its code's EnclaveError subclass, except where the failure is the answer: a
command's non-zero exit (``ExecResult.exit_code``) and a cell's exception (``ToolResult.details``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Literal, Mapping, Optional, Sequence, Union

from . import models as m
from .tool_types import exec_details, read_details
from ._wire import RetryPolicy, Tls
from .client import EnclaveClient
from .errors import EnclaveError

#: eval's description is 5 to 10 words, shown in the transcript.
_CELL_DESCRIPTION = "a cell run through the Python sandbox layer"


@dataclass(frozen=True)
class ExecResult:
    """How a command ended, from exec's details: ``exit_code`` (None when a signal or the timeout ended it), its output apart."""

    exit_code: Optional[int]
    signal: Optional[str]
    timed_out: bool
    duration_ms: int
    stdout: str
    stderr: str
    #: The whole tool result (its ``text`` is what a model would read).
    result: m.ToolResult

    @property
    def ok(self) -> bool:
        return self.exit_code == 0


def _present(**args: Any) -> Dict[str, Any]:
    """A tool's arguments without the ones left out (None)."""
    return {k: v for k, v in args.items() if v is not None}


def _exec_result(result: m.ToolResult) -> ExecResult:
    d = exec_details(result)
    if d is None:
        result.raise_for_error()
        raise ValueError("exec answered without its details: the control plane is older than this client")
    return ExecResult(d["exit_code"], d["signal"], d["timed_out"], d["duration_ms"], d["stdout"], d["stderr"], result)


def _cell_result(result: m.ToolResult) -> m.ToolResult:
    """A cell's exception is its answer; any other failure raises."""
    if result.is_error and result.error_code != "cell_error":
        result.raise_for_error()
    return result


def _output_only(on_output: Optional[Callable[[m.ToolOutput], None]]) -> Callable[[m.ToolEvent], None]:
    def on_event(e: m.ToolEvent) -> None:
        if on_output is not None and isinstance(e, m.ToolOutput):
            on_output(e)

    return on_event


class Files:
    """The workspace's files, through the read, write and list tools."""

    def __init__(self, sandbox: "Sandbox") -> None:
        self._sb = sandbox

    def read(self, path: str) -> str:
        """The file's text (workspace-relative path): read's details' content, or the text from a control plane without it."""
        result = self._sb.call("read", {"path": path}).raise_for_error()
        details = read_details(result)
        return details["content"] if details is not None else result.text

    def write(self, path: str, content: str) -> m.ToolResult:
        """Writes the file whole (made when missing); the result carries any new diagnostics."""
        return self._sb.call("write", {"path": path, "content": content}).raise_for_error()

    def list(self, path: str = "", *, recursive: bool = False) -> m.ToolResult:
        """The folder's listing: the entries in ``details`` where the list tool publishes them, as text in ``text``."""
        return self._sb.call("list", _present(path=path or None, recursive=recursive)).raise_for_error()


class Lsp:
    """The project's language servers, through the lsp tool: a file, a 1-based line and the symbol as written there."""

    def __init__(self, sandbox: "Sandbox") -> None:
        self._sb = sandbox

    def ask(self, action: str, **args: Any) -> m.ToolResult:
        return self._sb.call("lsp", {"action": action, **args}).raise_for_error()

    def hover(self, file: str, line: int, symbol: str) -> m.ToolResult:
        return self.ask("hover", file=file, line=line, symbol=symbol)

    def definition(self, file: str, line: int, symbol: str) -> m.ToolResult:
        return self.ask("definition", file=file, line=line, symbol=symbol)

    def references(self, file: str, line: int, symbol: str) -> m.ToolResult:
        return self.ask("references", file=file, line=line, symbol=symbol)

    def diagnostics(self, file: str) -> m.ToolResult:
        return self.ask("diagnostics", file=file)


class Sandbox:
    """A conversation and a headless run, with the tools as methods. Make one with ``Sandbox.create``."""

    def __init__(self, client: EnclaveClient, conversation: m.Conversation, run: m.Run, *, owns_client: bool, keep: bool) -> None:
        self.client = client
        self.conversation = conversation
        self.run = run
        self.files = Files(self)
        self.lsp = Lsp(self)
        self._owns_client = owns_client
        self._keep = keep
        self._closed = False

    @classmethod
    def create(
        cls,
        address: Optional[str] = None,
        *,
        token: Optional[str] = None,
        tls: Tls = None,
        workspace: str = "",
        conversation_id: str = "",
        resources: Sequence[str] = (),
        keep: Optional[bool] = None,
        client: Optional[EnclaveClient] = None,
        retry: Union[RetryPolicy, bool] = True,
    ) -> "Sandbox":
        """A new sandbox: a conversation (on ``workspace``, an existing folder, or a fresh one) and a run
        with approval policy "never" (nobody answers cards). ``conversation_id`` names an existing
        conversation to use instead. ``keep`` defaults to True for an existing conversation or a given workspace."""
        own = client is None
        c = client or EnclaveClient(address, token=token, tls=tls, retry=retry)
        created = ""
        try:
            if conversation_id:
                conv = c.get_conversation(conversation_id)
            else:
                conv = c.create_conversation("", workspace)
                created = conv.id
            run = c.open_run(conv.id, approval_policy="never", resources=resources)
        except BaseException:
            # A conversation made for a sandbox that never came to be is not left behind.
            if created and not (keep or workspace):
                try:
                    c.delete_conversation(created)
                except EnclaveError:
                    pass
            if own:
                c.close()
            raise
        kept = keep if keep is not None else bool(conversation_id or workspace)
        return cls(c, conv, run, owns_client=own, keep=kept)

    @property
    def workspace_path(self) -> str:
        return self.conversation.workspace_path

    def call(self, tool: str, args: Optional[Mapping[str, Any]] = None, *, timeout: Optional[float] = None) -> m.ToolResult:
        """Any tool of the run, by name; the result as the client returns it (an error is a result, not raised)."""
        return self.client.call_tool(self.run.id, tool, args or {}, timeout=timeout)

    def tools(self) -> List[m.ToolInfo]:
        return self.client.list_tools(self.run.id).tools

    def exec(
        self,
        command: str,
        *,
        cwd: Optional[str] = None,
        timeout_seconds: Optional[int] = None,
        stdin: Optional[str] = None,
        env: Optional[Mapping[str, str]] = None,
        on_output: Optional[Callable[[m.ToolOutput], None]] = None,
    ) -> ExecResult:
        """Runs a shell command (sh -c) in the workspace; a non-zero exit is an answer, not an exception."""
        args = _present(command=command, cwd=cwd, timeout_seconds=timeout_seconds, stdin=stdin, env=dict(env) if env is not None else None)
        return _exec_result(self.client.call_tool(self.run.id, "exec", args, on_event=_output_only(on_output)))

    def eval(self, code: str, *, language: Optional[str] = None, description: str = _CELL_DESCRIPTION, timeout_seconds: Optional[int] = None) -> m.ToolResult:
        """Runs a cell in the conversation's kernel (state is kept between cells). A cell's exception is
        the answer (``is_error`` with code "cell_error", its name in ``details``); other failures raise."""
        return _cell_result(self.call("eval", _present(code=code, description=description, language=language, timeout_seconds=timeout_seconds)))

    def stage(self, pattern: str, rewrite: str, *, path: Optional[str] = None, language: Optional[str] = None) -> m.ToolResult:
        """Stages a structural rewrite (ast_edit); nothing is written until resolve(). Its details' ``edit_id`` is what resolve takes."""
        return self.call("ast_edit", _present(pattern=pattern, rewrite=rewrite, path=path, language=language)).raise_for_error()

    def resolve(self, action: Literal["apply", "accept", "discard"], edit_id: Optional[str] = None, *, reason: Optional[str] = None) -> m.ToolResult:
        """Applies or discards a staged change (the most recent when no id is given)."""
        return self.call("resolve", _present(action=action, edit_id=edit_id, reason=reason)).raise_for_error()

    def close(self) -> None:
        """Closes the run, deletes the conversation unless kept, and closes the client the sandbox made."""
        if self._closed:
            return
        self._closed = True
        try:
            self.client.close_run(self.run.id)
            if not self._keep:
                self.client.delete_conversation(self.conversation.id)
        finally:
            if self._owns_client:
                self.client.close()

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
