"""The sandbox layer for asyncio code: Sandbox's methods as coroutines, on AsyncEnclaveClient.

    async with await AsyncSandbox.create() as sb:
        print((await sb.exec("pytest -q")).exit_code)
"""

from __future__ import annotations

from typing import Any, Callable, List, Literal, Mapping, Optional, Sequence, Union

from . import models as m
from ._wire import RetryPolicy, Tls
from .aio import AsyncEnclaveClient
from .errors import EnclaveError
from .sandbox import _CELL_DESCRIPTION, ExecResult, _cell_result, _exec_result, _output_only, _present
from .tool_types import read_details


class AsyncFiles:
    """The workspace's files, through the read, write and list tools."""

    def __init__(self, sandbox: "AsyncSandbox") -> None:
        self._sb = sandbox

    async def read(self, path: str) -> str:
        result = (await self._sb.call("read", {"path": path})).raise_for_error()
        details = read_details(result)
        return details["content"] if details is not None else result.text

    async def write(self, path: str, content: str) -> m.ToolResult:
        return (await self._sb.call("write", {"path": path, "content": content})).raise_for_error()

    async def list(self, path: str = "", *, recursive: bool = False) -> m.ToolResult:
        return (await self._sb.call("list", _present(path=path or None, recursive=recursive))).raise_for_error()


class AsyncLsp:
    """The project's language servers, through the lsp tool."""

    def __init__(self, sandbox: "AsyncSandbox") -> None:
        self._sb = sandbox

    async def ask(self, action: str, **args: Any) -> m.ToolResult:
        return (await self._sb.call("lsp", {"action": action, **args})).raise_for_error()

    async def hover(self, file: str, line: int, symbol: str) -> m.ToolResult:
        return await self.ask("hover", file=file, line=line, symbol=symbol)

    async def definition(self, file: str, line: int, symbol: str) -> m.ToolResult:
        return await self.ask("definition", file=file, line=line, symbol=symbol)

    async def references(self, file: str, line: int, symbol: str) -> m.ToolResult:
        return await self.ask("references", file=file, line=line, symbol=symbol)

    async def diagnostics(self, file: str) -> m.ToolResult:
        return await self.ask("diagnostics", file=file)


class AsyncSandbox:
    """A conversation and a headless run, with the tools as coroutines. Make one with ``await AsyncSandbox.create(...)``."""

    def __init__(self, client: AsyncEnclaveClient, conversation: m.Conversation, run: m.Run, *, owns_client: bool, keep: bool) -> None:
        self.client = client
        self.conversation = conversation
        self.run = run
        self.files = AsyncFiles(self)
        self.lsp = AsyncLsp(self)
        self._owns_client = owns_client
        self._keep = keep
        self._closed = False

    @classmethod
    async def create(
        cls,
        address: Optional[str] = None,
        *,
        token: Optional[str] = None,
        tls: Tls = None,
        workspace: str = "",
        conversation_id: str = "",
        resources: Sequence[str] = (),
        keep: Optional[bool] = None,
        client: Optional[AsyncEnclaveClient] = None,
        retry: Union[RetryPolicy, bool] = True,
    ) -> "AsyncSandbox":
        """As Sandbox.create."""
        own = client is None
        c = client or AsyncEnclaveClient(address, token=token, tls=tls, retry=retry)
        created = ""
        try:
            if conversation_id:
                conv = await c.get_conversation(conversation_id)
            else:
                conv = await c.create_conversation("", workspace)
                created = conv.id
            run = await c.open_run(conv.id, approval_policy="never", resources=resources)
        except BaseException:
            # A conversation made for a sandbox that never came to be is not left behind.
            if created and not (keep or workspace):
                try:
                    await c.delete_conversation(created)
                except EnclaveError:
                    pass
            if own:
                await c.close()
            raise
        kept = keep if keep is not None else bool(conversation_id or workspace)
        return cls(c, conv, run, owns_client=own, keep=kept)

    @property
    def workspace_path(self) -> str:
        return self.conversation.workspace_path

    async def call(self, tool: str, args: Optional[Mapping[str, Any]] = None, *, timeout: Optional[float] = None) -> m.ToolResult:
        return await self.client.call_tool(self.run.id, tool, args or {}, timeout=timeout)

    async def tools(self) -> List[m.ToolInfo]:
        return (await self.client.list_tools(self.run.id)).tools

    async def exec(
        self,
        command: str,
        *,
        cwd: Optional[str] = None,
        timeout_seconds: Optional[int] = None,
        stdin: Optional[str] = None,
        env: Optional[Mapping[str, str]] = None,
        on_output: Optional[Callable[[m.ToolOutput], None]] = None,
    ) -> ExecResult:
        args = _present(command=command, cwd=cwd, timeout_seconds=timeout_seconds, stdin=stdin, env=dict(env) if env is not None else None)
        return _exec_result(await self.client.call_tool(self.run.id, "exec", args, on_event=_output_only(on_output)))

    async def eval(
        self, code: str, *, language: Optional[str] = None, description: str = _CELL_DESCRIPTION, timeout_seconds: Optional[int] = None
    ) -> m.ToolResult:
        return _cell_result(await self.call("eval", _present(code=code, description=description, language=language, timeout_seconds=timeout_seconds)))

    async def stage(self, pattern: str, rewrite: str, *, path: Optional[str] = None, language: Optional[str] = None) -> m.ToolResult:
        return (await self.call("ast_edit", _present(pattern=pattern, rewrite=rewrite, path=path, language=language))).raise_for_error()

    async def resolve(
        self, action: Literal["apply", "accept", "discard"], edit_id: Optional[str] = None, *, reason: Optional[str] = None
    ) -> m.ToolResult:
        return (await self.call("resolve", _present(action=action, edit_id=edit_id, reason=reason))).raise_for_error()

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            await self.client.close_run(self.run.id)
            if not self._keep:
                await self.client.delete_conversation(self.conversation.id)
        finally:
            if self._owns_client:
                await self.client.close()

    async def __aenter__(self) -> "AsyncSandbox":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
