"""A call's deadline covers its wait in the profile's write queue, and a SIGTERM stops an HTTP
server cleanly (exit 0)."""

from __future__ import annotations

import signal
import socket
import subprocess
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client

from graph.access import ConnectionSettings
from graph.localdb import free_port
from server.app import build_server
from tests.server.conftest import REVERIE, error_text, structured
from tests.server.test_recovery import relay, relayed_settings

pytestmark = pytest.mark.anyio

TIMEOUT_S = 5.0


async def test_remembers_queued_behind_a_stalled_group_fail_by_their_own_deadline(
    neo4j_settings: ConnectionSettings, profile_id: str
) -> None:
    settings, port, target = relayed_settings(neo4j_settings, profile_id)
    settings = settings.model_copy(update={"neo4j_timeout": TIMEOUT_S})
    async with Client(build_server(settings, "stdio")) as client, relay(port, target) as forwarding:
        structured(await client.call_tool("remember", {"content": "The ferry left at dawn."}))
        forwarding.freeze()
        waited: list[float] = []
        errors: list[str] = []

        async def remember(number: int) -> None:
            began = time.perf_counter()
            result = await client.call_tool("remember", {"content": f"Queued remember number {number}."})
            waited.append(time.perf_counter() - began)
            errors.append(error_text(result))

        async with anyio.create_task_group() as group:
            for number in range(6):
                group.start_soon(remember, number)
        forwarding.thaw()
    print(f"\nremembers on a frozen Neo4j failed after {', '.join(f'{s:.1f}' for s in sorted(waited))} s")
    assert all(f"did not answer within {TIMEOUT_S:.0f} s" in text for text in errors), errors
    # Those queued behind the first group used to wait out its deadline and then their own (10 s
    # here); the margin is wide, for a busy machine.
    assert max(waited) < 1.6 * TIMEOUT_S, waited


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def test_sigterm_stops_an_http_server_with_exit_0(server_env: dict[str, str], tmp_path: Path) -> None:
    port = free_port()
    env = {**server_env, "REVERIE_HOME": str(tmp_path / "home")}
    log = tmp_path / "server.log"
    command = [str(REVERIE), "serve", "--transport", "http", "--port", str(port), "--no-scheduler"]
    with log.open("wb") as out:
        server = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=out)
    try:
        deadline = time.monotonic() + 180
        while not _listening(port):
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
