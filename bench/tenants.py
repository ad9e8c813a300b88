"""Many tenants in one database: is a profile's semantic top-10 the exact one?

One measured profile of `--measured` memories sits among `--others` memories of `--tenants`
other profiles, all loaded directly with precomputed vectors (near-copies of real embeddings of
the bench's synthetic memories, so every profile's vectors compete for the same neighbourhoods).
For each query the profile's exact cosine top-10 (numpy over its own vectors) is compared with:

- `in-index filter`: Neo4j 2026's `SEARCH ... WHERE n.profile_id = ...`, what recall runs now;
- `post-filter`: what Reverie ran on Neo4j 5.26, on the same index and data: the index's
  nearest neighbours of every profile, this profile's kept, asked again for 8x more (up to
  4,000) while fewer than 10 were its own.

    python -m bench.tenants [--measured 5000] [--others 200000] [--tenants 40] [--queries 200]

The `tenants` instance is wiped and loaded again on each run (about ten minutes at 205,000).
"""

from __future__ import annotations

import argparse
import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np
from neo4j import AsyncDriver
from numpy.typing import NDArray

from bench.corpus import MemoryFactory, queries
from bench.database import driver_for, prepare, provisioned
from bench.report import results_path, table, write_json
from bench.semantic import bench_embedder
from bench.stats import Figure, Latency

INSTANCE = "tenants"
MEASURED = "tenant-measured"
TOP = 10
_BATCH = 5_000
_NOISE = 0.03
_OLD_FIRST_FETCH, _OLD_MAX_FETCH = 30, 4_000

_LOAD = """
UNWIND $rows AS row
CREATE (f:SourceFragment:Recallable {profile_id: row.profile, id: row.id, text: 'tenant memory',
        status: 'active', embedding_model: $model, created_at: datetime()})
WITH f, row
CALL db.create.setNodeVectorProperty(f, 'embedding', row.vector)
"""
_IN_INDEX = """
CYPHER 25
MATCH (n:Recallable)
  SEARCH n IN (VECTOR INDEX recall_embedding FOR $vector
    WHERE n.profile_id = $profile AND n.embedding_model = $model AND n.status = 'active'
    LIMIT $top) SCORE AS score
RETURN n.id AS id ORDER BY score DESC
"""
_POST_FILTER = """
CALL db.index.vector.queryNodes('recall_embedding', $fetch, $vector) YIELD node, score
WHERE node.profile_id = $profile AND node.embedding_model = $model AND node.status = 'active'
RETURN node.id AS id ORDER BY score DESC LIMIT $top
"""


@dataclass(frozen=True)
class Lane:
    name: str
    exact_share: float
    mean_found: float
    latency: Latency


def _vectors(base: NDArray[np.float32], count: int, rng: np.random.Generator) -> NDArray[np.float32]:
    picked = base[rng.integers(0, len(base), size=count)]
    noisy = picked + rng.normal(0, _NOISE, size=picked.shape).astype(np.float32)
    unit: NDArray[np.float32] = noisy / np.linalg.norm(noisy, axis=1, keepdims=True)
    return unit


async def _load(driver: AsyncDriver, profile: str, vectors: NDArray[np.float32], model: str) -> list[str]:
    ids = [f"{profile}-{uuid.uuid4().hex}" for _ in range(len(vectors))]
    async with driver.session() as session:
        for start in range(0, len(vectors), _BATCH):
            rows = [
                {"profile": profile, "id": ids[i], "vector": vectors[i].tolist()}
                for i in range(start, min(start + _BATCH, len(vectors)))
            ]
            await (await session.run(_LOAD, rows=rows, model=model)).consume()
    return ids


async def _ids(driver: AsyncDriver, cypher: str, **params: object) -> list[str]:
    async with driver.session() as session:
        return [str(record["id"]) async for record in await session.run(cypher, params)]


async def _post_filtered(driver: AsyncDriver, **params: object) -> list[str]:
    fetch = _OLD_FIRST_FETCH
    found = await _ids(driver, _POST_FILTER, fetch=fetch, **params)
    while len(found) < TOP and fetch < _OLD_MAX_FETCH:
        fetch = min(fetch * 8, _OLD_MAX_FETCH)
        found = await _ids(driver, _POST_FILTER, fetch=fetch, **params)
    return found


