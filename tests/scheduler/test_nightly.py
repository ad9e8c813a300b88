"""The nightly scheduler against the real Neo4j, with a controlled clock."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import anyio
import pytest
from neo4j import AsyncGraphDatabase

from graph.access import ConnectionSettings, GraphStore, ProfileGraph, ProfileTx
from graph.clock import utcnow
from graph.dreams import queries as q
from graph.dreams.config import DreamingConfig, configure_dreaming
from graph.dreams.cycle import CycleRequest, run_cycle
from graph.dreams.runs import recent_runs
from graph.dreams.watch import (
    KEPT_BY_SERVICE,
    KEPT_WHILE_OPEN,
    NIGHTS_OFF,
    WATCH_EVERY,
    WATCH_FRESH,
    SchedulerKind,
)
from graph.memory.pipeline import RememberRequest, remember
from graph.ports import free_port
from scheduler.nightly import NightlyScheduler, TickResult

pytestmark = pytest.mark.anyio

DEFAULTS = DreamingConfig(enabled=False, timezone="UTC")
NY = "America/New_York"


BREAK_TIMEZONE = (
    "MATCH (p:Profile {profile_id: $profile_id}) "
    "SET p.dreaming_enabled = true, p.dreaming_timezone = 'Mars/Olympus'"
)
MEND_TIMEZONE = "MATCH (p:Profile {profile_id: $profile_id}) REMOVE p.dreaming_enabled, p.dreaming_timezone"


async def database(settings: ConnectionSettings, query: str, **params: Any) -> None:
    """Write past Reverie's own checks, with the plain driver."""
    async with (
        AsyncGraphDatabase.driver(settings.uri, auth=(settings.username, settings.password)) as driver,
        driver.session(database=settings.database) as session,
    ):
        await (await session.run(query, params)).consume()


def at(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)  # type: ignore[arg-type]


@pytest.fixture
async def nightly(graph: ProfileGraph) -> AsyncIterator[ProfileGraph]:
    """This test's profile, with a memory and nightly dreaming on in New York at 03:00."""
    await remember(graph, RememberRequest(content="I walk the dog along the Hudson every morning."))
    await configure_dreaming(graph, DEFAULTS, {"enabled": True, "timezone": NY, "start_time_local": "03:00"})
    yield graph
    await configure_dreaming(graph, DEFAULTS, {"enabled": False})


def scheduler_for(
    store: GraphStore, *graphs: ProfileGraph, kind: SchedulerKind = SchedulerKind.SERVICE
) -> NightlyScheduler:
    """A scheduler for these profiles alone: the test database holds other tests' profiles."""
    return NightlyScheduler(
        store, DEFAULTS, profiles=lambda: [graph.profile_id for graph in graphs], kind=kind
    )


def mine(results: list[TickResult], profile_id: str) -> TickResult:
    return next(result for result in results if result.profile_id == profile_id)


async def outcomes(scheduler: NightlyScheduler, profile_id: str, *moments: datetime) -> list[str]:
    return [mine(await scheduler.tick(moment), profile_id).outcome for moment in moments]


async def test_three_am_new_york_runs_once_at_eight_utc_in_winter(
    store: GraphStore, nightly: ProfileGraph
) -> None:
    scheduler = scheduler_for(store, nightly)
    seen = await outcomes(
        scheduler, nightly.profile_id, at(2026, 1, 15, 7, 59), at(2026, 1, 15, 8, 0), at(2026, 1, 15, 8, 1)
    )
    assert seen == ["not_due", "ran", "already_ran"]


async def test_three_am_new_york_runs_at_seven_utc_in_summer(
    store: GraphStore, nightly: ProfileGraph
) -> None:
    scheduler = scheduler_for(store, nightly)
    seen = await outcomes(scheduler, nightly.profile_id, at(2026, 7, 15, 6, 59), at(2026, 7, 15, 7, 0))
    assert seen == ["not_due", "ran"]


async def test_the_fall_back_night_runs_once(store: GraphStore, nightly: ProfileGraph) -> None:
    await configure_dreaming(nightly, DEFAULTS, {"start_time_local": "01:30"})
    scheduler = scheduler_for(store, nightly)
    # 2026-11-01 01:30 happens at 05:30 UTC (EDT) and again at 06:30 UTC (EST).
    seen = await outcomes(scheduler, nightly.profile_id, at(2026, 11, 1, 5, 30), at(2026, 11, 1, 6, 30))
    assert seen == ["ran", "already_ran"]


