"""`python -m bench.recall_stage`: the recall lanes again on data a `make bench` run left behind.

Loading 100,000 memories takes most of a bench run, and recall's figures move by several
milliseconds from one hour to the next on a small machine, so comparing two revisions of recall
is best done on the same loaded data, back to back. This lane reuses what the bench instance
holds (the measured profile `bench-main`), runs the same interleaved lanes as the full bench
(raw fulltext, `recall()` direct, in-process MCP, Streamable HTTP; not the peer) on the same
queries, and prints their table. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import shutil
import sys
from collections.abc import Sequence
from contextlib import AsyncExitStack
from dataclasses import replace

from bench.database import count, driver_for, provisioned
from bench.dream_cycles import MEMORIES
from bench.options import parse
from bench.report import table
from bench.runner import MEASURED, SizeRun, work_dir
from graph.access import GraphStore


async def run(queries: int, warmup: int, rounds: int) -> None:
    options = replace(parse([]), queries=queries, warmup_queries=warmup, peer=False)
    with provisioned() as db:
        driver = driver_for(db.settings)
        store = GraphStore.connect(db.settings)
        try:
            size = await count(driver, MEMORIES, profile=MEASURED)
            print(f"profile {MEASURED}: {size:,} fragments", flush=True)
            for number in range(1, rounds + 1):
                scratch = work_dir()
                stage = SizeRun(size, options, db, scratch)
                try:
                    async with AsyncExitStack() as stack:
                        await stage.recall(store.profile(MEASURED), driver, None, stack)
                finally:
                    shutil.rmtree(scratch, ignore_errors=True)
                print(f"\n--- round {number} of {rounds} ---\n{table(stage.figures)}", flush=True)
        finally:
            await store.close()
            await driver.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.recall_stage", description=__doc__.split("\n")[0])
    parser.add_argument("--queries", type=int, default=300, help="queries per lane and round (default 300)")
    parser.add_argument("--warmup", type=int, default=300, help="unmeasured queries per lane first")
    parser.add_argument("--rounds", type=int, default=1, help="recall stages, each with a fresh server")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    asyncio.run(run(args.queries, args.warmup, args.rounds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
