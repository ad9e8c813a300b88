"""Interactive work first (`graph/priority.py`): a cycle's transactions wait for the ones a host
waits on, never longer than their patience, and one cycle computes at a time in a process."""

from __future__ import annotations

import anyio
import pytest

from graph.access import GraphStore, ProfileGraph, ProfileTx
from graph.dreams.config import DreamingConfig
from graph.dreams.cycle import CycleRequest, run_cycle
from graph.scope import ScopedQuery

pytestmark = pytest.mark.anyio
PING = ScopedQuery("test_priority_ping", "MATCH (p:Profile {profile_id: $profile_id}) RETURN count(p) AS n")


async def _held(tx: ProfileTx, events: list[str], name: str, seconds: float) -> None:
    await tx.run(PING)
    await anyio.sleep(seconds)
    events.append(name)


async def _began(tx: ProfileTx, events: list[str], name: str) -> None:
    events.append(name)
    await tx.run(PING)


async def _interactive_then_background(graph: ProfileGraph, held_s: float) -> list[str]:
    events: list[str] = []
    async with anyio.create_task_group() as group:
        group.start_soon(graph.read, _held, events, "interactive done", held_s)
        # The interactive transaction is open (and counted) before the background one asks.
        await anyio.sleep(0.2)
        group.start_soon(graph.in_background().read, _began, events, "background began")
    return events


async def test_a_background_transaction_waits_for_the_interactive_one_in_flight(
    store: GraphStore, graph: ProfileGraph
) -> None:
    # Patience far beyond the interactive transaction's time: the order is the gate's alone.
    store.priority.patience_s = 30
    assert await _interactive_then_background(graph, 0.6) == ["interactive done", "background began"]


async def test_a_background_transaction_waits_no_longer_than_its_patience(
    store: GraphStore, graph: ProfileGraph
) -> None:
    store.priority.patience_s = 0.3
    assert await _interactive_then_background(graph, 3.0) == ["background began", "interactive done"]


async def test_a_cycle_computes_only_in_the_process_s_cycle_turn(
    store: GraphStore, graph: ProfileGraph
) -> None:
    phases_done: list[str] = []

    async def progress(step: float, total: float, what: str) -> None:
        phases_done.append(what)

    async def cycle() -> None:
        await run_cycle(graph, DreamingConfig(), CycleRequest(max_outputs=1), progress=progress)

    async with anyio.create_task_group() as group, store.priority.cycle_turn():
        group.start_soon(cycle)
        # Long enough for a cycle of an empty profile to finish a phase when nothing holds it.
        await anyio.sleep(1.5)
        assert phases_done == []
    assert phases_done and phases_done[-1].endswith("done")
