"""The benchmark's own managed Neo4j instance ("bench" unless a lane is told another), its schema,
and wiping it between sizes."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from neo4j import AsyncDriver, AsyncGraphDatabase

from graph.access import ConnectionSettings
from graph.localdb import LocalNeo4j
from graph.localdb.memory import NAMED_SIZES
from graph.schema import ensure_schema

INSTANCE = "bench"
# The size every figure in docs/benchmarks.md was measured at, larger than a desktop's default.
BENCH_MEMORY = NAMED_SIZES["large"]
_WIPE_BATCH = 10_000


@dataclass(frozen=True)
class BenchDatabase:
    settings: ConnectionSettings
    pid: int | None
    started_here: bool
    start_seconds: float


@contextmanager
def provisioned(instance: str = INSTANCE) -> Iterator[BenchDatabase]:
    """Start the instance (or reuse a running one); stop it at the end if started here.

    Another instance lets a lane run beside a benchmark that holds "bench", whose wipes would
    otherwise destroy each other's data."""
    local = LocalNeo4j(LocalNeo4j.default_home(), instance, BENCH_MEMORY)
    started_here = not local.status().running
    began = time.perf_counter()
    status = local.start()
    took = time.perf_counter() - began
    try:
        credentials = local.credentials()
        settings = ConnectionSettings(credentials.uri, credentials.username, credentials.password)
        yield BenchDatabase(settings, status.pid, started_here, took)
    finally:
        if started_here:
            local.stop()


def driver_for(settings: ConnectionSettings) -> AsyncDriver:
    return AsyncGraphDatabase.driver(
        settings.uri, auth=(settings.username, settings.password), notifications_min_severity="OFF"
    )


async def prepare(driver: AsyncDriver) -> None:
    """An empty graph with Reverie's schema: every node of earlier runs is removed first."""
    await wipe(driver)
    await ensure_schema(driver, None)


async def emptied(settings: ConnectionSettings) -> None:
    """`prepare` through a driver of its own, for a lane that needs no other."""
    driver = driver_for(settings)
    try:
        await prepare(driver)
    finally:
        await driver.close()


async def wipe(driver: AsyncDriver) -> None:
    # The instance a bench lane runs on belongs to the benchmark alone, so everything in it can go.
    async with driver.session() as session:
        result = await session.run(
            "MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF $batch ROWS",
            batch=_WIPE_BATCH,
        )
        await result.consume()


async def count(driver: AsyncDriver, cypher: str, **params: object) -> int:
    async with driver.session() as session:
        result = await session.run(cypher, params)
        record = await result.single()
    return int(record[0]) if record is not None else 0


async def profile_counts(driver: AsyncDriver, profile_id: str) -> dict[str, int]:
    """Node counts of one profile by label, for the report."""
    async with driver.session() as session:
        result = await session.run(
            "MATCH (n {profile_id: $profile}) UNWIND labels(n) AS label "
            "RETURN label, count(*) AS n ORDER BY label",
            profile=profile_id,
        )
        rows = [record async for record in result]
    return {str(row["label"]): int(row["n"]) for row in rows}
