"""The asyncio client: the sync client's scenario, and cancelling the awaiting task stops the command on the server."""

from __future__ import annotations

import asyncio
import os
from typing import List

import pytest

from enclave_client import AsyncEnclaveClient, ToolOutput, ToolResultEvent
from enclave_client.errors import NotFoundError

from conftest import unique


def test_the_same_scenario_over_asyncio(address: str) -> None:
    async def scenario() -> None:
        async with AsyncEnclaveClient(address) as client:
            conv = await client.create_conversation(unique("py-async"))
            assert conv.id in [c.id for c in await client.list_conversations()]
            run = await client.open_run(conv.id, approval_policy="never")
            tools = await client.list_tools(run.id)
            assert tools.get("exec") is not None
            written = await client.call_tool(run.id, "write", {"path": "a.txt", "content": "a\n"})
            assert not written.is_error, written.text
            ran = await client.tools(run.id).exec({"command": "cat a.txt; exit 3"})
            assert ran.details is not None and ran.details["exit_code"] == 3 and ran.details["stdout"] == "a\n"
            await client.call_tool(run.id, "eval", {"code": "y = 1", "description": "set a variable for the next cell"})
            second = await client.call_tool(run.id, "eval", {"code": "open('y.txt', 'w').write(str(y + 1))", "description": "write the variable the last cell set"})
            assert not second.is_error, second.text
            with open(os.path.join(conv.workspace_path, "y.txt"), encoding="utf-8") as f:
                assert f.read() == "2"
            out: List[str] = []
            async with client.stream_tool(run.id, "exec", {"command": "echo one; echo two"}) as events:
                async for e in events:
                    if isinstance(e, ToolOutput):
                        out.append(e.data.decode())
                    last = e
            assert "".join(out) == "one\ntwo\n" and isinstance(last, ToolResultEvent)
            with pytest.raises(NotFoundError) as err:
                await client.get_conversation(unique("py-async-missing"))
            assert err.value.code == "not_found"
            await client.close_run(run.id)

    asyncio.run(scenario())


def test_cancelling_the_task_stops_the_command(address: str) -> None:
    async def scenario() -> None:
        async with AsyncEnclaveClient(address) as client:
            conv = await client.create_conversation(unique("py-async-cancel"))
            run = await client.open_run(conv.id, approval_policy="never")
            started = os.path.join(conv.workspace_path, "started")
            task = asyncio.ensure_future(client.call_tool(run.id, "exec", {"command": "touch started; sleep 300; touch finished"}))
            for _ in range(600):
                if os.path.exists(started):
                    break
                await asyncio.sleep(0.1)
            assert os.path.exists(started)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            # wait_for's timeout cancels the same way.
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(client.call_tool(run.id, "exec", {"command": "sleep 300; touch finished-2"}), 2)

            for _ in range(600):
                outcomes = []
                async with client.audit_events(conv.id, history_only=True) as events:
                    async for e in events:
                        if e.kind == "tool_call" and e.tool == "exec":
                            outcomes.append(e.outcome)
                if len(outcomes) == 2:
                    break
                await asyncio.sleep(0.1)
            assert len(outcomes) == 2 and "ok" not in outcomes
            assert not os.path.exists(os.path.join(conv.workspace_path, "finished"))
            assert not os.path.exists(os.path.join(conv.workspace_path, "finished-2"))

    asyncio.run(scenario())
