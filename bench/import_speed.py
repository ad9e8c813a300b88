"""`python -m bench.import_speed`: a synthetic ChatGPT export imported end to end, beside bulk
`remember` of the same words.

The export holds `--messages` of the person's messages (each with a reply) over two years, in
conversations of 20. The import is timed from reading the zip to the last vector written, as
`reverie import chatgpt` runs it (`graph.history`); then the same texts go through bulk
`remember` (`bench.ingest.concurrent`, 16 at a time) into a second profile. Peak RSS is the
process's, read after the import and before the bulk load. Figures are printed and written to
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


async def measure(store: GraphStore, export: Path) -> dict[str, Any]:
    watch = Stopwatch()
    plan = plan_import(read_chatgpt(export))
    parsed_s = watch.seconds
    graph = store.profile("bench-import")
    async with bench_vectors() as vectors:
        todo = await pending(graph, plan)
        await write_pieces(graph, todo.todo, vectors)
    import_s = watch.seconds
    rss = peak_rss_mib()
    say(f"imported {len(plan.pieces)} pieces in {import_s:.1f} s (read and checked in {parsed_s:.1f} s)")
    memories = (
        Memory(
            index,
            RememberRequest(content=piece.text, occurred_at=piece.occurred_at),
            "",
            "",
            piece.occurred_at,
        )
        for index, piece in enumerate(plan.pieces)
    )
    bulk = await concurrent(store.profile("bench-remember"), memories, CONCURRENCY)
    say(f"bulk remember of the same texts: {bulk.rate:.0f} per s")
    return {
        "messages": plan.messages,
        "pieces": len(plan.pieces),
        "read_and_checked_s": round(parsed_s, 2),
        "import_s": round(import_s, 1),
        "import_per_s": round(len(plan.pieces) / import_s, 1),
        "peak_rss_mib_after_import": round(rss, 1),
        "bulk_remember_per_s": round(bulk.rate, 1),
        "bulk_remember_errors": bulk.errors,
    }


async def run(messages: int, instance: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder, provisioned(instance) as db:
        export = write_export(Path(folder) / "chatgpt.zip", synthetic_chatgpt(messages))
        say(f"export of {messages} messages: {export.stat().st_size / 2**20:.1f} MiB zipped")
        await emptied(db.settings)
        store = GraphStore.connect(db.settings)
        try:
            return await measure(store, export)
        finally:
            await store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--instance", default="bench", help="The managed Neo4j instance (wiped).")
    options = parser.parse_args()
    figures = asyncio.run(run(options.messages, options.instance))
    result = {"machine": describe_machine(), "revision": source_revision(), "figures": figures}
    path = results_path(datetime.now(UTC), "import")
    write_json(path, result)
    print(figures)
    say(f"written to {path}")


if __name__ == "__main__":
    main()
