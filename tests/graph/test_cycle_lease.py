"""A cycle's life: cancellation closes its run, a dead holder's lease lapses, an empty meaning
space is no error."""

from __future__ import annotations

import uuid
from datetime import timedelta

import anyio
import pytest

from graph.access import GraphStore, ProfileGraph
from graph.dreams import review
from graph.dreams.config import DreamingConfig
from graph.dreams.cycle import STOPPED, CycleRequest, run_cycle
from graph.dreams.lease import ABANDONED, DEFAULT_LEASE, lapsed
from graph.dreams.records import StoredRun
from graph.dreams.runs import run_as_of
from graph.embedding.keeper import VectorKeeper
from graph.errors import AlreadyDreamedError
from graph.memory.pipeline import RememberRequest, remember
from graph.memory.retraction import retract
from tests.graph.memory_support import T0

pytestmark = pytest.mark.anyio


async def test_a_cancelled_cycle_is_closed_as_interrupted_and_frees_the_profile(graph: ProfileGraph) -> None:
    await remember(graph, RememberRequest(content="I walk the dog along the Hudson every morning."))
    holding = anyio.Event()

    async def hang(done: float, total: float, message: str) -> None:
        holding.set()
        await anyio.sleep_forever()

    async def cycle() -> None:
        await run_cycle(graph, DreamingConfig(), CycleRequest(), progress=hang)

    async with anyio.create_task_group() as group:
        group.start_soon(cycle)
        with anyio.fail_after(60):
            await holding.wait()
        group.cancel_scope.cancel()

    latest = (await review.overview(graph, DreamingConfig())).latest_run
    assert latest is not None and latest.status == "interrupted" and latest.error == STOPPED
    again = await run_cycle(graph, DreamingConfig(), CycleRequest())
    assert again.status == "completed"


@pytest.mark.unit
def test_a_running_run_counts_as_abandoned_only_once_its_lease_has_lapsed() -> None:
    lease = DEFAULT_LEASE.from_moment(T0)
    assert not lapsed("running", lease, T0 + timedelta(seconds=59))
    assert lapsed("running", lease, lease + timedelta(seconds=1))
    assert not lapsed("completed", lease, T0 + timedelta(hours=1))
    stored = StoredRun(
        id="r1", trigger="manual", run_date="2026-01-01", status="running", started_at=T0,
        completed_at=None, lease_expires_at=lease, late=False, phases=(), error=None,
    )  # fmt: skip
    holding = run_as_of(stored, T0 + timedelta(seconds=59))
    assert (holding.status, holding.error) == ("running", None)
    # Read after the lease lapsed, the run says why it stopped instead of staying "running".
    dead = run_as_of(stored, lease + timedelta(seconds=1))
    assert (dead.status, dead.error) == ("interrupted", ABANDONED)


async def test_a_profile_whose_every_memory_was_retracted_still_dreams_without_error(
    graph: ProfileGraph, vectors: VectorKeeper
) -> None:
    stored = await remember(
        graph, RememberRequest(content="I walk the dog along the Hudson."), vectors=vectors
    )
    await retract(graph, stored.fragment.id, "said by mistake")

    run = await run_cycle(graph, DreamingConfig(), CycleRequest(), vectors=vectors)

    assert (run.status, run.error) == ("completed", None)


async def _wait_until_blocked(store: GraphStore, profile_id: str) -> None:
    """Until a transaction of this profile waits on a lock (here: the scheduled date's)."""
    with anyio.fail_after(60):
        while True:
            async with store.driver.session(database=store.settings.database) as session:
                rows = await (
                    await session.run(
                        "SHOW TRANSACTIONS YIELD status, parameters "
                        "WHERE status STARTS WITH 'Blocked' AND parameters.profile_id = $profile_id "
                        "RETURN count(*) AS blocked",
                        profile_id=profile_id,
                    )
                ).single()
            if rows is not None and rows["blocked"] > 0:
                return
            await anyio.sleep(0.05)


async def test_a_scheduled_date_recorded_by_another_process_during_the_claim_is_already_dreamed(
    store: GraphStore, graph: ProfileGraph
) -> None:
    # Another process's run for the date, written but not yet committed: this claim's check does
    # not see it, so its own write meets the date's unique constraint once the other commits.
    day = "2026-02-02"
    # Run ids are unique across the instance, and the test database outlives a run.
    other_run_id = f"other-process-{uuid.uuid4().hex}"
    failures: list[BaseException] = []

    async def claim() -> None:
        try:
            await run_cycle(graph, DreamingConfig(), CycleRequest(trigger="scheduled", scheduled_date=day))
        except BaseException as error:
            failures.append(error)

    async with store.driver.session(database=store.settings.database) as session:
        other = await session.begin_transaction()
        await other.run(
            "CREATE (:DreamRun {profile_id: $profile_id, id: $run_id, scheduled_date: $day, "
            "status: 'completed'})",
            profile_id=graph.profile_id,
            day=day,
            run_id=other_run_id,
        )
        async with anyio.create_task_group() as group:
            group.start_soon(claim)
            await _wait_until_blocked(store, graph.profile_id)
            await other.commit()
    assert len(failures) == 1 and isinstance(failures[0], AlreadyDreamedError), failures
    assert failures[0].run_id == other_run_id
