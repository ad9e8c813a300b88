"""`python -m bench.dream_postings`: what reading a profile's words for the dream phase costs.

The dream phase reads every live memory's text and indexes its topical words
(`graph/dreams/postings.py`) up to `WORD_LIMIT` memories, and a slice of two blocks above.
This lane stores `--sizes` synthetic memories (`bench.corpus`, texts only: no vectors, no
claims, written straight into the graph) into profiles of its own instance (`dream-postings`,
emptied first), then times, per size, reading every text whole, parsing and indexing them (with
the Python heap's peak during that step), and the night's read as the dream phase does it
(whole, or the slice above the bound), then the links and themes a cycle would find with the
semantic lane off (these memories have no vectors). It prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
import tracemalloc
from collections.abc import Sequence
from datetime import UTC, datetime

from bench.corpus import MemoryFactory
from bench.database import emptied, provisioned
from graph.access import GraphStore, ProfileGraph, ProfileTx
from graph.dreams import queries as q
from graph.dreams.candidates import corpus_size_of, find_candidates
from graph.dreams.evidence import topical_roots, topical_terms
from graph.dreams.postings import WORD_LIMIT, indexed, read_words
from graph.dreams.records import memory_from_row
from graph.dreams.themes import Theme, find_themes
from graph.memory.claims import DREAM_FEEDBACK_LABEL
from graph.rows import Row
from graph.scope import ScopedQuery

INSTANCE = "dream-postings"
BATCH = 5_000
PROFILE_SEED = 49
COLUMNS = (
    "read every text (s)",
    "parse and index (s)",
    "heap peak (MB)",
    "words",
    "the night's read (s)",
    "links, no vectors (s, pairs)",
    "themes, no vectors (s, themes)",
)

_STORE_TEXTS = ScopedQuery(
    "bench_store_texts",
    """
    UNWIND $rows AS row
    CREATE (f:SourceFragment:Recallable {profile_id: $profile_id, profile_key: $profile_key,
            id: row.id, text: row.text, status: 'active', quality: 0.5,
            created_at: datetime(row.at), recorded_at: datetime(row.at)})
    """,
)


async def _load(graph: ProfileGraph, size: int) -> None:
    factory = MemoryFactory()
    rows = [
        {"id": f"pm-{size}-{m.index}", "text": m.request.content, "at": m.created_at.isoformat()}
        for m in factory.memories(PROFILE_SEED, size)
    ]
    for start in range(0, size, BATCH):

        async def store(tx: ProfileTx, batch: Sequence[dict[str, str]]) -> None:
            await tx.run(_STORE_TEXTS, rows=batch)

        await graph.write(store, rows[start : start + BATCH])


async def _every_row(tx: ProfileTx, size: int) -> Sequence[Row]:
    return await tx.run(q.PROFILE_MEMORIES, cap=size + 1, feedback_label=DREAM_FEEDBACK_LABEL)


def _heap_peak(rows: Sequence[Row]) -> int:
    """The Python heap's peak while the rows are parsed and indexed again, caches emptied first
    (traced separately: tracing slows the step it measures)."""
    topical_roots.cache_clear()
    topical_terms.cache_clear()
    tracemalloc.start()
    indexed([memory_from_row(row) for row in rows], whole=True)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


async def _measure(graph: ProfileGraph, size: int) -> None:
    began = time.perf_counter()
    rows = await graph.read(_every_row, size)
    read = time.perf_counter() - began
    began = time.perf_counter()
    words = indexed([memory_from_row(row) for row in rows], whole=True)
    built = time.perf_counter() - began
    peak = _heap_peak(rows)
    began = time.perf_counter()
    night = await graph.read(read_words, size)
    nightly = time.perf_counter() - began
    began = time.perf_counter()
    pairs = await graph.read(find_candidates, 10, datetime.now(UTC), None)
    linking = time.perf_counter() - began
    began = time.perf_counter()
    threads = await graph.read(_themes)
    theming = time.perf_counter() - began
    print(
        f"| {size:,} | {read:.2f} | {built:.2f} | {peak / 2**20:.0f} | {len(words.postings):,} | "
        f"{'whole' if night.whole else 'slice'} of {len(night.memories):,}: {nightly:.2f} | "
        f"{linking:.2f} ({len(pairs)}) | {theming:.2f} ({len(threads)}) |",
        flush=True,
    )


async def _themes(tx: ProfileTx) -> list[Theme]:
    return await find_themes(tx, None, await corpus_size_of(tx))


async def run(sizes: Sequence[int], instance: str) -> None:
    with provisioned(instance) as db:
        await emptied(db.settings)
        store = GraphStore.connect(db.settings)
        try:
            print(f"WORD_LIMIT {WORD_LIMIT:,}")
            print(f"| memories | {' | '.join(COLUMNS)} |")
            print("|---" * (len(COLUMNS) + 1) + "|")
            for size in sizes:
                graph = store.profile(f"bench-postings-{size}")
                await _load(graph, size)
                await _measure(graph, size)
        finally:
            await store.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.dream_postings", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--sizes", default="2400,20000,100000", help="comma-separated profile sizes")
    parser.add_argument("--instance", default=INSTANCE)
    args = parser.parse_args(argv)
    asyncio.run(run([int(size) for size in args.sizes.split(",")], args.instance))
    return 0


if __name__ == "__main__":
    sys.exit(main())
