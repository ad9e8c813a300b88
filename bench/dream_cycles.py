"""`python -m bench.dream_cycles`: dreaming cycles on a profile a `make bench` run left behind.

A full `make bench` spends most of its time loading 100,000 memories. This lane reuses what the
bench instance already holds (the measured profile is `bench-main`) and times full cycles with
max_outputs 5 and 50, each on its own simulated night, printing seconds, round trips, new
dreams and the slowest queries. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence

from bench.database import count, driver_for, provisioned
from bench.dreaming import Dreamer
from graph.access import GraphStore
from graph.dreams.cycle import CycleRequest

MEMORIES = "MATCH (f:SourceFragment {profile_id: $profile}) RETURN count(f)"


async def run(profile: str, outputs: Sequence[int], repeats: int) -> None:
    with provisioned() as db:
        driver = driver_for(db.settings)
        store = GraphStore.connect(db.settings)
        try:
            size = await count(driver, MEMORIES, profile=profile)
            print(f"profile {profile}: {size:,} fragments")
            dreamer = Dreamer(store.profile(profile), driver)
            for max_outputs in outputs:
                for _ in range(repeats):
                    await _one(dreamer, max_outputs)
        finally:
            await store.close()
            await driver.close()


async def _one(dreamer: Dreamer, max_outputs: int) -> None:
    timing = await dreamer.cycle(CycleRequest(max_outputs=max_outputs))
    slowest = ", ".join(f"{q['query']} {q['total_ms']:.0f} ms" for q in timing.top_queries[:3])
    print(
        f"max_outputs {max_outputs}: {timing.seconds:.2f} s, {timing.round_trips} round trips, "
        f"{timing.new_dreams} new dreams, {timing.status}; slowest: {slowest}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.dream_cycles", description=__doc__.split("\n")[0])
    parser.add_argument("--profile", default="bench-main")
    parser.add_argument("--repeats", type=int, default=3, help="cycles per max_outputs value")
    args = parser.parse_args(argv)
    asyncio.run(run(args.profile, (5, 50), args.repeats))
    return 0


if __name__ == "__main__":
    sys.exit(main())
