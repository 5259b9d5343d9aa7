"""The sandbox layer: the same tool calls as the client, shaped as a place to run things."""

from __future__ import annotations

import asyncio
import os

import pytest

from enclave_client import AsyncSandbox, EnclaveClient, Sandbox
from enclave_client.errors import EnclaveError, NotFoundError
from enclave_client.tool_types import ast_edit_details


def test_exec_files_eval_and_cleanup(address: str) -> None:
    with Sandbox.create(address=address) as sb:
        ran = sb.exec("echo out; echo err >&2; exit 3")
        assert (ran.exit_code, ran.stdout, ran.stderr, ran.ok) == (3, "out\n", "err\n", False)
        assert sb.exec("true").ok
        sb.files.write("notes/hi.txt", "hi\n")
        assert sb.files.read("notes/hi.txt").startswith("hi")
        assert not sb.files.list("notes").is_error
        with pytest.raises(NotFoundError):
            sb.files.read("missing.txt")
        sb.eval("x = 41")
        sb.eval("open('x.txt', 'w').write(str(x + 1))")
        assert sb.files.read("x.txt") == "42"
        failed = sb.eval("raise KeyError('k')")
        assert failed.is_error and failed.error_code == "cell_error"
        # A structural rewrite staged, then applied by the id in its details.
        sb.files.write("k.py", "for k in d.keys():\n    print(k)\n")
        staged = sb.stage("$D.keys()", "$D", path="k.py")
        details = ast_edit_details(staged)
        assert details is not None and details["edit_id"] is not None
        sb.resolve("apply", details["edit_id"])
        assert sb.files.read("k.py") == "for k in d:\n    print(k)\n"
        # The sandbox's calls are tool calls like any other: the audit log has each of them.
        audited = {e.tool for e in sb.client.audit_events(sb.conversation.id, history_only=True) if e.kind == "tool_call"}
        assert {"exec", "write", "read", "list", "eval", "ast_edit", "resolve"} <= audited
        conversation = sb.conversation.id
        workspace = sb.workspace_path
        assert os.path.isfile(os.path.join(workspace, "notes", "hi.txt"))
    # A sandbox that made its conversation deletes it on the way out.
    with EnclaveClient(address) as client:
        with pytest.raises(NotFoundError):
            client.get_conversation(conversation)


def test_a_given_workspace_is_kept(address: str, tmp_path: object) -> None:
    folder = str(tmp_path)
    with Sandbox.create(address=address, workspace=folder) as sb:
        sb.files.write("kept.txt", "kept\n")
        conversation = sb.conversation.id
    with open(os.path.join(folder, "kept.txt"), encoding="utf-8") as f:
        assert f.read() == "kept\n"
    with EnclaveClient(address) as client:
        assert client.get_conversation(conversation).workspace_path == folder
        client.delete_conversation(conversation)


def test_the_async_sandbox(address: str) -> None:
    async def scenario() -> None:
        async with await AsyncSandbox.create(address=address) as sb:
            ran = await sb.exec("echo out; exit 4")
            assert (ran.exit_code, ran.stdout) == (4, "out\n")
            await sb.files.write("a.txt", "a\n")
            assert (await sb.files.read("a.txt")).startswith("a")
            await sb.eval("z = 6")
            await sb.eval("open('z.txt', 'w').write(str(z * 7))")
            assert await sb.files.read("z.txt") == "42"
            with pytest.raises(NotFoundError):
                await sb.files.read("missing.txt")

    asyncio.run(scenario())


def test_a_sandbox_that_cannot_open_its_run_leaves_no_conversation(address: str) -> None:
    with EnclaveClient(address) as client:
        before = {c.id for c in client.list_conversations()}
        with pytest.raises(EnclaveError) as err:
            Sandbox.create(address=address, resources=["no_such_resource"])
        assert err.value.code == "invalid_arguments"
        assert {c.id for c in client.list_conversations()} == before
