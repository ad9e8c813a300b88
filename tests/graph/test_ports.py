"""Port probes: a port is reported busy exactly while something is bound to it."""

from __future__ import annotations

import errno
import socket

import pytest

from graph.ports import bind_problem, free_port

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(("family", "host"), [(socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")])
def test_a_bound_port_is_busy_and_free_again_once_closed(family: socket.AddressFamily, host: str) -> None:
    with socket.socket(family, socket.SOCK_STREAM) as busy:
        busy.bind((host, 0))
        busy.listen()
        port = busy.getsockname()[1]
        problem = bind_problem(host, port)
        assert problem is not None and problem.errno == errno.EADDRINUSE
    assert bind_problem(host, port) is None


def test_a_free_port_can_be_bound_and_an_unknown_host_cannot() -> None:
    assert bind_problem("127.0.0.1", free_port()) is None
    assert bind_problem("host.invalid", free_port()) is not None
