"""The peer: Neo4j Labs' `mcp-neo4j-memory`, installed in its own venv and run beside Reverie.

How it stores memory (read from its 0.4.5 source): one `:Memory` node per entity, with `name`,
`type` and a list property `observations`, plus the entity type as a second label; a fulltext
index `search` over name, type and observations; `search_memories(query)` passes the query to
that index as raw Lucene, with no limit, and returns every matching entity with all its
observations and relations. It has no profiles, so it gets only the measured profile's
memories: each memory becomes an observation of the entity it is mainly about. Reverie never
uses the `:Memory` label, so the two share the bench database without touching each other;
the peer's nodes are deleted before each load.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp import Client
from neo4j import AsyncDriver

from bench.corpus import Memory
from bench.processes import RunningServer, free_port, serving
from bench.stats import Stopwatch
from graph.access import ConnectionSettings

PEER_PACKAGE = "mcp-neo4j-memory"
PEER_VERSION = "0.4.5"
PEER_VENV = Path.home() / ".cache" / "reverie" / "bench-peer-venv"
PEER_PATH = "/mcp/"
# Entities per create_entities call during the bulk load, and observations per call at most.
ENTITY_BATCH = 200
OBSERVATION_BATCH = 5_000


class PeerUnavailableError(RuntimeError):
    """The peer could not be installed or started; the message says exactly why."""


def peer_executable() -> Path:
    return PEER_VENV / "bin" / "mcp-neo4j-memory"


def ensure_installed() -> str:
    """Install the pinned peer into its own venv (never Reverie's); return its version."""
    python = PEER_VENV / "bin" / "python"
    if not python.exists():
        made = subprocess.run(
            [sys.executable, "-m", "venv", str(PEER_VENV)],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if made.returncode != 0:
            raise PeerUnavailableError(f"creating {PEER_VENV} failed: {made.stderr.strip()[-500:]}")
    if not peer_executable().exists():
        done = subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", f"{PEER_PACKAGE}=={PEER_VERSION}"],
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        if done.returncode != 0:
            raise PeerUnavailableError(
                f"pip install {PEER_PACKAGE}=={PEER_VERSION} failed (exit {done.returncode}): "
                f"{(done.stdout + done.stderr).strip()[-800:]}"
            )
    shown = subprocess.run(
        [str(python), "-m", "pip", "show", PEER_PACKAGE],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    version = next(
        (line.split(":", 1)[1].strip() for line in shown.stdout.splitlines() if line.startswith("Version:")),
        "unknown",
    )
    return version


async def clean(driver: AsyncDriver) -> None:
    async with driver.session() as session:
        result = await session.run(
            "MATCH (m:Memory) CALL (m) { DETACH DELETE m } IN TRANSACTIONS OF 10000 ROWS"
        )
        await result.consume()


@contextmanager
def peer_server(settings: ConnectionSettings, log_dir: Path) -> Iterator[tuple[RunningServer, str]]:
    port = free_port()
    env = {
        **os.environ,
        "NEO4J_URI": settings.uri,
        "NEO4J_USERNAME": settings.username,
        "NEO4J_PASSWORD": settings.password,
        "NEO4J_DATABASE": settings.database or "neo4j",
    }
    command = [
        str(peer_executable()),
        "--transport",
        "http",
        "--server-host",
        "127.0.0.1",
        "--server-port",
        str(port),
        "--server-path",
        PEER_PATH,
    ]
    with serving(command, env, port, log_dir / "peer-server.log") as server:
        yield server, f"http://127.0.0.1:{port}{PEER_PATH}"


@dataclass(frozen=True)
class PeerLoad:
    entities: int
    observations: int
    bulk_calls: int
    bulk_seconds: float
    single_calls: int
    single_seconds: float
    single_latencies: list[float]
    max_observations_per_entity: int
    errors: int


def _entities(memories: Sequence[Memory]) -> dict[str, tuple[str, list[str]]]:
    grouped: dict[str, tuple[str, list[str]]] = {}
    for memory in memories:
        entry = grouped.setdefault(memory.entity_name, (memory.entity_type, []))
        entry[1].append(memory.request.content)
    return grouped


def _batches(grouped: dict[str, tuple[str, list[str]]]) -> Iterator[list[dict[str, Any]]]:
    batch: list[dict[str, Any]] = []
    observations = 0
    for name, (kind, texts) in grouped.items():
        if batch and (len(batch) >= ENTITY_BATCH or observations + len(texts) > OBSERVATION_BATCH):
            yield batch
            batch, observations = [], 0
        batch.append({"name": name, "type": kind, "observations": texts})
        observations += len(texts)
    if batch:
        yield batch


async def load(
    client: Client, memories: Sequence[Memory], single_sample: int, budget_seconds: float
) -> PeerLoad:
    """All but the last `single_sample` memories through create_entities (batched); the rest
    one observation per add_observations call, as a host adds memories one at a time."""
    bulk, tail = memories[: len(memories) - single_sample], memories[len(memories) - single_sample :]
    grouped = _entities(bulk)
    for memory in tail:  # every entity exists before single observations are added to it
        grouped.setdefault(memory.entity_name, (memory.entity_type, []))
    errors = 0
    calls = 0
    watch = Stopwatch()
    for batch in _batches(grouped):
        calls += 1
        errors += bool((await client.call_tool("create_entities", {"entities": batch})).is_error)
    bulk_seconds = watch.seconds
    latencies: list[float] = []
    watch.restart()
    for memory in tail:
        if watch.seconds > budget_seconds:
            break
        one = Stopwatch()
        added = await client.call_tool(
            "add_observations",
            {"observations": [{"entityName": memory.entity_name, "observations": [memory.request.content]}]},
        )
        latencies.append(one.seconds)
        errors += bool(added.is_error)
    counts: dict[str, int] = defaultdict(int)
    for memory in memories:
        counts[memory.entity_name] += 1
    return PeerLoad(
        entities=len(grouped),
        observations=len(bulk) + len(latencies),
        bulk_calls=calls,
        bulk_seconds=bulk_seconds,
        single_calls=len(latencies),
        single_seconds=watch.seconds,
        single_latencies=latencies,
        max_observations_per_entity=max(counts.values(), default=0),
        errors=errors,
    )


def peer_results(payload: dict[str, Any]) -> int:
    """Entities in a search_memories answer."""
    return len(payload.get("entities", []))
