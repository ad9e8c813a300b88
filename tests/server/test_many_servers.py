"""Several `reverie serve --transport http` processes on one Neo4j: any of them answers any call.

A memory acknowledged by one process is found by meaning through another at once, even while
the first has not written its vector yet (it is frozen here, right after the acknowledgement).
"""

from __future__ import annotations

import json
import os
import signal
from collections.abc import AsyncIterator, Iterator
from contextlib import ExitStack, asynccontextmanager, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.client import ConnectMode
from mcp.client.streamable_http import streamable_http_client
from mcp_types import (
    CLIENT_CAPABILITIES_META_KEY,
    CLIENT_INFO_META_KEY,
    PROTOCOL_VERSION_META_KEY,
    CallToolResult,
)

from bench.balancer import BACKEND_HEADER, BalancerMissingError, balancing, haproxy_path
from bench.processes import free_port
from graph.access import ConnectionSettings
from graph.localdb import LocalNeo4j
from tests.server.conftest import (
    CallTool,
    HttpServer,
    caller,
    error_text,
    http_mcp,
    http_serving,
    signals_once_written,
    tokens_for,
)
from tests.server.support import MCP_HEADERS, MEMORIES, database
from tests.server.test_dream_sampling import Answer, dream_phase, judged, text_answer

pytestmark = pytest.mark.anyio

PUPPY = "We adopted a puppy named Biscuit last spring."
# Shares no word with PUPPY: only the semantic lane can find it.
DOG_QUESTION = "Does the person own a dog?"


@contextmanager
def servers(
    server_env: dict[str, str], profile_id: str, tmp_path: Path, count: int, **extra_env: str
) -> Iterator[list[HttpServer]]:
    """`count` HTTP servers on the suite's Neo4j, accepting the same tokens, with the model the
    suite provisioned."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "models").symlink_to(LocalNeo4j.default_home() / "models")
    tokens = tokens_for(profile_id, tmp_path / "tokens.json")
    with ExitStack() as stack:
        yield [
            stack.enter_context(
                http_serving(server_env, profile_id, tmp_path, tokens, name=f"server-{n}", **extra_env)
            )
            for n in range(count)
        ]


@contextmanager
def frozen(server: HttpServer) -> Iterator[None]:
    """The server's process stopped (SIGSTOP) for the block: its queued vectors wait."""
    os.kill(server.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(server.pid, signal.SIGCONT)


async def store(call: CallTool, content: str, key: str | None = None) -> None:
    await call("remember", content=content, idempotency_key=key)


async def due(settings: ConnectionSettings, profile_id: str) -> int:
    rows = await database(
        settings,
        "MATCH (n:Recallable {profile_id: $profile_id}) WHERE n.vector_due IS NOT NULL "
        "RETURN count(n) AS due",
        profile_id=profile_id,
    )
    return int(rows[0]["due"])


async def test_a_memory_remembered_through_one_process_is_recalled_by_meaning_through_another(
    server_env: dict[str, str], profile_id: str, tmp_path: Path, neo4j_settings: ConnectionSettings
) -> None:
    with servers(server_env, profile_id, tmp_path, 2) as (first, second):
        async with (
            http_mcp(first, first.write_token) as writer,
            http_mcp(first, first.other_profile_token) as neighbour,
            http_mcp(second, second.write_token) as reader,
        ):
            remember, remember_elsewhere = caller(writer), caller(neighbour)
            # Bursts of 49 keep the first process's model busy past the acknowledgements, also
            # on a quiet machine (with 13, a run once failed after the load eased).
            burst = [f"{memory} (take {take})" for take in range(4) for memory in MEMORIES]
            async with anyio.create_task_group() as group:
                for content in [*burst, PUPPY]:
                    group.start_soon(store, remember, content)
                    group.start_soon(store, remember_elsewhere, content)
            with frozen(first):
                owed = await due(neo4j_settings, profile_id)
                owed_elsewhere = await due(neo4j_settings, f"{profile_id}-other")
                assert owed and owed_elsewhere, "the first process wrote the vectors before it was frozen"
                found = await caller(reader)("recall_memory", query=DOG_QUESTION, limit=1)
                assert [(item["text"], item["lanes"]) for item in found["results"]] == [(PUPPY, ["semantic"])]
                # The recall wrote this profile's owed vectors, and only this profile's.
                assert await due(neo4j_settings, profile_id) == 0
                assert await due(neo4j_settings, f"{profile_id}-other") == owed_elsewhere


# --- a recall delivered again ----------------------------------------------------------------

BIKE = "Ada commutes by bicycle along the canal."
BIKE_QUESTION = "How does Ada get to the office?"


def recall_request(request_id: int) -> bytes:
    """A `recall_memory` call of protocol 2026-07-28 as a client sends it, byte for byte."""
    meta = {
        PROTOCOL_VERSION_META_KEY: "2026-07-28",
        CLIENT_CAPABILITIES_META_KEY: {},
        CLIENT_INFO_META_KEY: {"name": "reverie-tests", "version": "0"},
    }
    arguments = {"query": BIKE_QUESTION, "limit": 1}
    params = {"name": "recall_memory", "arguments": arguments, "_meta": meta}
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}).encode()


