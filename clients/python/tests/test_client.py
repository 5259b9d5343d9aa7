"""The sync client against a live control plane: every kind of call, a tool's details read from typed
fields (exec's exit code, an eval error's name, an lsp location, ast_edit's edit id), output streamed,
cancellation and timeouts stopping the command on the server, error codes as exception classes."""

from __future__ import annotations

import json
import os
import threading
from typing import Any, Dict, List, Optional

import grpc
import pytest

import enclave_client
from enclave_client import CardAnswer, DeadlineExceededError, EgressDestination, EnclaveClient, EnclaveError, ToolOutput, ToolResult, ToolResultEvent, exec_details
from enclave_client.errors import AlreadyExistsError, FailedPreconditionError, InvalidArgumentsError, NotFoundError, UnknownToolError
from enclave_client.tool_types import ast_edit_details, read_details

from conftest import eventually, unique


def details_schema(client: EnclaveClient, run_id: str, tool: str) -> Dict[str, Any]:
    """The tool's details schema from ListTools: every built-in tool publishes one."""
    info = client.list_tools(run_id).get(tool)
    assert info is not None, f"{tool} is not offered to the run"
    assert info.details_schema is not None, f"{tool} publishes no details schema"
    return info.details_schema


def test_runs_from_the_installed_wheel() -> None:
    # The package under test is the one pip installed, not the source tree.
    assert "site-packages" in (enclave_client.__file__ or "")


def test_conversations_runs_tools_placement_and_cli_runs(client: EnclaveClient) -> None:
    conv = client.create_conversation(unique("py-basics"))
    got = client.get_conversation(conv.id)
    assert got.workspace_path == conv.workspace_path
    # What it costs: nothing runs for it yet (said, not a figure); its workspace was measured.
    assert got.usage is not None and got.usage.cgroup is None and got.usage.cgroup_unavailable
    assert got.usage.workspace is not None and got.usage.workspace.source == "walk"
    assert conv.usage is None
    assert conv.id in [c.id for c in client.list_conversations()]

    run = client.open_run(conv.id)
    assert run.approval_policy == "write"
    tools = client.list_tools(run.id)
    write = tools.get("write")
    assert write is not None and write.tier == "write"
    assert write.input_schema["type"] == "object"
    assert client.set_vibe_mode(run.id, True).vibe_mode is True

    headless = client.open_run(conv.id, approval_policy="never", resources=["workspace"])
    written = client.call_tool(headless.id, "write", {"path": "a.txt", "content": "a\n"})
    assert not written.is_error, written.text
    read = read_details(client.tools(headless.id).read({"path": "a.txt"}))
    assert read is not None and read["content"] == "a\n"

    assert client.describe_placement(conv.id).placement == "host"
    assert client.audit_enclosure(conv.id).placement == "host"
    with pytest.raises(FailedPreconditionError) as stopped:
        client.stop_enclosure(conv.id)
    assert stopped.value.code == "failed_precondition"
    assert stopped.value.grpc_code == grpc.StatusCode.FAILED_PRECONDITION

    cli = client.attach_cli_run(conv.id)
    assert cli.cli and cli.cli_current
    assert client.attach_cli_run(conv.id).id == cli.id
    assert sorted(r.id for r in client.list_runs(conv.id)) == sorted([run.id, headless.id, cli.id])

    client.close_run(run.id)
    assert run.id not in [r.id for r in client.list_runs(conv.id)]
    client.delete_conversation(conv.id)
    with pytest.raises(NotFoundError) as gone:
        client.get_conversation(conv.id)
    assert gone.value.code == "not_found"


def test_exec_exit_code_and_output_from_details(client: EnclaveClient) -> None:
    conv = client.create_conversation(unique("py-exec"))
    run = client.open_run(conv.id, approval_policy="never")
    details_schema(client, run.id, "exec")
    # The typed call: the arguments are ExecArgs, the details ExecDetails.
    r = client.tools(run.id).exec({"command": "echo out; echo err >&2; exit 3"})
    d = exec_details(r)
    assert d is not None
    assert (d["exit_code"], d["signal"], d["timed_out"]) == (3, None, False)
    assert (d["stdout"], d["stderr"]) == ("out\n", "err\n")
    assert r.details == d


def test_streams_a_commands_output_the_result_last(client: EnclaveClient) -> None:
    conv = client.create_conversation(unique("py-stream"))
    run = client.open_run(conv.id, approval_policy="never")
    seen: List[str] = []
    r = client.call_tool(
        run.id, "exec", {"command": "for i in 1 2 3; do echo line$i; done"}, on_event=lambda e: seen.append(e.data.decode()) if isinstance(e, ToolOutput) else None
    )
    assert "".join(seen) == "line1\nline2\nline3\n"
    assert not r.is_error
    events = list(client.stream_tool(run.id, "exec", {"command": "echo a; echo b"}))
    assert "".join(e.data.decode() for e in events if isinstance(e, ToolOutput)) == "a\nb\n"
    assert isinstance(events[-1], ToolResultEvent) and not events[-1].result.is_error


