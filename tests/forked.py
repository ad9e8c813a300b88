"""`reverie` commands in processes forked from one that has already imported Reverie.

Before it does anything, a `reverie` process spends about 2 s of CPU importing the MCP SDK's
models, pydantic, the driver, the web stack and Reverie; the suite started about 130 of them,
the largest share of its CPU on two cores. A fork server (multiprocessing's) imports all that once
per test process, and each command then runs in a process of its own forked from it: its own
environment, arguments, working files for output, exit code and signals, as when the installed
command runs (a start that fails still exits 2, SIGTERM still stops a server). What this leaves
out, the console script and the interpreter's start, the tests of the installed command itself
cover: they still run `.venv/bin/reverie` (stdio servers, token commands run at once, the
packaging and install tests).
"""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from multiprocessing.process import BaseProcess
from pathlib import Path

from bench.processes import RunningServer, watched
from server.cli import main

_FORKS = multiprocessing.get_context("forkserver")
# What `reverie serve` imports besides server.cli (the serving commands load on demand), and
# the tools every server it builds shares.
_FORKS.set_forkserver_preload(["server.cli", "server.serve_cli", "tests.preloaded_tools"])
# Opened by each command for its output, as a shell's redirection would.
_OUTPUT_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_APPEND


def _reverie(arguments: Sequence[str], env: Mapping[str, str], stdout: Path, stderr: Path) -> None:
    """The forked process: `reverie ARGUMENTS` with exactly `env`, output to the two files (one
    file may be both). Standard input is /dev/null, as multiprocessing leaves it."""
    os.environ.clear()
    os.environ.update(env)
    for descriptor, path in ((1, stdout), (2, stderr)):
        opened = os.open(path, _OUTPUT_FLAGS, 0o600)
        os.dup2(opened, descriptor)
        os.close(opened)
    main(list(arguments))


class ForkedReverie:
    """A forked `reverie`, with the two members of `subprocess.Popen` that `watched` uses."""

    def __init__(self, process: BaseProcess) -> None:
        self._process = process

    @property
    def pid(self) -> int:
        pid = self._process.pid
        assert pid is not None, "started before it is handed out"
        return pid

    def poll(self) -> int | None:
        return None if self._process.is_alive() else self._process.exitcode


def _fork(arguments: Sequence[str], env: Mapping[str, str], stdout: Path, stderr: Path) -> BaseProcess:
    process = _FORKS.Process(target=_reverie, args=(list(arguments), dict(env), stdout, stderr))
    process.start()
    return process


def run_forked(env: Mapping[str, str], *arguments: str, timeout: float) -> subprocess.CompletedProcess[str]:
    """`reverie ARGUMENTS` to its end: exit code and output as `subprocess.run` gives them; one
    still running after `timeout` seconds is killed and raises `subprocess.TimeoutExpired`."""
    with tempfile.TemporaryDirectory(prefix="reverie-") as folder:
        stdout, stderr = Path(folder) / "stdout", Path(folder) / "stderr"
        process = _fork(arguments, env, stdout, stderr)
        process.join(timeout)
        if process.is_alive():
            process.kill()
            process.join()
            raise subprocess.TimeoutExpired(["reverie", *arguments], timeout)
        assert process.exitcode is not None
        return subprocess.CompletedProcess(
            ["reverie", *arguments],
            process.exitcode,
            stdout.read_text(errors="replace"),
            stderr.read_text(errors="replace"),
        )


@contextmanager
def serving_forked(
    arguments: Sequence[str], env: Mapping[str, str], port: int, log: Path
) -> Iterator[RunningServer]:
    """`reverie ARGUMENTS` (a server listening on `port`, both output streams in `log`) for the
    block, stopped at its end as `bench.processes.serving` stops one."""
    started = time.perf_counter()
    process = ForkedReverie(_fork(arguments, env, log, log))
    with watched(process, "reverie", port, log, started) as running:
        yield running