async def deliver(server: HttpServer, body: bytes) -> None:
    headers = {
        **MCP_HEADERS,
        "Authorization": f"Bearer {server.write_token}",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "tools/call",
        "Mcp-Name": "recall_memory",
    }
    async with httpx2.AsyncClient(timeout=30) as http:
        response = await http.post(server.url, content=body, headers=headers)
    assert response.status_code == 200, response.text
    assert BIKE in response.text, response.text


async def test_a_recall_delivered_again_counts_once_on_the_same_and_on_another_process(
    server_env: dict[str, str], profile_id: str, tmp_path: Path
) -> None:
    """What a balancer's retry does (the same request, the same token), to the process that
    answered and to the other; then another request asking the same question."""
    with servers(server_env, profile_id, tmp_path, 2) as (first, second):
        async with http_mcp(first, first.write_token) as client:
            call = caller(client)
            await call("remember", content=BIKE)
            for server in (first, second, first):
                await deliver(server, recall_request(41))
            await deliver(second, recall_request(42))
            await signals_once_written(call, 2)
            await anyio.sleep(2)  # each process writes its signals half a second after the recall
            signals = (await call("reflect_memories"))["recall"]
    assert [asked["query"] for asked in signals["recent_questions"]] == [BIKE_QUESTION] * 2
    assert [(memory["text"], memory["recall_count"]) for memory in signals["most_recalled"]] == [(BIKE, 2)]


# --- behind HAProxy -------------------------------------------------------------------------


@dataclass
class Answered:
    """Which process answered each tool call through the balancer, and in which session."""

    calls: list[tuple[str, str, str | None]] = field(default_factory=list)

    async def record(self, response: httpx2.Response) -> None:
        message = json.loads(response.request.content or b"{}")
        if isinstance(message, dict) and message.get("method") == "tools/call":
            session = response.request.headers.get("mcp-session-id")
            self.calls.append((message["params"]["name"], response.headers[BACKEND_HEADER], session))

    def backends(self, tool: str) -> set[str]:
        return {backend for name, backend, _ in self.calls if name == tool}

    def crossed(self, first: str, then: str) -> bool:
        """Whether a process that did not answer `first` answered `then`."""
        return bool(self.backends(then) - self.backends(first))


@dataclass(frozen=True)
class Balanced:
    front: HttpServer  # the balancer, with the servers' tokens
    backends: list[HttpServer]


@contextmanager
def balanced(
    server_env: dict[str, str], profile_id: str, tmp_path: Path, count: int, **extra_env: str
) -> Iterator[Balanced]:
    """`count` servers behind HAProxy, with `extra_env` in their environment."""
    try:
        haproxy_path()
    except BalancerMissingError as missing:
        pytest.fail(str(missing))
    port = free_port()
    allowed = {"REVERIE_ALLOWED_HOSTS": f"127.0.0.1:{port}", **extra_env}
    with (
        servers(server_env, profile_id, tmp_path, count, **allowed) as backends,
        balancing([backend.port for backend in backends], tmp_path, port) as balancer,
    ):
        yield Balanced(
            replace(backends[0], base=balancer.base, log=tmp_path / "haproxy.log", pid=0), backends
        )


@asynccontextmanager
async def balanced_mcp(
    front: HttpServer, answered: Answered, mode: ConnectMode = "auto", **options: Any
) -> AsyncIterator[Client]:
    """A client of the balancer whose answers are recorded in `answered`; `options` go to `Client`."""
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {front.write_token}"},
        timeout=httpx2.Timeout(30, read=300),
        event_hooks={"response": [answered.record]},
    )
    async with (
        http,
        Client(streamable_http_client(front.url, http_client=http), mode=mode, **options) as client,
    ):
        yield client


@asynccontextmanager
async def two_clients(
    front: HttpServer, answered: Answered, mode: ConnectMode
) -> AsyncIterator[tuple[Client, Client]]:
    async with balanced_mcp(front, answered, mode) as first, balanced_mcp(front, answered, mode) as second:
        yield first, second


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_through_the_balancer_one_process_recalls_what_another_remembered(
    server_env: dict[str, str], profile_id: str, tmp_path: Path, mode: ConnectMode
) -> None:
    answered = Answered()
    with balanced(server_env, profile_id, tmp_path, 2) as served:
        async with two_clients(served.front, answered, mode) as (first, second):
            await caller(first)("remember", content=PUPPY)
            # Round robin alternates requests (the client's own tools/list among them), and the
            # second session lives on the other process (handshake era): within a few recalls,
            # one reaches the process that did not remember.
            found: list[dict[str, Any]] = []
            while len(found) < 4 and not answered.crossed("remember", "recall_memory"):
                found.append(await caller(second)("recall_memory", query=DOG_QUESTION, limit=1))
    for recalled in found:
        assert [(item["text"], item["lanes"]) for item in recalled["results"]] == [(PUPPY, ["semantic"])]
    assert answered.crossed("remember", "recall_memory"), f"nothing crossed: {answered.calls}"
    if mode == "legacy":
        # Affinity: each session's calls reach the process that opened it.
        by_session: dict[str | None, set[str]] = {}
        for _, backend, session in answered.calls:
            by_session.setdefault(session, set()).add(backend)
        assert None not in by_session and all(len(backends) == 1 for backends in by_session.values())