def test_eval_keeps_state_between_cells_and_names_an_error(client: EnclaveClient) -> None:
    conv = client.create_conversation(unique("py-eval"))
    run = client.open_run(conv.id, approval_policy="never")
    first = client.call_tool(run.id, "eval", {"code": "x = 41", "description": "set a variable for the next cell"})
    assert not first.is_error, first.text
    # The second cell sees the first one's variable: it writes it out for the test to read (not the result's text).
    second = client.call_tool(run.id, "eval", {"code": "open('x.txt', 'w').write(str(x + 1))", "description": "write the variable the last cell set"})
    assert not second.is_error, second.text
    with open(os.path.join(conv.workspace_path, "x.txt"), encoding="utf-8") as f:
        assert f.read() == "42"
    failed = client.call_tool(run.id, "eval", {"code": "raise ValueError('boom')", "description": "raise an error on purpose here"})
    assert failed.is_error and failed.error_code == "cell_error"
    details_schema(client, run.id, "eval")
    assert failed.details is not None
    assert failed.details["error"]["name"] == "ValueError"


def _location(details: Optional[Dict[str, Any]]) -> Dict[str, Any]:
    assert details is not None
    locations = details.get("locations")
    assert isinstance(locations, list) and locations, details
    first = locations[0]
    assert isinstance(first, dict)
    return first


def test_lsp_hover_and_definition(client: EnclaveClient) -> None:
    conv = client.create_conversation(unique("py-lsp"))
    run = client.open_run(conv.id, approval_policy="never", resources=["workspace", "lsp"])
    # pyright starts where a root marker is.
    assert not client.call_tool(run.id, "write", {"path": "pyproject.toml", "content": '[project]\nname = "demo"\nversion = "0.1.0"\n'}).is_error
    source = "def greet(name: str) -> str:\n    return 'hi ' + name\n\n\nprint(greet('you'))\n"
    assert not client.call_tool(run.id, "write", {"path": "app.py", "content": source}).is_error
    hover = client.call_tool(run.id, "lsp", {"action": "hover", "file": "app.py", "line": 5, "symbol": "greet"})
    assert not hover.is_error, hover.text
    definition = client.call_tool(run.id, "lsp", {"action": "definition", "file": "app.py", "line": 5, "symbol": "greet"})
    assert not definition.is_error, definition.text
    details_schema(client, run.id, "lsp")
    assert hover.details is not None and hover.details["action"] == "hover"
    where = _location(definition.details)
    assert where["path"] == "app.py"
    assert where["line"] == 1


def test_ast_edit_then_resolve_by_the_edit_id_from_details(client: EnclaveClient) -> None:
    conv = client.create_conversation(unique("py-ast"))
    run = client.open_run(conv.id, approval_policy="never")
    assert not client.call_tool(run.id, "write", {"path": "k.py", "content": "for k in d.keys():\n    print(k)\n"}).is_error
    staged = client.call_tool(run.id, "ast_edit", {"pattern": "$D.keys()", "rewrite": "$D", "path": "k.py"})
    assert not staged.is_error, staged.text
    details_schema(client, run.id, "ast_edit")
    details = ast_edit_details(staged)
    assert details is not None
    edit_id = details["edit_id"]
    assert edit_id is not None and details["replacements"] == 1
    # Every result of the run carries its pending state: the staged change, then nothing.
    assert staged.pending is not None
    assert staged.pending.required_next_tool == "resolve" and staged.pending.pending_ids[0] == edit_id
    applied = client.call_tool(run.id, "resolve", {"edit_id": edit_id, "action": "apply"})
    assert not applied.is_error, applied.text
    assert applied.pending is not None
    assert applied.pending.pending_ids == [] and applied.pending.required_next_tool == ""
    with open(os.path.join(conv.workspace_path, "k.py"), encoding="utf-8") as f:
        assert f.read() == "for k in d:\n    print(k)\n"