Search = Callable[[list[float]], Awaitable[list[str]]]


async def _lane(name: str, search: Search, exact: list[list[str]], asked: NDArray[np.float32]) -> Lane:
    hits, found_total, seconds = 0, 0, []
    for vector, truth in zip(asked, exact, strict=True):
        began = time.perf_counter()
        found = await search(vector.tolist())
        seconds.append(time.perf_counter() - began)
        hits += found == truth
        found_total += len(found)
    return Lane(name, hits / len(exact), found_total / len(exact), Latency.of(seconds))


async def run(measured: int, others: int, tenants: int, query_count: int) -> list[Lane]:
    embedder = bench_embedder()
    if embedder is None:
        raise SystemExit("the tenants bench needs the embedding model (REVERIE_EMBEDDING_MODEL is off)")
    rng = np.random.default_rng(20_261_126)
    factory = MemoryFactory()
    texts = [memory.request.content for memory in factory.memories(7, 2_000)]
    base = np.array(await embedder.passages(texts), dtype=np.float32)
    asked_texts = queries(factory.vocabulary, query_count, 11)
    asked = np.array([await embedder.query(text) for text in asked_texts], dtype=np.float32)
    with provisioned(INSTANCE) as database:
        driver = driver_for(database.settings)
        try:
            await prepare(driver)
            own = _vectors(base, measured, rng)
            ids = await _load(driver, MEASURED, own, embedder.model_id)
            for tenant in range(tenants):
                await _load(
                    driver, f"tenant-{tenant:03d}", _vectors(base, others // tenants, rng), embedder.model_id
                )
            async with driver.session() as session:
                await (await session.run("CALL db.awaitIndexes(3600)")).consume()
            exact = [[ids[i] for i in np.argsort(-(own @ q))[:TOP]] for q in asked]
            params = {"profile": MEASURED, "model": embedder.model_id, "top": TOP}

            async def in_index(vector: list[float]) -> list[str]:
                return await _ids(driver, _IN_INDEX, vector=vector, **params)

            async def post_filter(vector: list[float]) -> list[str]:
                return await _post_filtered(driver, vector=vector, **params)

            for warm in (in_index, post_filter):  # the JIT and the page cache, unmeasured
                for vector in asked[: min(50, len(asked))]:
                    await warm(vector.tolist())
            return [
                await _lane("in-index filter", in_index, exact, asked),
                await _lane("post-filter (5.26 path)", post_filter, exact, asked),
            ]
        finally:
            await driver.close()


def _figures(lanes: Sequence[Lane], measured: int) -> list[Figure]:
    figures = []
    for lane in lanes:
        figures += [
            Figure(
                measured, lane.name, "top-10 equals exact", 100 * lane.exact_share, "%", lane.latency.count
            ),
            Figure(measured, lane.name, "own memories found", lane.mean_found, "of 10", lane.latency.count),
            Figure(measured, lane.name, "search p50", lane.latency.p50_ms, "ms", lane.latency.count),
            Figure(measured, lane.name, "search p95", lane.latency.p95_ms, "ms", lane.latency.count),
        ]
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.tenants", description=__doc__)
    parser.add_argument("--measured", type=int, default=5_000, help="memories of the measured profile")
    parser.add_argument("--others", type=int, default=200_000, help="memories of the other profiles")
    parser.add_argument("--tenants", type=int, default=40, help="other profiles")
    parser.add_argument("--queries", type=int, default=200, help="queries compared with the exact top-10")
    args = parser.parse_args(argv)
    started = datetime.now(UTC)
    lanes = asyncio.run(run(args.measured, args.others, args.tenants, args.queries))
    figures = _figures(lanes, args.measured)
    print(table(figures))
    path = write_json(
        results_path(started, "tenants"),
        {"options": vars(args), "figures": [figure.as_dict() for figure in figures]},
    )
    print(f"\nwritten to {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
