"""What the sync and the asyncio client share: channel options, the bearer token, failures as exceptions, the retry."""

from __future__ import annotations

import json
import os
import random
from dataclasses import dataclass
from typing import Any, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import grpc

from .errors import ERROR_CODE_TRAILER, ControlPlaneUnreachable, DeadlineExceededError, EnclaveError, error_for_code

#: Where `make run` and `enclave serve` listen unless told otherwise.
DEFAULT_ADDRESS = "127.0.0.1:7400"

#: The largest message either side sends (the control plane's own limit).
MAX_MESSAGE_BYTES = 64 * 1024 * 1024

Metadata = Tuple[Tuple[str, str], ...]
ChannelOptions = List[Tuple[str, Any]]


@dataclass(frozen=True)
class TlsOptions:
    """TLS to a control plane: the roots to trust (None: the system's), a client certificate, and the name to expect."""

    root_certs: Optional[bytes] = None
    private_key: Optional[bytes] = None
    cert_chain: Optional[bytes] = None
    server_name_override: Optional[str] = None


Tls = Union[bool, TlsOptions, None]


@dataclass(frozen=True)
class RetryPolicy:
    """How a call that is safe to repeat (a read) is retried while the control plane drains or is unreachable. Tool calls never are."""

    #: Attempts in all, the first included (1: no retry).
    attempts: int = 4
    #: The wait before the second attempt, in seconds; each later wait doubles, up to max_delay.
    initial_delay: float = 0.1
    max_delay: float = 2.0

    def delay(self, attempt: int) -> float:
        """The wait before attempt `attempt` (2 is the first retry), with jitter so clients do not retry in step."""
        base = min(self.max_delay, self.initial_delay * 2.0 ** (attempt - 2))
        return base / 2 + random.random() * (base / 2)


NO_RETRY = RetryPolicy(attempts=1)


def resolve_address(address: Optional[str]) -> str:
    """The address given, else ENCLAVE_ADDRESS, else the default one."""
    return address or os.environ.get("ENCLAVE_ADDRESS") or DEFAULT_ADDRESS


def credentials(tls: Tls) -> Optional[grpc.ChannelCredentials]:
    """None for a plain channel."""
    if not tls:
        return None
    if tls is True:
        return grpc.ssl_channel_credentials()
    assert isinstance(tls, TlsOptions)
    return grpc.ssl_channel_credentials(root_certificates=tls.root_certs, private_key=tls.private_key, certificate_chain=tls.cert_chain)


def channel_options(tls: Tls, extra: Sequence[Tuple[str, Any]]) -> ChannelOptions:
    opts: ChannelOptions = [("grpc.max_receive_message_length", MAX_MESSAGE_BYTES), ("grpc.max_send_message_length", MAX_MESSAGE_BYTES)]
    if isinstance(tls, TlsOptions) and tls.server_name_override:
        opts += [("grpc.ssl_target_name_override", tls.server_name_override), ("grpc.default_authority", tls.server_name_override)]
    return opts + list(extra)


def metadata(token: Optional[str]) -> Metadata:
    """Each call's metadata: the bearer token when one is set."""
    return (("authorization", f"Bearer {token}"),) if token else ()


def sent_code(trailers: Optional[Iterable[Any]]) -> Optional[str]:
    """The control plane's code sent with a failure; None when gRPC itself failed the call."""
    for item in trailers or ():
        key, value = item[0], item[1]
        if key == ERROR_CODE_TRAILER:
            return value.decode() if isinstance(value, bytes) else str(value)
    return None


def call_error(address: str, err: grpc.RpcError) -> EnclaveError:
    """A failed call as its exception: unreachable when no control plane answered (UNAVAILABLE without a
    code of the control plane's), the caller's deadline as DeadlineExceededError, else the code's class."""
    status: grpc.StatusCode = err.code()
    details: str = err.details() or ""
    code = sent_code(err.trailing_metadata())
    if code is None and status == grpc.StatusCode.UNAVAILABLE:
        return ControlPlaneUnreachable(address, details)
    if code is None and status == grpc.StatusCode.DEADLINE_EXCEEDED:
        return DeadlineExceededError(details or "the call's deadline passed", grpc_code=status)
    return error_for_code(code, details, status)


def retryable(err: EnclaveError) -> bool:
    """A failure worth another attempt: a draining control plane, or none answering. Other UNAVAILABLE codes (agent_lost…) are the call's own."""
    return err.code == "draining" or isinstance(err, ControlPlaneUnreachable)


def arguments_json(args: Union[Mapping[str, Any], str, None]) -> str:
    """A tool's arguments as the wire carries them: JSON text (a str is sent as it is)."""
    return args if isinstance(args, str) else json.dumps(dict(args or {}))
