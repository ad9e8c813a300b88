"""A call's deadline covers its wait in the profile's write queue, and a SIGTERM stops an HTTP
server cleanly (exit 0)."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import anyio
import pytest

from graph.access import ConnectionSettings, GraphStore
from graph.errors import GraphTimeoutError
from graph.localdb import free_port
from tests.graph.memory_support import say
from tests.server.conftest import REVERIE
from tests.server.support import INITIALIZE
from tests.server.test_recovery import relay, relayed_settings

pytestmark = pytest.mark.anyio

TIMEOUT_S = 5.0


async def test_remembers_queued_behind_a_stalled_group_fail_by_their_own_deadline(
    neo4j_settings: ConnectionSettings, profile_id: str
) -> None:
    settings, port, target = relayed_settings(neo4j_settings, profile_id)
    connection = replace(neo4j_settings, uri=settings.neo4j_uri, call_timeout_s=TIMEOUT_S)
    store = GraphStore.connect(connection)
    graph = store.profile(profile_id)
    waited: list[float] = []
    errors: list[str] = []

    async def remember(number: int) -> None:
        began = time.perf_counter()
        with pytest.raises(GraphTimeoutError) as error:
            await say(graph, f"Queued remember number {number}.")
        waited.append(time.perf_counter() - began)
        errors.append(str(error.value))

    try:
        async with relay(port, target) as forwarding:
            await say(graph, "The ferry left at dawn.")  # connections open, then held
            forwarding.freeze()
            # Straight into the profile's group-commit queue: the first runs and stalls, the
            # others wait behind it.
            async with anyio.create_task_group() as group:
                for number in range(6):
                    group.start_soon(remember, number)
                    await anyio.sleep(0.5)  # the first in a group of its own, the others queued
    finally:
        await store.close()
    print(f"\nremembers on a frozen Neo4j failed after {', '.join(f'{s:.1f}' for s in sorted(waited))} s")
    assert all(f"did not answer within {TIMEOUT_S:.0f} s" in text for text in errors), errors
    # Those queued behind the first used to wait out its deadline and then their own (10 s
    # here); the margin is wide, for a busy machine.
    assert max(waited) < 1.6 * TIMEOUT_S, waited


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def _stopped_by_sigterm(server: subprocess.Popen[bytes], log: Path, ready: Callable[[], bool]) -> None:
    """SIGTERM once `ready()`: the server must exit 0 and log no traceback."""
    try:
        deadline = time.monotonic() + 180
        while not ready():
            assert server.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        server.send_signal(signal.SIGTERM)
        code = server.wait(timeout=60)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    output = log.read_text()
    assert code == 0, output
    assert "Traceback" not in output, output


def test_sigterm_stops_an_http_server_with_exit_0(server_env: dict[str, str], tmp_path: Path) -> None:
    port = free_port()
    env = {**server_env, "REVERIE_HOME": str(tmp_path / "home")}
    log = tmp_path / "server.log"
    command = [str(REVERIE), "serve", "--transport", "http", "--port", str(port), "--no-scheduler"]
    with log.open("wb") as out:
        server = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=out)
    _stopped_by_sigterm(server, log, lambda: _listening(port))


def test_sigterm_stops_a_stdio_server_with_exit_0(server_env: dict[str, str], tmp_path: Path) -> None:
    env = {**server_env, "REVERIE_HOME": str(tmp_path / "home")}
    log = tmp_path / "server.log"
    with log.open("wb") as errors:
        server = subprocess.Popen(
            [str(REVERIE), "serve"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors
        )

    def answering() -> bool:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write((json.dumps(INITIALIZE) + "\n").encode())
        server.stdin.flush()
        return bool(json.loads(server.stdout.readline())["id"] == INITIALIZE["id"])

    _stopped_by_sigterm(server, log, answering)
