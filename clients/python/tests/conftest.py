"""The client's tests run against a live control plane (host placement) named by ENCLAVE_ADDRESS, with
the package installed from its wheel: test/packaging/python-package.test.ts starts both and runs pytest."""

from __future__ import annotations

import os
import time
import uuid
from typing import Callable, Iterator, Optional, TypeVar

import pytest

from enclave_client import EnclaveClient

T = TypeVar("T")


def pytest_configure(config: pytest.Config) -> None:
    if not os.environ.get("ENCLAVE_ADDRESS"):
        raise pytest.UsageError("ENCLAVE_ADDRESS must name a running control plane (`make run` serves 127.0.0.1:7400)")


@pytest.fixture(scope="session")
def address() -> str:
    return os.environ["ENCLAVE_ADDRESS"]


@pytest.fixture()
def client(address: str) -> Iterator[EnclaveClient]:
    with EnclaveClient(address) as c:
        yield c


def eventually(probe: Callable[[], Optional[T]], what: str, timeout: float = 60.0) -> T:
    """Polls probe until it returns something other than None; fails naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value is not None:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def unique(prefix: str) -> str:
    """A conversation id no earlier run against the same control plane took."""
    return f"{prefix}-{uuid.uuid4().hex[:8]}"
