"""The transactions one process has in Neo4j at once (`graph/admission.py`): bounded, interactive
ones let in before background ones, a waiter that waited too long let in anyway, and a waiter
cancelled in the queue takes no slot with it."""

from __future__ import annotations

import anyio
import pytest

from graph.access import GraphStore, ProfileGraph, ProfileTx
from graph.admission import Admission
from graph.scope import ScopedQuery

pytestmark = pytest.mark.anyio
PING = ScopedQuery("test_admission_ping", "MATCH (p:Profile {profile_id: $profile_id}) RETURN count(p) AS n")


async def _enter_and_note(admission: Admission, background: bool, name: str, entered: list[str]) -> None:
    async with admission.slot(background):
        entered.append(name)


@pytest.mark.unit
async def test_interactive_waiters_go_before_background_ones_that_came_first() -> None:
    admission, entered = Admission(limit=1), []
    async with anyio.create_task_group() as group, admission.slot(background=False):
        group.start_soon(_enter_and_note, admission, True, "background", entered)
        await anyio.sleep(0.05)
        group.start_soon(_enter_and_note, admission, False, "interactive", entered)
        await anyio.sleep(0.05)
        assert entered == []
    assert entered == ["interactive", "background"]


@pytest.mark.unit
async def test_a_waiter_past_its_patience_goes_in_over_the_limit() -> None:
    admission, entered = Admission(limit=1, patience_s=0.1), []
    async with admission.slot(background=False):
        await _enter_and_note(admission, False, "late", entered)
    assert entered == ["late"]


@pytest.mark.unit
async def test_a_waiter_cancelled_in_the_queue_takes_no_slot_with_it() -> None:
    admission, entered = Admission(limit=1), []
    async with anyio.create_task_group() as group, admission.slot(background=False):
        with anyio.move_on_after(0.1):
            await _enter_and_note(admission, False, "cancelled", entered)
        group.start_soon(_enter_and_note, admission, False, "next", entered)
        await anyio.sleep(0.05)
    with anyio.fail_after(1):
        await _enter_and_note(admission, True, "after", entered)
    assert entered == ["next", "after"]


async def test_a_store_has_no_more_transactions_in_neo4j_than_its_limit(
    store: GraphStore, graph: ProfileGraph
) -> None:
    store.priority.admission = Admission(limit=2)
    inside, most = 0, 0

    async def held(tx: ProfileTx) -> None:
        nonlocal inside, most
        inside += 1
        most = max(most, inside)
        await tx.run(PING)
        await anyio.sleep(0.2)
        inside -= 1

    async with anyio.create_task_group() as group:
        for _ in range(6):
            group.start_soon(graph.read, held)
        group.start_soon(graph.in_background().read, held)
    assert most == 2
