"""Many tenants in one database: is a profile's semantic top-10 the exact one?

One measured profile of `--measured` memories sits among `--others` memories of `--tenants`
other profiles, all loaded directly with precomputed vectors (near-copies of real embeddings of
the bench's synthetic memories, so every profile's vectors compete for the same neighbourhoods).
For each query the set of the profile's exact cosine top-10 (numpy over its stored vectors) is
compared with the set each way of searching returns (ties among near-copies make the order of
equal scores arbitrary, so sets are compared, and the share of the exact ten found):

- `in-index filter`: Neo4j 2026's `SEARCH ... WHERE n.profile_id = ...`, as recall runs it (45
  neighbours asked, of any status, the live ones kept, the best 10 of those);
- `post-filter`: what Reverie ran on Neo4j 5.26, on the same index and data: the index's
  nearest neighbours of every profile, this profile's kept, asked again for 8x more (up to
  4,000) while fewer than 10 were its own.

    python -m bench.tenants [--measured 5000] [--others 200000] [--tenants 40] [--queries 200] [--reuse]

The `tenants` instance is wiped and loaded again (about ten minutes at 205,000) unless `--reuse`
finds it holding the sizes asked for.
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
from bench.database import count, driver_for, prepare, provisioned
from bench.report import results_path, table, write_json
from bench.semantic import bench_embedder
from bench.stats import Figure, Latency
from graph.recall.semantic import first_fetch

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
    WHERE n.profile_id = $profile AND n.embedding_model = $model
    LIMIT $fetch) SCORE AS score
WITH n, score WHERE n.status = 'active'
RETURN n.id AS id ORDER BY score DESC LIMIT $top
"""
# What recall's first search asks for, for a recall of 10 (it takes 30 candidates per lane).
_RECALL_FETCH = first_fetch(30)
_MEASURED_VECTORS = "MATCH (n:SourceFragment {profile_id: $profile}) RETURN n.id AS id, n.embedding AS vector"
_LOADED = "MATCH (n:SourceFragment) WHERE n.profile_id STARTS WITH 'tenant-' RETURN count(n) AS loaded"
_POST_FILTER = """
CALL db.index.vector.queryNodes('recall_embedding', $fetch, $vector) YIELD node, score
WHERE node.profile_id = $profile AND node.embedding_model = $model AND node.status = 'active'
RETURN node.id AS id ORDER BY score DESC LIMIT $top
"""


@dataclass(frozen=True)
class Lane:
    name: str
    exact_share: float
    overlap: float
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


async def _lane(name: str, search: Search, exact: list[set[str]], asked: NDArray[np.float32]) -> Lane:
    hits, shared, seconds = 0, 0, []
    for vector, truth in zip(asked, exact, strict=True):
        began = time.perf_counter()
        found = set(await search(vector.tolist()))
        seconds.append(time.perf_counter() - began)
        hits += found == truth
        shared += len(found & truth)
    return Lane(name, hits / len(exact), shared / (TOP * len(exact)), Latency.of(seconds))


async def _exact_top(driver: AsyncDriver, asked: NDArray[np.float32]) -> list[set[str]]:
    async with driver.session() as session:
        rows = [record async for record in await session.run(_MEASURED_VECTORS, profile=MEASURED)]
    ids = [str(row["id"]) for row in rows]
    stored = np.array([row["vector"] for row in rows], dtype=np.float32)
    return [{ids[i] for i in np.argsort(-(stored @ vector))[:TOP]} for vector in asked]


async def _fill(
    driver: AsyncDriver, sizes: tuple[int, int, int], base: NDArray[np.float32], model: str
) -> None:
    """Wipe and load the measured profile and the others, unless `sizes[0]` is 0 (reuse)."""
    measured, others, tenants = sizes
    rng = np.random.default_rng(20_261_126)
    await prepare(driver)
    await _load(driver, MEASURED, _vectors(base, measured, rng), model)
    for tenant in range(tenants):
        await _load(driver, f"tenant-{tenant:03d}", _vectors(base, others // tenants, rng), model)
    async with driver.session() as session:
        await (await session.run("CALL db.awaitIndexes(3600)")).consume()


async def run(measured: int, others: int, tenants: int, query_count: int, reuse: bool) -> list[Lane]:
    embedder = bench_embedder()
    if embedder is None:
        raise SystemExit("the tenants bench needs the embedding model (REVERIE_EMBEDDING_MODEL is off)")
    factory = MemoryFactory()
    texts = [memory.request.content for memory in factory.memories(7, 2_000)]
    base = np.array(await embedder.passages(texts), dtype=np.float32)
    asked_texts = queries(factory.vocabulary, query_count, 11)
    asked = np.array([await embedder.query(text, MEASURED) for text in asked_texts], dtype=np.float32)
    with provisioned(INSTANCE) as database:
        driver = driver_for(database.settings)
        try:
            wanted = measured + others // tenants * tenants
            if not (reuse and await count(driver, _LOADED) == wanted):
                await _fill(driver, (measured, others, tenants), base, embedder.model_id)
            exact = await _exact_top(driver, asked)
            params = {"profile": MEASURED, "model": embedder.model_id, "top": TOP}

            async def in_index(vector: list[float]) -> list[str]:
                return await _ids(driver, _IN_INDEX, vector=vector, fetch=_RECALL_FETCH, **params)

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
        measures = (
            ("top-10 set equals exact", 100 * lane.exact_share, "%"),
            ("exact top-10 found", 100 * lane.overlap, "%"),
            ("search p50", lane.latency.p50_ms, "ms"),
            ("search p95", lane.latency.p95_ms, "ms"),
        )
        figures += [Figure(measured, lane.name, *measure, lane.latency.count) for measure in measures]
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.tenants", description=__doc__)
    parser.add_argument("--measured", type=int, default=5_000, help="memories of the measured profile")
    parser.add_argument("--others", type=int, default=200_000, help="memories of the other profiles")
    parser.add_argument("--tenants", type=int, default=40, help="other profiles")
    parser.add_argument("--queries", type=int, default=200, help="queries compared with the exact top-10")
    parser.add_argument("--reuse", action="store_true", help="keep the instance's data if it has these sizes")
    args = parser.parse_args(argv)
    started = datetime.now(UTC)
    lanes = asyncio.run(run(args.measured, args.others, args.tenants, args.queries, args.reuse))
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
