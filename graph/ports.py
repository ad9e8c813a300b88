"""Probing TCP ports: whether a listener could bind one now, and a free loopback port."""

from __future__ import annotations

import socket
from typing import Final

LOOPBACK: Final = "127.0.0.1"


def bind_problem(host: str, port: int) -> OSError | None:
    """Why a listener could not bind `host:port` right now, or None when it could."""
    try:
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM) as probe:
            # The option servers (Netty, uvicorn) bind with, so lingering TIME_WAIT sockets
            # don't count as busy.
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as error:
        return error
    return None


def free_port() -> int:
    """A loopback port the OS reports free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((LOOPBACK, 0))
        return int(sock.getsockname()[1])