def test_error_codes_are_exception_classes(client: EnclaveClient, address: str) -> None:
    with pytest.raises(NotFoundError) as unknown_run:
        client.call_tool("no-such-run", "exec", {"command": "true"})
    assert unknown_run.value.code == "not_found" and unknown_run.value.grpc_code == grpc.StatusCode.NOT_FOUND
    assert isinstance(unknown_run.value, EnclaveError)
    with pytest.raises(NotFoundError):
        client.close_run("no-such-run")

    conv = client.create_conversation(unique("py-errors"))
    run = client.open_run(conv.id, approval_policy="never")
    # A tool's failure is its result; raise_for_error makes it its code's exception.
    no_tool = client.call_tool(run.id, "no_such_tool", {})
    assert no_tool.is_error and no_tool.error_code == "unknown_tool"
    with pytest.raises(UnknownToolError):
        no_tool.raise_for_error()
    bad = client.call_tool(run.id, "exec", {"command": 42})
    assert bad.error_code == "invalid_arguments"
    assert isinstance(bad.exception(), InvalidArgumentsError)
    with pytest.raises(EnclaveError) as dup:
        client.create_conversation(conv.id)
    assert dup.value.code == "already_exists"


def test_a_stream_left_early_stops_the_command_on_the_server(client: EnclaveClient) -> None:
    conv = client.create_conversation(unique("py-cancel"))
    run = client.open_run(conv.id, approval_policy="never")
    ws = conv.workspace_path
    seen: List[str] = []
    with client.stream_tool(run.id, "exec", {"command": "echo first; sleep 300; touch finished-1"}) as events:
        for e in events:
            if isinstance(e, ToolOutput):
                seen.append(e.data.decode())
                break
    assert "first" in "".join(seen)

    # A deadline: the call is cancelled when it passes, and the command with it.
    with pytest.raises(DeadlineExceededError) as late:
        client.call_tool(run.id, "exec", {"command": "touch started-2; sleep 300; touch finished-2"}, timeout=3)
    assert late.value.code is None and isinstance(late.value, TimeoutError)

    def both_ended() -> Optional[List[str]]:
        outcomes = [e.outcome for e in client.audit_events(conv.id, history_only=True) if e.kind == "tool_call" and e.tool == "exec"]
        return outcomes if len(outcomes) == 2 else None

    outcomes = eventually(both_ended, "both cancelled calls in the audit log")
    assert "ok" not in outcomes
    assert os.path.exists(os.path.join(ws, "started-2"))
    assert not os.path.exists(os.path.join(ws, "finished-1")) and not os.path.exists(os.path.join(ws, "finished-2"))


def test_an_operator_cancels_a_call_in_flight_and_stops_the_host_agent(client: EnclaveClient) -> None:
    # Without tokens the one caller is the control plane's operator (a plain tenant is refused: test/integration/operator-hands.test.ts).
    conv = client.create_conversation(unique("py-hands"))
    run = client.open_run(conv.id, approval_policy="never")
    results: List[ToolResult] = []
    caller = threading.Thread(target=lambda: results.append(client.call_tool(run.id, "exec", {"command": "sleep 300; touch finished"})))
    caller.start()
    call = eventually(lambda: next((c for c in client.list_calls_in_flight(conv.id) if c.tool == "exec"), None), "the call in flight")
    assert call.run_id == run.id and call.origin == "model"
    assert client.cancel_call(call.call_id).call_id == call.call_id
    caller.join(30)
    assert results and results[0].is_error and results[0].error_code == "cancelled"
    assert not os.path.exists(os.path.join(conv.workspace_path, "finished"))
    with pytest.raises(NotFoundError):
        client.cancel_call(call.call_id)
    assert client.stop_host_agent(conv.id) > 0
    with pytest.raises(FailedPreconditionError):
        client.stop_host_agent(conv.id)


def test_unreachable_is_its_own_class(tmp_path: Any) -> None:
    with EnclaveClient(f"unix://{tmp_path}/nobody.sock", retry=False) as nobody:
        with pytest.raises(enclave_client.ControlPlaneUnreachable) as err:
            nobody.list_conversations()
    assert err.value.code is None and isinstance(err.value, ConnectionError)


def test_sync_writes_reports_a_file_the_harness_wrote_itself(client: EnclaveClient) -> None:
    conv = client.create_conversation(unique("py-sync"))
    run = client.open_run(conv.id, approval_policy="never", resources=["workspace", "lsp", "shell"])
    with open(os.path.join(conv.workspace_path, "pyproject.toml"), "w", encoding="utf-8") as f:
        f.write('[project]\nname = "demo"\nversion = "0.1.0"\n')
    assert client.sync_writes(run.id, ["bad.py"], before_write=True).files[0].path == "bad.py"
    with open(os.path.join(conv.workspace_path, "bad.py"), "w", encoding="utf-8") as f:
        f.write('x: int = "not an int"\n')
    synced = client.sync_writes(run.id, ["bad.py"])
    [entry] = synced.files
    assert entry.path == "bad.py"
    assert entry.state in ("fresh", "late"), entry
    if entry.state == "fresh":
        assert [d.severity for d in entry.new_diagnostics] == ["error"]
        assert entry.new_diagnostics[0].line == 1