async def test_a_spring_forward_start_runs_once_at_the_first_valid_time(
    store: GraphStore, nightly: ProfileGraph
) -> None:
    await configure_dreaming(nightly, DEFAULTS, {"start_time_local": "02:30"})
    scheduler = scheduler_for(store, nightly)
    # 2026-03-08: 02:00 EST jumps to 03:00 EDT (07:00 UTC); 02:30 never happens.
    seen = await outcomes(
        scheduler, nightly.profile_id, at(2026, 3, 8, 6, 59), at(2026, 3, 8, 7, 0), at(2026, 3, 8, 7, 30)
    )
    assert seen == ["not_due", "ran", "already_ran"]


async def test_a_late_start_catches_up_once(store: GraphStore, nightly: ProfileGraph) -> None:
    scheduler = scheduler_for(store, nightly)
    first = mine(await scheduler.tick(at(2026, 1, 20, 14, 0)), nightly.profile_id)  # 09:00 in New York
    again = mine(await scheduler.tick(at(2026, 1, 20, 15, 0)), nightly.profile_id)
    assert (first.outcome, first.late) == ("ran", True)
    assert again.outcome == "already_ran"


async def test_two_schedulers_on_one_graph_make_one_run_per_night(
    neo4j_settings: ConnectionSettings, nightly: ProfileGraph
) -> None:
    stores = [GraphStore.connect(neo4j_settings) for _ in range(2)]
    results: list[TickResult] = []
    try:

        async def tick(store: GraphStore) -> None:
            results.append(
                mine(await scheduler_for(store, nightly).tick(at(2026, 2, 2, 8, 0)), nightly.profile_id)
            )

        async with anyio.create_task_group() as group:
            for store in stores:
                group.start_soon(tick, store)
    finally:
        for store in stores:
            await store.close()
    assert sorted(result.outcome for result in results) in (["already_ran", "ran"], ["busy", "ran"])
    [summary] = (await recent_runs(nightly)).runs
    assert (summary.run.trigger, summary.run.run_date) == ("scheduled", "2026-02-02")


async def test_a_manual_run_at_one_does_not_stop_the_three_am_run(
    store: GraphStore, nightly: ProfileGraph
) -> None:
    manual = await run_cycle(nightly, DEFAULTS, CycleRequest(trigger="manual"), now=at(2026, 1, 22, 6, 0))
    assert manual.status == "completed"
    seen = await outcomes(scheduler_for(store, nightly), nightly.profile_id, at(2026, 1, 22, 8, 0))
    assert seen == ["ran"]


async def test_a_disabled_profile_never_runs(store: GraphStore, nightly: ProfileGraph) -> None:
    await configure_dreaming(nightly, DEFAULTS, {"enabled": False})
    scheduler = scheduler_for(store, nightly)
    seen = await outcomes(scheduler, nightly.profile_id, at(2026, 1, 23, 8, 0), at(2026, 1, 23, 20, 0))
    assert seen == ["disabled", "disabled"]


async def test_dreaming_status_shows_the_next_run_in_local_time_and_utc(
    call: Any, nightly: ProfileGraph
) -> None:
    status = await call("dreaming_status")
    assert status["config"]["enabled"] is True and status["config"]["sources"]["timezone"] == "profile"
    local = datetime.fromisoformat(status["next_run_local"])
    utc = datetime.fromisoformat(status["next_run_utc"])
    assert local == utc and (local.hour, local.minute) == (3, 0)
    assert local.utcoffset() != utc.utcoffset()


async def test_a_profile_with_a_broken_setting_fails_alone(
    store: GraphStore, nightly: ProfileGraph, other_graph: ProfileGraph, neo4j_settings: ConnectionSettings
) -> None:
    # A setting no version of Reverie accepts, as a hand edit or an old bug could leave it.
    await remember(other_graph, RememberRequest(content="I water the tomatoes at dawn."))
    await database(neo4j_settings, BREAK_TIMEZONE, profile_id=other_graph.profile_id)
    try:
        results = await scheduler_for(store, nightly, other_graph).tick(at(2026, 1, 26, 8, 0))
    finally:
        await database(neo4j_settings, MEND_TIMEZONE, profile_id=other_graph.profile_id)
    broken = mine(results, other_graph.profile_id)
    assert (broken.outcome, broken.detail) == ("failed", "ValidationError")
    assert mine(results, nightly.profile_id).outcome == "ran"


