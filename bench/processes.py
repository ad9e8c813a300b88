"""Server subprocesses the benchmark starts (Reverie over HTTP, the peer), always stopped again."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from graph.localdb import free_port
from graph.localdb.processes import await_start, stop_process

__all__ = ["RunningServer", "ServerStartError", "Started", "free_port", "serving", "watched"]

STARTUP_LIMIT_S = 90.0


class ServerStartError(RuntimeError):
    """A server subprocess exited or did not listen in time; the message carries its log tail."""


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def _tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


@dataclass(frozen=True)
class RunningServer:
    pid: int
    port: int
    log_path: Path
    startup_seconds: float


class Started(Protocol):
    """What `watched` needs of a started server: a `subprocess.Popen`, or another process with
    the same two members (the suite forks its servers, tests/forked.py)."""

    @property
    def pid(self) -> int: ...

    def poll(self) -> int | None: ...


@contextmanager
def serving(command: list[str], env: Mapping[str, str], port: int, log_path: Path) -> Iterator[RunningServer]:
    """Run `command` until the block ends; yield once it accepts connections on `port`."""
    started = time.perf_counter()
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command, env=dict(env), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT
        )
    with watched(process, command[0], port, log_path, started) as running:
        yield running


@contextmanager
def watched(
    process: Started, name: str, port: int, log_path: Path, started: float
) -> Iterator[RunningServer]:
    """`process` (started at perf_counter `started`, logging to `log_path`) once it accepts
    connections on `port`; stopped when the block ends."""
    try:
        outcome = await_start(lambda: _accepts(port), lambda: process.poll() is None, STARTUP_LIMIT_S, 0.1)
        if outcome == "exited":
            raise ServerStartError(
                f"{name} exited with {process.poll()} before listening:\n{_tail(log_path)}"
            )
        if outcome == "late":
            raise ServerStartError(
                f"{name} did not listen on {port} within {STARTUP_LIMIT_S:.0f}s:\n{_tail(log_path)}"
            )
        yield RunningServer(process.pid, port, log_path, time.perf_counter() - started)
    finally:
        if not stop_process(process.pid, lambda: process.poll() is not None, grace=15, kill_grace=15):
            raise RuntimeError(f"{name} (pid {process.pid}) survived SIGKILL")
