"""`python -m bench.cycle_stall`: how long a dreaming cycle holds the server's event loop.

A server answers every tool call of every host on one event loop; whatever a cycle computes on
that loop, no recall is answered meanwhile. This lane remembers one LoCoMo conversation (a few
hundred memories, a profile the size of a person's first months), runs cycles in the process
the way a server does, and samples the loop every 10 ms beside them: the longest stall and the
99th percentile, with the cycle's own time. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
import uuid
from collections.abc import Sequence
from pathlib import Path

import anyio

from bench.database import provisioned
from bench.locomo_data import load_conversation
from graph.access import GraphStore, ProfileGraph
from graph.dreams.config import DreamingConfig
from graph.dreams.cycle import CycleRequest, run_cycle
from graph.embedding.catalog import DEFAULT_MODEL
from graph.embedding.keeper import VectorKeeper, keeping
from graph.embedding.loader import load_embedder
from graph.localdb import LocalNeo4j
from graph.memory.pipeline import RememberRequest, remember

TICK_S = 0.01


async def _sampled(graph: ProfileGraph, vectors: VectorKeeper) -> tuple[float, list[float]]:
    """The cycle's seconds, and how late each 10 ms tick of the loop came meanwhile."""
    stalls: list[float] = []
    done = anyio.Event()

    async def tick() -> None:
        while not done.is_set():
            began = time.perf_counter()
            await anyio.sleep(TICK_S)
            stalls.append(time.perf_counter() - began - TICK_S)

    async with anyio.create_task_group() as group:
        group.start_soon(tick)
        began = time.perf_counter()
        await run_cycle(graph, DreamingConfig(), CycleRequest(max_outputs=10), vectors=vectors)
        took = time.perf_counter() - began
        done.set()
    return took, sorted(stalls)


async def run(conversation: Path, cycles: int) -> None:
    turns = load_conversation(conversation).turns
    embedder = load_embedder(LocalNeo4j.default_home(), DEFAULT_MODEL)
    with provisioned() as db:
        store = GraphStore.connect(db.settings)
        graph = store.profile(f"bench-stall-{uuid.uuid4().hex[:8]}")
        try:
            async with keeping(embedder) as vectors:
                assert vectors is not None
                for turn in turns:
                    request = RememberRequest(content=turn.content, occurred_at=turn.occurred_at)
                    await remember(graph, request, vectors=vectors)
                await vectors.settled(graph)
                print(f"{conversation.name}: {len(turns)} memories")
                for night in range(1, cycles + 1):
                    took, stalls = await _sampled(graph, vectors)
                    p99 = stalls[int(len(stalls) * 0.99)] if stalls else 0.0
                    longest = stalls[-1] if stalls else 0.0
                    print(
                        f"cycle {night}: {took:.2f} s; event loop: longest stall {longest * 1000:.0f} ms, "
                        f"p99 {p99 * 1000:.0f} ms, {sum(s > 0.1 for s in stalls)} stalls over 100 ms"
                    )
        finally:
            await store.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.cycle_stall", description=__doc__.split("\n")[0])
    parser.add_argument("--conversation", type=Path, default=Path("../shared/data/locomo-dev/26.json"))
    parser.add_argument("--cycles", type=int, default=3)
    options = parser.parse_args(argv)
    asyncio.run(run(options.conversation, options.cycles))
    return 0


if __name__ == "__main__":
    sys.exit(main())
