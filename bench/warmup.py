"""Warming Neo4j's JIT and query caches up before the first size, so that size is not the one
that pays for a cold JVM. Everything it writes goes to the profile `bench-warmup`, which the
first size's wipe removes."""

from __future__ import annotations

from bench import dreaming, ingest, lanes
from bench.corpus import MemoryFactory, queries
from bench.database import BenchDatabase, driver_for
from bench.stats import Stopwatch
from graph.access import GraphStore
from graph.dreams.cycle import CycleRequest
from graph.schema import ensure_schema

WARMUP_PROFILE = "bench-warmup"
WARMUP_MEMORIES = 400
WARMUP_QUERIES = 60
WARMUP_CYCLES = 4


async def warm_up(db: BenchDatabase, seed: int) -> float:
    """Remember, recall and dream on a throwaway profile; return the seconds it took."""
    watch = Stopwatch()
    factory = MemoryFactory()
    driver = driver_for(db.settings)
    store = GraphStore.connect(db.settings)
    try:
        # The sizes ensure the schema after their wipe, but the warm-up runs first: on a fresh
        # instance recall would find no fulltext index yet.
        await ensure_schema(driver, None)
        graph = store.profile(WARMUP_PROFILE)
        memories = list(factory.memories(seed + 99, WARMUP_MEMORIES))
        await ingest.sequential(graph, memories[: WARMUP_MEMORIES // 2])
        await ingest.concurrent(graph, memories[WARMUP_MEMORIES // 2 :], 8)
        await lanes.run_lanes(
            {"direct": lanes.direct_lane(graph), "raw": lanes.raw_lane(driver, WARMUP_PROFILE)},
            queries(factory.vocabulary, WARMUP_QUERIES, seed + 98),
            [],
            budget_seconds=30.0,
        )
        dreamer = dreaming.Dreamer(graph, driver)
        for _ in range(WARMUP_CYCLES):
            await dreamer.cycle(CycleRequest(max_outputs=50))
    finally:
        await store.close()
        await driver.close()
    return watch.seconds
