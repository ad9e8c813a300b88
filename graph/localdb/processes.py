"""The server's process: launching it detached, telling it from other processes, and ending it.

A pid in a state file may be dead, a zombie, or reused by another program; only a live process
whose command line names this instance's home counts as the instance's server.
"""

from __future__ import annotations

import contextlib
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Final, Literal

import psutil

from graph.localdb.config import SERVER_CLASSES
from graph.localdb.errors import LocalNeo4jError

# Neo4j's own codes. On a direct call nearly every failure comes out as 1 (a store locked by
# another process and an unknown setting both did here), so the log tail is what explains it.
_EXIT_MEANINGS: Final = {
    1: "startup failed (store locked by another process, unknown setting, port taken, ...)",
    2: "the database failed to start",
    3: "the configuration is invalid",
}

# Popen objects of servers this process launched: keeps them from being collected (which warns
# "still running") and lets us read the exit code and reap zombies.
_CHILDREN: dict[int, subprocess.Popen[bytes]] = {}


def launch(command: list[str], cwd: Path, env: dict[str, str], log: IO[bytes]) -> int:
    """Start `command` in its own session (a Ctrl-C aimed at the caller must not reach the
    server), its output appended to `log`; return its pid."""
    proc = subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    _CHILDREN[proc.pid] = proc
    return proc.pid


def _home_argument(instance_dir: Path) -> str:
    return f"--home-dir={instance_dir}"


def is_neo4j_process(pid: int, instance_dir: Path) -> bool:
    """True if pid is a live server of this instance; false for dead, zombie or reused pids."""
    child = _CHILDREN.get(pid)
    if child is not None:
        # Our own child: its exit status and launch arguments are the truth. Its command line is
        # the parent's until it has exec'd java, which would make it look foreign.
        launched = [str(arg) for arg in child.args] if isinstance(child.args, list) else []
        return child.poll() is None and _home_argument(instance_dir) in launched
    try:
        process = psutil.Process(pid)
        with process.oneshot():
            if process.status() == psutil.STATUS_ZOMBIE:
                return False
            argv = process.cmdline()
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
        return False
    return any(name in argv for name in SERVER_CLASSES) and _home_argument(instance_dir) in argv


def find_server(instance_dir: Path) -> int | None:
    """A server of this instance whose state file was lost, so a second one is never launched
    on its store."""
    home = _home_argument(instance_dir)
    for process in psutil.process_iter(["cmdline"]):
        argv = process.info["cmdline"] or []
        if home in argv and is_neo4j_process(process.pid, instance_dir):
            return process.pid
    return None


def exit_meaning(pid: int) -> str:
    """Why a server this process launched has exited, as far as its exit code says."""
    child = _CHILDREN.get(pid)
    code = None
    if child is not None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            code = child.wait(timeout=5)
    if code is None:
        return "exited with an unknown code"
    return f"exited with code {code}: {_EXIT_MEANINGS.get(code, 'see the log below')}"


def terminate(pid: int, instance_dir: Path, timeout: float) -> None:
    """SIGTERM runs Neo4j's shutdown hook (checkpoint, clean store); SIGKILL is the fallback."""
    if not stop_process(pid, lambda: not is_neo4j_process(pid, instance_dir), timeout):
        raise LocalNeo4jError(f"Neo4j pid {pid} survived SIGKILL; check it with `ps -p {pid}`")
    _CHILDREN.pop(pid, None)


def _poll_until(condition: Callable[[], bool], seconds: float, interval: float = 0.1) -> bool:
    """Whether `condition()` held within `seconds`, asked every `interval` seconds."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(interval)
    return True


def stop_process(pid: int, gone: Callable[[], bool], grace: float, kill_grace: float = 10.0) -> bool:
    """SIGTERM to `pid`, SIGKILL when it is not `gone()` within `grace` seconds; whether it went.

    `gone` is the caller's own test (its Popen's exit status, or that the pid no longer runs
    the caller's program), so a pid the system has handed to another program counts as gone
    and is never signalled.
    """
    if gone():
        return True
    for send, wait in ((psutil.Process.terminate, grace), (psutil.Process.kill, kill_grace)):
        with contextlib.suppress(psutil.NoSuchProcess):
            send(psutil.Process(pid))
        if _poll_until(gone, wait):
            return True
    return False


def await_start(
    ready: Callable[[], bool], running: Callable[[], bool], seconds: float, interval: float
) -> Literal["ready", "exited", "late"]:
    """How a starting server ended up: `ready()`, no longer `running()`, or neither in time."""
    deadline = time.monotonic() + seconds
    while True:
        if not running():
            return "exited"
        if ready():
            return "ready"
        if time.monotonic() > deadline:
            return "late"
        time.sleep(interval)