def test_with_synced_write_reports_only_what_the_write_introduced(client: EnclaveClient) -> None:
    conv = client.create_conversation(unique("py-synced-write"))
    run = client.open_run(conv.id, approval_policy="never", resources=["workspace", "lsp"])
    with open(os.path.join(conv.workspace_path, "pyproject.toml"), "w", encoding="utf-8") as f:
        f.write('[project]\nname = "demo"\nversion = "0.1.0"\n')  # what makes pyright take the folder
    path = os.path.join(conv.workspace_path, "old.py")

    def write(text: str) -> str:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return text

    write('a: int = "pre-existing"\n')
    # A comment appended by the harness's own write: the old error is not the write's.
    value, synced = client.with_synced_write(run.id, ["old.py"], lambda: write('a: int = "pre-existing"\n# a comment\n'))
    assert value.endswith("# a comment\n")
    [entry] = synced.files
    assert entry.state in ("fresh", "late"), entry
    if entry.state == "fresh":
        assert entry.new_diagnostics == []
    # A real new error is still reported.
    _, added = client.with_synced_write(run.id, ["old.py"], lambda: write('a: int = "pre-existing"\n# a comment\nb: str = 2\n'))
    if added.files[0].state == "fresh":
        assert [d.line for d in added.files[0].new_diagnostics] == [3]


def test_answers_a_permission_card_from_the_card_stream(client: EnclaveClient) -> None:
    # A run with the default policy asks before a write: the card stream shows the request, the answer lets it run.
    conv = client.create_conversation(unique("py-cards"))
    run = client.open_run(conv.id, resources=["workspace"])
    results: List[ToolResult] = []
    writer: Optional[threading.Thread] = None
    number = 0
    with client.card_events(conv.id) as events:
        for e in events:
            if e.kind == "subscribed":
                args = {"path": "approved.txt", "content": "yes\n"}
                writer = threading.Thread(target=lambda: results.append(client.call_tool(run.id, "write", args)))
                writer.start()
            elif e.kind == "opened" and e.card is not None and e.card.kind == "permission":
                number = e.card.number
                assert json.loads(client.card_arguments_text(conv.id, number)) == {"path": "approved.txt", "content": "yes\n"}
                client.answer_card(conv.id, number, CardAnswer(selected=["allow"]))
            elif e.kind == "closed":
                break
    assert writer is not None
    writer.join(60)
    assert len(results) == 1 and not results[0].is_error, results
    with open(os.path.join(conv.workspace_path, "approved.txt"), encoding="utf-8") as f:
        assert f.read() == "yes\n"
    assert [c.state for c in client.list_cards(conv.id, True) if c.number == number] == ["answered"]


def test_egress_policy_round_trip(client: EnclaveClient) -> None:
    mirror = EgressDestination(cidr="127.0.0.1/32", ports=[3141])
    conv = client.create_conversation(unique("py-egress"), egress=[mirror])
    assert conv.egress == [mirror]
    changed = client.set_conversation_egress(conv.id, [EgressDestination(host="*.mirror.example", ports=[443])])
    assert [(d.host, d.ports) for d in changed.egress] == [("*.mirror.example", [443])]
    with pytest.raises(EnclaveError) as bad:
        client.set_conversation_egress(conv.id, [EgressDestination(host="1.2.3.4")])
    assert bad.value.code == "invalid_arguments"
    assert client.set_conversation_egress(conv.id, []).egress == []
    client.delete_conversation(conv.id)


def test_fork_conversation_copies_the_workspace_not_the_memory(client: EnclaveClient) -> None:
    src = client.create_conversation()
    run = client.open_run(src.id, approval_policy="never")
    assert not client.call_tool(run.id, "write", {"path": "a.txt", "content": "alpha\n"}).is_error
    fork = client.fork_conversation(src.id, workspace_only=True)
    assert fork.forked_from == src.id and fork.id != src.id and fork.placement == "host"
    assert any(line.startswith("(memory)") for line in fork.not_copied_back)
    forked_run = client.open_run(fork.id, approval_policy="never")
    assert "alpha" in client.call_tool(forked_run.id, "read", {"path": "a.txt"}).text
    with pytest.raises(AlreadyExistsError):
        client.fork_conversation(src.id, fork.id)
    with pytest.raises(NotFoundError):
        client.fork_conversation("no-such-conversation")
    client.delete_conversation(fork.id)
    client.delete_conversation(src.id)
