"""Stopping a local Neo4j that no Reverie process uses any more.

Every Reverie process that reaches the managed Neo4j (a stdio server per host window, an HTTP
server, the scheduler, a command) holds a lock file of its own under the instance's run/users
for as long as it lives. The operating system lets go of a lock when its process ends, however
it ends, so a held lock is a live user and nothing else is. When Reverie starts the server on
demand, it also starts a watcher (`python -m graph.localdb.watcher`) that stops the server once no
lock has been held for the idle time, and then exits; the next process starts the server again.
A server started with `reverie neo4j start`, or one at NEO4J_URI, is never watched.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Final

from filelock import FileLock, Timeout

USERS_DIR: Final = Path("run") / "users"
# A lock file is created a moment before it is locked (and a probe of a file its process has just
# removed creates it again); one unlocked for this long is a leftover, of a killed process too.
LEFTOVER_AFTER_S: Final = 5.0
_REGISTER_WAIT_S: Final = 10.0

_held: dict[Path, FileLock] = {}


def register_user(instance_dir: Path) -> None:
    """Count this process as a user of the instance until it exits (once per process)."""
    if instance_dir in _held:
        return
    users = instance_dir / USERS_DIR
    users.mkdir(parents=True, exist_ok=True)
    path = users / f"{os.getpid()}-{uuid.uuid4().hex[:8]}.lock"
    lock = FileLock(path)
    # A watcher may be testing this very file at this moment; it lets go at once.
    lock.acquire(timeout=_REGISTER_WAIT_S)
    _held[instance_dir] = lock
    atexit.register(_leave, instance_dir)


def _leave(instance_dir: Path) -> None:
    lock = _held.pop(instance_dir, None)
    if lock is not None:
        lock.release()
        # Released first: Windows refuses to remove an open file. A watcher may remove it first.
        with contextlib.suppress(OSError):
            Path(lock.lock_file).unlink(missing_ok=True)


def users(instance_dir: Path) -> int:
    """How many processes hold a lock now; the leftovers of killed ones are removed."""
    held = 0
    for path in sorted((instance_dir / USERS_DIR).glob("*.lock")):
        probe = FileLock(path)
        try:
            probe.acquire(timeout=0)
        except Timeout:
            held += 1
            continue
        probe.release()
        try:
            age = time.time() - path.stat().st_mtime
        except OSError:  # its process has just left and removed it
            continue
        if age < LEFTOVER_AFTER_S:
            held += 1  # just created, about to be locked
        else:  # names are never reused, so no process can be about to lock it
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)
    return held


def launch_watcher(home: Path, instance: str, pid: int, idle_seconds: float, log_file: Path) -> None:
    """Start the detached watcher of the server `pid`; its output goes to `log_file`."""
    argv = [sys.executable, "-m", "graph.localdb.watcher", str(home), instance, str(pid), str(idle_seconds)]
    with log_file.open("ab") as output:
        subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # a Ctrl-C or a closing host window must not end it
        )
