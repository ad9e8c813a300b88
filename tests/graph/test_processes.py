"""Starting and stopping server processes: the loops graph/localdb and bench/processes share."""

from __future__ import annotations

import signal
import subprocess
import time

import pytest

from graph.localdb.processes import await_start, stop_process

pytestmark = pytest.mark.unit


def _spawn(script: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(["sh", "-c", script], stdin=subprocess.DEVNULL)


def test_a_process_that_obeys_sigterm_is_not_killed() -> None:
    process = _spawn("exec sleep 60")
    assert stop_process(process.pid, lambda: process.poll() is not None, grace=10)
    assert process.returncode == -signal.SIGTERM


def test_a_process_that_ignores_sigterm_is_killed_after_the_grace() -> None:
    process = _spawn("trap '' TERM; echo up; while :; do sleep 0.1; done")
    time.sleep(0.3)  # let the shell set its trap
    assert stop_process(process.pid, lambda: process.poll() is not None, grace=0.5)
    assert process.returncode == -signal.SIGKILL


def test_a_process_already_gone_is_never_signalled() -> None:
    process = _spawn("exit 7")
    process.wait()
    asked: list[bool] = []

    def gone() -> bool:
        asked.append(True)
        return True

    assert stop_process(process.pid, gone, grace=1)
    assert asked == [True]  # asked once, before any signal, then left alone


def test_a_start_ends_ready_exited_or_late() -> None:
    answers = iter([False, False, True])
    assert await_start(lambda: next(answers), lambda: True, seconds=10, interval=0.01) == "ready"
    assert await_start(lambda: True, lambda: False, seconds=10, interval=0.01) == "exited"
    assert await_start(lambda: False, lambda: True, seconds=0.2, interval=0.01) == "late"
