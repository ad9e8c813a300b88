"""`python -m bench.import_speed`: a synthetic ChatGPT export imported end to end, beside bulk
`remember` of the same words.

The export holds `--messages` of the person's messages (each with a reply) over two years, in
conversations of 20. The import is timed from reading the zip to the last vector written, as
`reverie import chatgpt` runs it (`graph.history`); then the same texts go through bulk
`remember` (`bench.ingest.concurrent`, 16 at a time) into a second profile, or the other way
round with `--bulk-first` (the first load of a fresh instance pays for Neo4j's warm-up, so
compare alternating runs). Peak RSS is the process's, read after each load. Figures are printed and written to
bench/results/import-<time>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.corpus import Memory
from bench.database import emptied, provisioned
from bench.history_exports import synthetic_chatgpt, write_export
from bench.ingest import concurrent
from bench.machine import describe_machine, source_revision
from bench.report import results_path, write_json
from bench.semantic import bench_vectors
from bench.stats import Stopwatch
from graph.access import GraphStore
from graph.history.chatgpt import read_chatgpt
from graph.history.load import CONCURRENCY, pending, write_pieces
from graph.history.pieces import plan_import
from graph.memory.pipeline import RememberRequest


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def say(message: str) -> None:
    print(f"[import] {message}", file=sys.stderr, flush=True)


async def imported(store: GraphStore, export: Path) -> dict[str, Any]:
    """The export imported as `reverie import chatgpt` does, timed from reading the zip."""
    watch = Stopwatch()
    plan = plan_import(read_chatgpt(export))
    parsed_s = watch.seconds
    graph = store.profile("bench-import")
    async with bench_vectors() as vectors:
        written = await write_pieces(graph, (await pending(graph, plan)).todo, vectors)
    import_s = watch.seconds
    say(f"imported {len(plan.pieces)} pieces in {import_s:.1f} s (read and checked in {parsed_s:.1f} s)")
    return {
        "messages": plan.messages,
        "pieces": len(plan.pieces),
        "created": written.created,
        "read_and_checked_s": round(parsed_s, 2),
        "import_s": round(import_s, 1),
        "import_per_s": round(len(plan.pieces) / import_s, 1),
        "peak_rss_mib_after_import": round(peak_rss_mib(), 1),
    }


async def bulk(store: GraphStore, export: Path) -> dict[str, Any]:
    """The same texts with their dates through bulk `remember`, without keys or metadata."""
    pieces = plan_import(read_chatgpt(export)).pieces
    requests = [RememberRequest(content=piece.text, occurred_at=piece.occurred_at) for piece in pieces]
    memories = (
        Memory(index, request, "", "", piece.occurred_at)
        for index, (request, piece) in enumerate(zip(requests, pieces, strict=True))
    )
    result = await concurrent(store.profile("bench-remember"), memories, CONCURRENCY)
    say(f"bulk remember of the same texts: {result.rate:.0f} per s")
    return {
        "bulk_remember_per_s": round(result.rate, 1),
        "bulk_remember_errors": result.errors,
        "peak_rss_mib_after_bulk": round(peak_rss_mib(), 1),
    }


async def measure(store: GraphStore, export: Path, bulk_first: bool) -> dict[str, Any]:
    if bulk_first:
        return {"order": "bulk first", **await bulk(store, export), **await imported(store, export)}
    return {"order": "import first", **await imported(store, export), **await bulk(store, export)}


async def run(messages: int, instance: str, bulk_first: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder, provisioned(instance) as db:
        export = write_export(Path(folder) / "chatgpt.zip", synthetic_chatgpt(messages))
        say(f"export of {messages} messages: {export.stat().st_size / 2**20:.1f} MiB zipped")
        await emptied(db.settings)
        store = GraphStore.connect(db.settings)
        try:
            return await measure(store, export, bulk_first)
        finally:
            await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--instance", default="bench", help="The managed Neo4j instance (wiped).")
    parser.add_argument("--bulk-first", action="store_true", help="Load with bulk remember first.")
    options = parser.parse_args()
    figures = asyncio.run(run(options.messages, options.instance, options.bulk_first))
    result = {"machine": describe_machine(), "revision": source_revision(), "figures": figures}
    path = results_path(datetime.now(UTC), "import")
    write_json(path, result)
    print(figures)
    say(f"written to {path}")


if __name__ == "__main__":
    main()
