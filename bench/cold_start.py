"""`python -m bench.cold_start`: the mixed load right after Neo4j restarts, with a cycle running.

The worst minute a server meets in a day: Neo4j has just started (no query plans, a cold page
cache, a JIT that has compiled nothing), the first cycle of a profile of a few months is asked
the moment the server is up, and many hosts call at once. The lane loads four profiles (the
measured one with `--memories`, three of a third of that), restarts its Neo4j instance, starts a
fresh `reverie serve --transport http` and runs `bench.mixed`'s mix with `--clients` clients
for `--seconds`, one more client asking the measured profile's cycle at once. It prints each
tool's latency and every failed call's message. Nothing is asserted: what matters is that no
recall fails while Neo4j is up, and how far recall's p95 moves.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from bench import ingest, mixed
from bench.corpus import MemoryFactory, queries
from bench.database import BENCH_MEMORY, INSTANCE, driver_for, prepare, provisioned
from graph.access import GraphStore
from graph.localdb import LocalNeo4j

PROFILES = ("cold-main", "cold-neighbour-1", "cold-neighbour-2", "cold-mixed")
SEED = 43
CONCURRENCY = 8


async def _load(store: GraphStore, factory: MemoryFactory, memories: int) -> None:
    for number, profile in enumerate(PROFILES):
        count = memories if number == 0 else memories // 3
        loaded = await ingest.concurrent(
            store.profile(profile), factory.memories(SEED + number, count), CONCURRENCY
        )
        print(f"{profile}: {loaded.calls} memories, {loaded.errors} errors, {loaded.rate:.1f}/s", flush=True)


def _report(load: mixed.MixedLoad) -> None:
    print(f"{load.clients} clients on {load.profiles} profiles for {load.seconds:.0f} s")
    for tool, tally in load.tallies.items():
        lat = tally.latency()
        print(
            f"  {tool:<20} {lat.count:>5} ok  p50 {lat.p50_ms:8.1f}  p95 {lat.p95_ms:8.1f}  "
            f"p99 {lat.p99_ms:8.1f}  max {lat.max_ms:8.1f} ms  busy {tally.busy}  failed {len(tally.errors)}"
        )
        slow = sorted(
            (began, took) for began, took in zip(tally.began_at, tally.latencies, strict=True) if took > 5
        )
        if slow:
            listed = ", ".join(f"{took:.1f} s at {began:.0f} s" for began, took in slow[:12])
            print(f"      over 5 s: {len(slow)} ({listed})")
        for message, times in Counter(tally.errors).most_common(5):
            print(f"      {times} x {message}")
    cpu = ", ".join(f"{name} {seconds:.0f}" for name, seconds in load.cpu_s.items() if seconds is not None)
    print(f"  CPU seconds: {cpu}")


async def run(memories: int, clients: int, seconds: float, instance: str) -> None:
    factory = MemoryFactory()
    with provisioned(instance) as db:
        driver = driver_for(db.settings)
        await prepare(driver)
        await driver.close()
        store = GraphStore.connect(db.settings)
        try:
            await _load(store, factory, memories)
        finally:
            await store.close()
        local = LocalNeo4j(LocalNeo4j.default_home(), instance, BENCH_MEMORY)
        local.stop()
        status = local.start()
        print(f"Neo4j restarted (pid {status.pid})", flush=True)
        plan = mixed.LoadPlan(
            queries=queries(factory.vocabulary, 500, SEED + 100),
            memories={
                profile: factory.memories(SEED + 500 + n, 1_000_000) for n, profile in enumerate(PROFILES)
            },
            clients=clients,
            seconds=seconds,
            seed=SEED,
            opening_cycle=PROFILES[0],
        )
        # Kept after the run: the server's log says what it did meanwhile.
        work = Path(tempfile.mkdtemp(prefix="reverie-cold-"))
        load = await mixed.mixed_load(db.settings, work, PROFILES, plan, status.pid, "cold")
        print(f"server log: {work / 'reverie-mixed-cold.log'}")
        _report(load)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.cold_start", description=__doc__.split("\n")[0])
    parser.add_argument("--memories", type=int, default=619, help="memories of the measured profile")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--instance", default=f"{INSTANCE}-cold", help="the managed Neo4j instance to use")
    options = parser.parse_args(argv)
    asyncio.run(run(options.memories, options.clients, options.seconds, options.instance))
    return 0


if __name__ == "__main__":
    sys.exit(main())
