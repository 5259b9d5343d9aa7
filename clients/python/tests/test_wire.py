"""What the client does on the wire, against a gRPC server of the test's own (the control plane's listener
cannot be told to drain on cue or to serve TLS here): the bearer token on calls and streams, TLS with
given roots, reads retried while the server says `draining`, tool calls never retried."""

from __future__ import annotations

import subprocess
from concurrent import futures
from pathlib import Path
from typing import Any, Iterator, List, Tuple

import grpc
import pytest

from enclave_client import EnclaveClient, RetryPolicy, TlsOptions
from enclave_client._gen.enclave.control.v1 import control_pb2 as pb
from enclave_client._gen.enclave.control.v1 import control_pb2_grpc as pb_grpc
from enclave_client.errors import DrainingError

FAST = RetryPolicy(attempts=4, initial_delay=0.01, max_delay=0.02)


class Recorder(pb_grpc.ControlPlaneServicer):
    """Answers ListConversations and CallTool, failing the first `drains` of each with `draining`."""

    def __init__(self, drains: int) -> None:
        self.drains = drains
        self.authorizations: List[str] = []
        self.calls: List[str] = []

    def _seen(self, name: str, context: Any) -> bool:
        self.calls.append(name)
        self.authorizations += [v for k, v in context.invocation_metadata() if k == "authorization"]
        if self.calls.count(name) <= self.drains:
            context.set_trailing_metadata((("enclave-error-code", "draining"),))
            context.abort(grpc.StatusCode.UNAVAILABLE, "the control plane is draining")
        return True

    def ListConversations(self, request: Any, context: Any) -> Any:
        self._seen("ListConversations", context)
        return pb.ListConversationsResponse(conversations=[pb.Conversation(id="c1", placement="host")])

    def CallTool(self, request: Any, context: Any) -> Iterator[Any]:
        self._seen("CallTool", context)
        yield pb.ToolEvent(output=pb.ToolOutput(stream="stdout", data=b"hi\n"))
        yield pb.ToolEvent(result=pb.ToolResult(parts=[pb.ContentPart(text="ran")], details_json='{"exit_code": 0}'))


def serve(recorder: Recorder, creds: Any = None) -> Tuple[grpc.Server, int]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    pb_grpc.add_ControlPlaneServicer_to_server(recorder, server)  # type: ignore[no-untyped-call]
    port = server.add_secure_port("127.0.0.1:0", creds) if creds else server.add_insecure_port("127.0.0.1:0")
    server.start()
    return server, port


def test_reads_are_retried_while_draining_tool_calls_are_not() -> None:
    recorder = Recorder(drains=2)
    server, port = serve(recorder)
    try:
        with EnclaveClient(f"127.0.0.1:{port}", retry=FAST) as client:
            assert [c.id for c in client.list_conversations()] == ["c1"]
            assert recorder.calls.count("ListConversations") == 3
            with pytest.raises(DrainingError) as err:
                client.call_tool("r", "exec", {"command": "true"})
            assert err.value.code == "draining" and err.value.grpc_code == grpc.StatusCode.UNAVAILABLE
            assert recorder.calls.count("CallTool") == 1
        with EnclaveClient(f"127.0.0.1:{port}", retry=False) as once:
            recorder.calls.clear()
            with pytest.raises(DrainingError):
                once.list_conversations()
            assert recorder.calls == ["ListConversations"]
    finally:
        server.stop(None)


def test_tls_with_given_roots_and_the_token_on_calls_and_streams(tmp_path: Path) -> None:
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=DNS:localhost", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    recorder = Recorder(drains=0)
    server, port = serve(recorder, grpc.ssl_server_credentials([(key.read_bytes(), cert.read_bytes())]))
    try:
        tls = TlsOptions(root_certs=cert.read_bytes(), server_name_override="localhost")
        with EnclaveClient(f"127.0.0.1:{port}", tls=tls, token="s3cret-token") as secure:
            assert [c.id for c in secure.list_conversations()] == ["c1"]
            r = secure.call_tool("r", "exec", {"command": "echo hi"})
            assert r.text == "ran" and r.details == {"exit_code": 0}
        assert recorder.authorizations == ["Bearer s3cret-token", "Bearer s3cret-token"]
        # Without TLS, or with the system's roots, the same endpoint does not answer.
        for plain in (True, False):
            with EnclaveClient(f"127.0.0.1:{port}", retry=False, timeout=20, tls=not plain) as other:
                with pytest.raises(Exception):
                    other.list_conversations()
    finally:
        server.stop(None)
