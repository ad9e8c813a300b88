"""Server subprocesses the benchmark starts (Reverie over HTTP, the peer), always stopped again."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from graph.localdb import free_port
from graph.localdb.processes import await_start, stop_process

__all__ = ["RunningServer", "ServerStartError", "free_port", "serving"]

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


@contextmanager
def serving(command: list[str], env: Mapping[str, str], port: int, log_path: Path) -> Iterator[RunningServer]:
    """Run `command` until the block ends; yield once it accepts connections on `port`."""
    started = time.perf_counter()
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command, env=dict(env), stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT
        )
    try:
        outcome = await_start(lambda: _accepts(port), lambda: process.poll() is None, STARTUP_LIMIT_S, 0.1)
        if outcome == "exited":
            raise ServerStartError(
                f"{command[0]} exited with {process.returncode} before listening:\n{_tail(log_path)}"
            )
        if outcome == "late":
            raise ServerStartError(
                f"{command[0]} did not listen on {port} within {STARTUP_LIMIT_S:.0f}s:\n{_tail(log_path)}"
            )
        yield RunningServer(process.pid, port, log_path, time.perf_counter() - started)
    finally:
        if not stop_process(process.pid, lambda: process.poll() is not None, grace=15, kill_grace=15):
            raise RuntimeError(f"{command[0]} (pid {process.pid}) survived SIGKILL")