async def test_stopping_lets_the_cycle_in_flight_finish(store: GraphStore, nightly: ProfileGraph) -> None:
    # Due since midnight UTC today, so the scheduler's first tick (at start) runs it.
    await configure_dreaming(nightly, DEFAULTS, {"timezone": "UTC", "start_time_local": "00:00"})
    scheduler = scheduler_for(store, nightly)
    scheduler.start()
    with anyio.fail_after(120):
        while True:
            runs = (await recent_runs(nightly)).runs
            if runs and runs[0].run.status == "running":
                in_flight = runs[0].run.run_id
                break
            await anyio.sleep(0.01)

    await scheduler.stop()

    # The run seen running; on a loaded machine an earlier tick's run may have ended first.
    [summary] = [summary for summary in (await recent_runs(nightly)).runs if summary.run.run_id == in_flight]
    assert summary.run.status == "completed" and summary.run.trigger == "scheduled"


async def test_a_scheduler_never_dreams_for_a_profile_it_does_not_serve(
    store: GraphStore, nightly: ProfileGraph, other_graph: ProfileGraph
) -> None:
    await remember(other_graph, RememberRequest(content="I water the tomatoes at dawn."))
    due = {"enabled": True, "timezone": NY, "start_time_local": "03:00"}
    await configure_dreaming(other_graph, DEFAULTS, due)
    try:
        results = await scheduler_for(store, nightly).tick(at(2026, 1, 27, 8, 0))
    finally:
        await configure_dreaming(other_graph, DEFAULTS, {"enabled": False})
    assert [(result.profile_id, result.outcome) for result in results] == [(nightly.profile_id, "ran")]
    assert (await recent_runs(other_graph)).runs == []


@pytest.mark.unit
async def test_a_tick_with_neo4j_down_logs_one_line_and_the_scheduler_lives_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Nothing listens on the port, as when Neo4j has been killed.
    down = GraphStore.connect(ConnectionSettings(f"bolt://127.0.0.1:{free_port()}", "neo4j", "none"))
    try:
        await NightlyScheduler(down, DEFAULTS)._safe_tick()
    finally:
        await down.close()
    (record,) = [record for record in caplog.records if record.name == "scheduler.nightly"]
    assert record.levelname == "WARNING" and record.exc_info is None
    assert record.getMessage().startswith("scheduler tick skipped: Neo4j at bolt://127.0.0.1:")


# --- the trace a scheduler leaves, and what dreaming_status makes of it ----------------------


async def next_night(call: Any) -> tuple[bool, str]:
    night = (await call("dreaming_status"))["next_night"]
    return night["will_run"], night["why"]


async def seen_at(graph: ProfileGraph) -> datetime | None:
    row = await graph.read(ProfileTx.single, q.PROFILE_SETTINGS)
    assert row is not None
    return row["profile"].get("scheduler_seen_at")


async def test_dreaming_status_says_whether_a_scheduler_will_run_the_night(
    call: Any, store: GraphStore, nightly: ProfileGraph
) -> None:
    # The in-process server of `call` runs no scheduler, and none has looked at this profile.
    will_run, why = await next_night(call)
    assert not will_run and why.startswith("No scheduler has checked this profile in the last 15 minutes")
    assert "reverie service install" in why

    await scheduler_for(store, nightly, kind=SchedulerKind.STDIO).tick(utcnow())
    assert await next_night(call) == (True, KEPT_WHILE_OPEN)

    await scheduler_for(store, nightly, kind=SchedulerKind.SERVICE).tick(utcnow())
    assert await next_night(call) == (True, KEPT_BY_SERVICE)

    await configure_dreaming(nightly, DEFAULTS, {"enabled": False})
    assert await next_night(call) == (False, NIGHTS_OFF)


async def test_a_trace_older_than_three_writes_means_no_scheduler(
    call: Any, store: GraphStore, nightly: ProfileGraph
) -> None:
    await scheduler_for(store, nightly).tick(utcnow() - WATCH_FRESH - timedelta(minutes=1))
    will_run, why = await next_night(call)
    assert not will_run and why.startswith("No scheduler has checked")


async def test_a_scheduler_writes_its_trace_once_per_watch_interval(
    store: GraphStore, nightly: ProfileGraph
) -> None:
    scheduler = scheduler_for(store, nightly)
    start = at(2026, 1, 28, 12, 0)
    await scheduler.tick(start)
    await scheduler.tick(start + timedelta(minutes=1))
    assert await seen_at(nightly) == start
    await scheduler.tick(start + WATCH_EVERY)
    assert await seen_at(nightly) == start + WATCH_EVERY
