"""Neo4j going away and coming back, through a TCP relay the test can cut and restore."""

from __future__ import annotations

import socket
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import urlparse

import anyio
import pytest
from anyio.abc import SocketStream, TaskStatus
from mcp import Client

from graph.access import ConnectionSettings
from graph.localdb import free_port
from server.app import build_server
from server.settings import ReverieSettings
from tests.server.conftest import error_text, run_reverie, structured
from tests.server.support import start_failure

pytestmark = pytest.mark.anyio


class Relay:
    """Forwards 127.0.0.1:port to the real Neo4j; `freeze()` makes it hold every byte while the
    connections stay open, which is what a Neo4j stopped with SIGSTOP looks like to a client."""

    def __init__(self) -> None:
        self.thawed = anyio.Event()
        self.thawed.set()

    def freeze(self) -> None:
        self.thawed = anyio.Event()

    def thaw(self) -> None:
        self.thawed.set()

    async def pipe(self, source: SocketStream, sink: SocketStream) -> None:
        try:
            async for chunk in source:
                await self.thawed.wait()
                await sink.send(chunk)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, anyio.EndOfStream, OSError):
            pass
        finally:
            await sink.aclose()


@asynccontextmanager
async def relay(port: int, target_port: int) -> AsyncIterator[Relay]:
    """A relay to the real Neo4j until the block exits (then the port is closed)."""
    forwarding = Relay()

    async def handle(client: SocketStream) -> None:
        upstream = await anyio.connect_tcp("127.0.0.1", target_port)
        async with client, upstream, anyio.create_task_group() as pumps:
            pumps.start_soon(forwarding.pipe, client, upstream)
            pumps.start_soon(forwarding.pipe, upstream, client)

    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=port)
    async with listener, anyio.create_task_group() as group:
        group.start_soon(listener.serve, handle)
        try:
            yield forwarding
        finally:
            # Cutting the relay also cuts the connections the driver holds through it.
            forwarding.thaw()
            group.cancel_scope.cancel()


def relayed_settings(neo4j_settings: ConnectionSettings, profile_id: str) -> tuple[ReverieSettings, int, int]:
    """Settings that reach the real Neo4j through a relay on a free port: those settings, the
    relay's port and the real Neo4j's port."""
    port = free_port()
    target = urlparse(neo4j_settings.uri).port
    assert target is not None
    settings = ReverieSettings(
        neo4j_uri=f"bolt://127.0.0.1:{port}",
        neo4j_username=neo4j_settings.username,
        neo4j_password=neo4j_settings.password,
        reverie_profile=profile_id,
    )
    return settings, port, target


async def test_a_tool_call_fails_clearly_while_neo4j_is_down_and_works_once_it_is_back(
    neo4j_settings: ConnectionSettings, profile_id: str
) -> None:
    settings, port, target = relayed_settings(neo4j_settings, profile_id)
    # Once back, Neo4j stays until the server has stopped, so the writes a stop finishes (vectors,
    # recall signals) succeed. Left down, they fail with a logged warning, and the stop may cancel
    # a refused connection attempt whose error the driver then leaves uncollected (its wait_for
    # re-raises the cancellation without reading the finished attempt), which fails a test.
    async with anyio.create_task_group() as back:
        async with Client(build_server(settings, "stdio")) as client:
            async with relay(port, target):
                stored = structured(await client.call_tool("remember", {"content": "The relay is up."}))
                # A recall waits for the memory's vector, written just after the remember returns:
                # left for the outage, its write would be the keeper's retries, not this test's.
                structured(await client.call_tool("recall_memory", {"query": "relay"}))
            down = error_text(await client.call_tool("recall_memory", {"query": "relay"}))
            assert settings.neo4j_uri in down and "cannot be reached" in down
            await back.start(_relaying, port, target)
            found = structured(await client.call_tool("recall_memory", {"query": "relay"}))
        back.cancel_scope.cancel()
    assert [item["id"] for item in found["results"]] == [stored["fragment"]["id"]]


async def _relaying(port: int, target: int, *, task_status: TaskStatus[None]) -> None:
    async with relay(port, target):
        task_status.started()
        await anyio.sleep_forever()


