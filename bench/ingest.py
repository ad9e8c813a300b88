"""Loading memories through `graph.memory.pipeline.remember`, one call at a time or concurrently.

`sequential` awaits one call after another and so gives the single-call rate and latency;
`concurrent` keeps up to `concurrency` calls in flight (a fixed pool of workers pulling from
one iterator, so memory stays flat whatever the count) and gives the bulk rate. Both hold the
model as the server does (`graph.embedding.keeper`): a call returns once its words are stored,
its vectors follow, and each rate counts the time until the last vector is written. A call that
fails is retried a bounded number of times and then counted as an error, never hidden.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from bench.corpus import Memory
from bench.semantic import bench_vectors
from bench.stats import Latency, Stopwatch
from graph.access import ProfileGraph
from graph.embedding.keeper import VectorKeeper
from graph.memory.pipeline import remember

log = logging.getLogger(__name__)
ATTEMPTS = 3


@dataclass
class LoadResult:
    calls: int = 0
    seconds: float = 0.0
    created: int = 0
    duplicates: int = 0
    errors: int = 0
    retries: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    latencies: list[float] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.calls / self.seconds if self.seconds else 0.0

    def latency(self) -> Latency:
        return Latency.of(self.latencies)

    def merge(self, other: LoadResult) -> None:
        self.calls += other.calls
        self.seconds += other.seconds
        self.created += other.created
        self.duplicates += other.duplicates
        self.errors += other.errors
        self.retries += other.retries
        self.outcomes.update(other.outcomes)


async def _remember_one(
    graph: ProfileGraph, memory: Memory, result: LoadResult, vectors: VectorKeeper | None
) -> None:
    for attempt in range(1, ATTEMPTS + 1):
        watch = Stopwatch()
        try:
            stored = await remember(graph, memory.request, now=memory.created_at, vectors=vectors)
        except Exception as error:
            if attempt == ATTEMPTS:
                result.errors += 1
                log.warning("remember failed %d times for memory %d: %s", ATTEMPTS, memory.index, error)
                return
            result.retries += 1
            await asyncio.sleep(0.05 * attempt)
            continue
        result.latencies.append(watch.seconds)
        result.created += stored.fragment.created
        result.duplicates += not stored.fragment.created
        result.outcomes.update(claim.outcome.value for claim in stored.claims)
        return


async def sequential(graph: ProfileGraph, memories: Iterable[Memory]) -> LoadResult:
    result = LoadResult()
    watch = Stopwatch()
    # The rate counts the vectors too: leaving the block waits until the last one is written.
    async with bench_vectors() as vectors:
        for memory in memories:
            result.calls += 1
            await _remember_one(graph, memory, result, vectors)
    result.seconds = watch.seconds
    return result


async def concurrent(graph: ProfileGraph, memories: Iterable[Memory], concurrency: int) -> LoadResult:
    result = LoadResult()
    source: Iterator[Memory] = iter(memories)

    async def worker(vectors: VectorKeeper | None) -> None:
        # Taking the next item and awaiting never interleave inside one step of the event loop,
        # so the workers share the iterator safely.
        for memory in source:
            result.calls += 1
            await _remember_one(graph, memory, result, vectors)

    watch = Stopwatch()
    async with bench_vectors() as vectors:
        await asyncio.gather(*(worker(vectors) for _ in range(concurrency)))
    result.seconds = watch.seconds
    return result
