"""The local Neo4j Reverie starts on demand stops once no Reverie process has used it for the
idle time, and starts again with the next one; a server started by hand keeps running."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from graph.localdb import LocalNeo4j
from graph.localdb.idle import USERS_DIR
from graph.localdb.memory import NAMED_SIZES

IDLE_S = 2.0
ROOT = Path(__file__).resolve().parents[2]
# A Reverie process as far as the local Neo4j is concerned: it uses the instance, says where the
# server answers, and lives until its stdin closes.
USER = """
import sys
from pathlib import Path
from graph.localdb import LocalNeo4j
from graph.localdb.memory import NAMED_SIZES
local = LocalNeo4j(Path(sys.argv[1]), sys.argv[2], NAMED_SIZES["small"])
print(local.use(float(sys.argv[3])).uri, flush=True)
sys.stdin.read()
"""


@pytest.fixture(scope="module")
def instance() -> Iterator[LocalNeo4j]:
    """One instance for the module: its first start creates the store and sets the password (a
    JVM run of its own), which each later start skips."""
    instance = LocalNeo4j(LocalNeo4j.default_home(), f"idle-{uuid.uuid4().hex[:8]}", NAMED_SIZES["small"])
    try:
        yield instance
    finally:
        instance.stop()
        shutil.rmtree(instance.instance_dir, ignore_errors=True)


# The user processes the running test started: one its failure left behind would count as a
# user of the next test's server.
_STARTED: list[subprocess.Popen[str]] = []


@pytest.fixture
def local(instance: LocalNeo4j) -> Iterator[LocalNeo4j]:
    """The module's instance, stopped, with an empty watcher log; stopped after, with every user
    the test started gone."""
    assert not instance.status().running
    instance.watcher_log.unlink(missing_ok=True)
    try:
        yield instance
    finally:
        for process in _STARTED:
            process.kill()
            process.wait(timeout=30)
        _STARTED.clear()
        instance.stop()


def _user(local: LocalNeo4j) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-c", USER, str(local.home), local.instance, str(IDLE_S)]
    process = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT
    )
    _STARTED.append(process)
    assert process.stdout is not None
    assert process.stdout.readline().startswith("bolt://"), "the user process could not reach Neo4j"
    return process


def _leave(process: subprocess.Popen[str]) -> None:
    assert process.stdin is not None
    process.stdin.close()
    assert process.wait(timeout=30) == 0


def _stopped_within(local: LocalNeo4j, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not local.status().running:
            return True
        time.sleep(0.25)
    return False


def _logged_within(local: LocalNeo4j, words: str, seconds: float) -> bool:
    """Whether the watcher's log says `words` within `seconds`: it writes why it ended right after
    the stop, so a test that has just seen the server gone may read the log a moment early."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if words in local.watcher_log.read_text():
            return True
        time.sleep(0.1)
    return False


def test_the_last_user_leaving_stops_neo4j_after_the_idle_time_and_the_next_starts_it(
    local: LocalNeo4j,
) -> None:
    first, second = _user(local), _user(local)
    pid = local.status().pid
    assert local.status().stop_when_idle_s == IDLE_S
    _leave(first)
    assert not _stopped_within(local, 2 * IDLE_S), "Neo4j stopped while a process still used it"
    assert local.status().pid == pid
    _leave(second)
    left = time.monotonic()
    assert _stopped_within(local, IDLE_S + 30), "Neo4j kept running with no process using it"
    assert time.monotonic() - left >= IDLE_S - 0.5, "Neo4j stopped before the idle time was out"
    assert _logged_within(local, "stopped Neo4j pid", 10), local.watcher_log.read_text()

    third = _user(local)
    assert local.status().running and local.status().pid != pid
    _leave(third)
    assert _stopped_within(local, IDLE_S + 30)


def test_a_killed_user_counts_as_gone(local: LocalNeo4j) -> None:
    user = _user(local)
    user.kill()
    user.wait(timeout=30)
    # Its lock file stays behind, unlocked, and is removed as a leftover.
    assert _stopped_within(local, IDLE_S + 30)
    assert not list((local.instance_dir / USERS_DIR).iterdir())


def test_a_server_started_by_hand_keeps_running_when_its_users_leave(local: LocalNeo4j) -> None:
    user = _user(local)
    local.start()  # `reverie neo4j start`, while the on-demand server runs
    assert local.status().stop_when_idle_s is None
    _leave(user)
    assert not _stopped_within(local, 3 * IDLE_S)
    assert _logged_within(local, "kept running", 10), local.watcher_log.read_text()