async def test_a_frozen_neo4j_fails_a_call_within_seconds_and_the_next_call_works_once_it_thaws(
    neo4j_settings: ConnectionSettings, profile_id: str
) -> None:
    settings, port, target = relayed_settings(neo4j_settings, profile_id)
    settings = settings.model_copy(update={"neo4j_timeout": 3.0})
    async with Client(build_server(settings, "stdio")) as client, relay(port, target) as forwarding:
        stored = structured(await client.call_tool("remember", {"content": "The glacier moved."}))
        # A recall first, so that the driver holds idle connections: a frozen server keeps them
        # open, and a call sent on one waits for an answer that never comes.
        structured(await client.call_tool("recall_memory", {"query": "glacier"}))
        forwarding.freeze()
        began = time.perf_counter()
        frozen = error_text(await client.call_tool("recall_memory", {"query": "glacier"}))
        waited = time.perf_counter() - began
        print(f"\nfrozen Neo4j: the call failed after {waited:.1f} s")
        assert settings.neo4j_uri in frozen and "did not answer within 3 s" in frozen, frozen
        assert "internal error" not in frozen
        forwarding.thaw()
        found = structured(await client.call_tool("recall_memory", {"query": "glacier"}))
    assert [item["id"] for item in found["results"]] == [stored["fragment"]["id"]]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("DREAMING_MAX_OUTPUTS", "99"),
        ("DREAMING_START_TIME_LOCAL", "3am"),
        ("DREAMING_TIMEZONE", "Mars/Olympus_Mons"),
        ("DREAMING_ENABLED", "perhaps"),
    ],
)
def test_a_malformed_setting_stops_the_start_and_names_it(name: str, value: str) -> None:
    done = run_reverie(
        {"PATH": "/usr/bin:/bin", "HOME": str(Path.home()), name: value}, "scheduler", timeout=60
    )
    assert done.returncode == 2
    assert name in done.stderr, done.stderr


@pytest.mark.parametrize(
    ("value", "named"),
    [
        ("not a uri", "NEO4J_URI"),
        ("http://127.0.0.1:7474", "Bolt URI"),
        ("bolt://", "NEO4J_URI"),
        # The driver refused these with a traceback, or ignored the path.
        ("bolt://127.0.0.1:99999", "a port from 0 to 65535"),
        ("bolt://127.0.0.1:abc", "a port from 0 to 65535"),
        ("bolt://127.0.0.1:7687/neo4j", "NEO4J_DATABASE"),
        ("bolt://127.0.0.1:7687?policy=eu", "only neo4j:// URIs take a query"),
        ("neo4j://127.0.0.1:7687?policy=eu&policy=us", "each key once"),
    ],
)
def test_a_malformed_uri_stops_the_start(server_env: dict[str, str], value: str, named: str) -> None:
    assert named in start_failure({**server_env, "NEO4J_URI": value})


def test_a_database_that_does_not_exist_stops_the_start(server_env: dict[str, str]) -> None:
    text = start_failure({**server_env, "NEO4J_DATABASE": "nosuchdb"}, "--transport", "http", "--port", "0")
    assert "no database 'nosuchdb'" in text and "NEO4J_DATABASE" in text


@pytest.mark.parametrize("kind", ["a directory", "not UTF-8"])
def test_an_unreadable_token_file_stops_the_start(
    server_env: dict[str, str], tmp_path: Path, kind: str
) -> None:
    tokens = tmp_path / "tokens"
    if kind == "a directory":
        tokens.mkdir()
    else:
        tokens.write_bytes(b"\xff\xfe{")
    text = start_failure(
        {**server_env, "REVERIE_TOKENS_FILE": str(tokens)}, "--transport", "http", "--port", "0"
    )
    assert str(tokens) in text and "REVERIE_TOKENS_FILE" in text


def test_a_busy_port_stops_the_start_before_any_token_is_printed(server_env: dict[str, str]) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        text = start_failure(server_env, "--transport", "http", "--port", str(port))
    assert f"127.0.0.1:{port}" in text and "--port" in text