async def test_a_cycle_asked_on_two_processes_at_once_runs_once(
    server_env: dict[str, str], profile_id: str, tmp_path: Path, neo4j_settings: ConnectionSettings
) -> None:
    answered = Answered()
    with balanced(server_env, profile_id, tmp_path, 2) as served:
        # Two sessions of the handshake era: each lives on its own process.
        async with two_clients(served.front, answered, "legacy") as (first, second):
            for content in MEMORIES:
                await caller(first)("remember", content=content)
            outcomes: list[CallToolResult] = []

            async def cycle(client: Client) -> None:
                outcomes.append(await client.call_tool("run_dreaming_cycle", {}))

            async with anyio.create_task_group() as group:
                group.start_soon(cycle, first)
                group.start_soon(cycle, second)
    assert len(answered.backends("run_dreaming_cycle")) == 2, answered.calls
    refused = [error_text(outcome) for outcome in outcomes if outcome.is_error]
    assert len(refused) == 1 and "already running" in refused[0], refused
    runs = await database(
        neo4j_settings,
        "MATCH (r:DreamRun {profile_id: $profile_id}) RETURN r.status AS status",
        profile_id=profile_id,
    )
    assert [run["status"] for run in runs] == ["completed"]


async def remember_surely(front: HttpServer, answered: Answered, key: str, content: str) -> None:
    """remember through the balancer until it is acknowledged (five tries), each time with `key`
    and on a new connection, as a host whose call failed would send it again."""
    for attempt in range(5):
        try:
            async with balanced_mcp(front, answered) as client:
                await store(caller(client), content, key)
                return
        except Exception:
            if attempt == 4:
                raise
            await anyio.sleep(0.5)


async def test_a_process_killed_mid_load_loses_no_acknowledged_remember_and_doubles_none(
    server_env: dict[str, str], profile_id: str, tmp_path: Path, neo4j_settings: ConnectionSettings
) -> None:
    """Remembers with idempotency keys through the balancer; one process is killed (SIGKILL)
    after a third of them are acknowledged. The balancer sends again what got no answer, and a
    client sends again what failed, with the same key: each memory is stored once."""
    contents = {f"load-{index}": f"{MEMORIES[index % len(MEMORIES)]} (note {index})" for index in range(36)}
    contents["load-puppy"] = PUPPY
    acknowledged: list[str] = []
    answered = Answered()
    with balanced(server_env, profile_id, tmp_path, 2) as served:

        async def worker(keys: list[str]) -> None:
            for key in keys:
                await remember_surely(served.front, answered, key, contents[key])
                acknowledged.append(key)
                if len(acknowledged) == len(contents) // 3:
                    os.kill(served.backends[0].pid, signal.SIGKILL)

        keys = list(contents)
        async with anyio.create_task_group() as group:
            for start in range(4):
                group.start_soon(worker, keys[start::4])
        async with balanced_mcp(served.front, answered) as client:
            found = await caller(client)("recall_memory", query=DOG_QUESTION, limit=1)
    assert sorted(acknowledged) == sorted(contents)
    rows = await database(
        neo4j_settings,
        "MATCH (f:SourceFragment {profile_id: $profile_id}) "
        "RETURN f.idempotency_key AS key, count(*) AS stored",
        profile_id=profile_id,
    )
    assert {row["key"]: row["stored"] for row in rows} == dict.fromkeys(contents, 1)
    assert [item["text"] for item in found["results"]] == [PUPPY]


async def test_on_protocol_2026_07_28_a_dream_asked_in_rounds_finishes_on_another_process(
    server_env: dict[str, str], profile_id: str, tmp_path: Path
) -> None:
    """The first round of a sampled cycle is answered by one process, the client's retry with
    the answers by the other: the processes share REVERIE_REQUEST_STATE_KEY, so the state the
    first sealed is read by the second."""

    async def sampling(context: object, params: object) -> Answer:
        return text_answer(judged(True), "http-model")

    answered = Answered()
    shared = {"REVERIE_REQUEST_STATE_KEY": "a-secret-every-process-of-this-deployment-shares"}
    with balanced(server_env, profile_id, tmp_path, 2, **shared) as served:
        async with balanced_mcp(served.front, answered, sampling_callback=sampling) as client:
            for content in MEMORIES:
                await caller(client)("remember", content=content)
            result = await dream_phase(client)
    assert answered.backends("run_dreaming_cycle") == {"s0", "s1"}, answered.calls
    assert result["counts"]["host_model_phrased"] == result["counts"]["new_dreams"] >= 1
