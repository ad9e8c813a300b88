"""An instance's small files: written whole or not at all, read back forgivingly, and the lock
that keeps two Reverie processes from starting or stopping one instance at once."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Final

from filelock import FileLock, Timeout

from graph.localdb.errors import LocalNeo4jError

LOCK_TIMEOUT: Final = 600.0
LOG_TAIL_LINES: Final = 40


@dataclass(frozen=True)
class RunState:
    """What the state file records about a server this instance launched."""

    pid: int
    port: int | None
    version: str
    started_at: str
    # Seconds unused after which the idle watcher stops it; None keeps it running until stopped.
    stop_when_idle_s: float | None = None


def atomic_write(path: Path, text: str, mode: int = 0o644) -> None:
    # A reader must never see half a file, so write aside and rename over.
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as handle:
            os.fchmod(handle.fileno(), mode)
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_state(path: Path, state: RunState) -> None:
    atomic_write(path, json.dumps(asdict(state), indent=2) + "\n")


def read_state(path: Path) -> RunState | None:
    # A missing, corrupt or hand-edited file just means "nothing known to run".
    try:
        data = json.loads(path.read_text())
        pid, port = data["pid"], data.get("port")
        version, started_at = data["version"], data["started_at"]
        idle = data.get("stop_when_idle_s")
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not (isinstance(pid, int) and pid > 0 and isinstance(version, str)):
        return None
    if not (port is None or isinstance(port, int)):
        return None
    idle = float(idle) if isinstance(idle, int | float) and idle > 0 else None
    return RunState(pid=pid, port=port, version=version, started_at=str(started_at), stop_when_idle_s=idle)


def tail(path: Path, offset: int = 0, lines: int = LOG_TAIL_LINES) -> str:
    try:
        with path.open("rb") as handle:
            handle.seek(offset)
            text = handle.read().decode(errors="replace")
    except OSError:
        return f"(no log at {path})"
    return "\n".join(text.splitlines()[-lines:]) or "(log is empty)"


@contextlib.contextmanager
def exclusive(path: Path, timeout: float = LOCK_TIMEOUT) -> Iterator[None]:
    """Hold an exclusive lock across processes, waiting at most `timeout` seconds for it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = FileLock(path)
    try:
        lock.acquire(timeout=timeout)
    except Timeout:
        raise LocalNeo4jError(
            f"gave up after {timeout:.0f}s waiting for {path}, held by another "
            "Reverie process starting or stopping Neo4j; retry when it is done"
        ) from None
    try:
        yield
    finally:
        lock.release()
