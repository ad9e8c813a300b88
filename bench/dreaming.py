"""Timing `graph.dreams.cycle.run_cycle`: whole cycles, round trips, and re-evaluating a backlog.

Cycles run with explicit `now` values one day apart, as nightly runs would: the dream phase's
moving window of older seeds follows the date, so repeated cycles explore new corners instead
of finding the same (already dreamed) pairs again.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from neo4j import AsyncDriver

from bench.database import count
from bench.instrument import QueryLog
from bench.semantic import bench_vectors
from bench.stats import Stopwatch
from graph.access import ProfileGraph
from graph.dreams.config import DreamingConfig
from graph.dreams.cycle import CycleRequest, run_cycle
from graph.dreams.models import DreamRun

DEFAULTS = DreamingConfig(timezone="UTC")
OPEN_DREAMS = (
    "MATCH (d:Dream {profile_id: $profile}) WHERE d.status IN ['proposed', 'reinforced'] RETURN count(d)"
)


@dataclass
class CycleTiming:
    seconds: float
    round_trips: int
    new_dreams: int
    status: str
    phase_ms: dict[str, int | None]
    top_queries: list[dict[str, Any]] = field(default_factory=list)


def _new_dreams(run: DreamRun) -> int:
    for report in run.phases:
        if report.phase == "dream" and report.counts:
            return int(report.counts.get("new_dreams", 0))
    return 0


class Dreamer:
    """Runs cycles for one profile, each on its own simulated night."""

    def __init__(self, graph: ProfileGraph, driver: AsyncDriver) -> None:
        self.graph = graph
        self.driver = driver
        self.night = 0
        self.base = datetime.now(UTC)

    async def cycle(self, request: CycleRequest) -> CycleTiming:
        self.night += 1
        log = QueryLog()
        watch = Stopwatch()
        with log.installed():
            moment = self.base + timedelta(days=self.night)
            async with bench_vectors() as vectors:
                run = await run_cycle(self.graph, DEFAULTS, request, now=moment, vectors=vectors)
        return CycleTiming(
            seconds=watch.seconds,
            round_trips=log.round_trips,
            new_dreams=_new_dreams(run),
            status=run.status if not run.error else f"{run.status}: {run.error}",
            phase_ms={report.phase: report.duration_ms for report in run.phases},
            top_queries=log.top(5),
        )

    async def open_dreams(self) -> int:
        return await count(self.driver, OPEN_DREAMS, profile=self.graph.profile_id)

    async def fill(self, target: int, max_cycles: int, budget_seconds: float) -> Fill:
        """Dream-only cycles with max_outputs 50 until `target` open dreams exist; bounded by
        `max_cycles`, by `budget_seconds`, and by three cycles in a row that add nothing."""
        watch = Stopwatch()
        cycles = round_trips = idle = 0
        open_now = await self.open_dreams()
        request = CycleRequest(max_outputs=50, reflect_enabled=False, reevaluate_enabled=False)
        reason = ""
        while open_now < target:
            if cycles >= max_cycles:
                reason = f"cycle cap {max_cycles} reached"
                break
            if watch.seconds > budget_seconds:
                reason = f"time budget {budget_seconds:.0f}s spent"
                break
            if idle >= 3:
                reason = "three cycles in a row found no new pair"
                break
            timing = await self.cycle(request)
            cycles += 1
            round_trips += timing.round_trips
            idle = idle + 1 if timing.new_dreams == 0 else 0
            open_now = await self.open_dreams()
        return Fill(open_now, cycles, watch.seconds, round_trips, reason)


@dataclass(frozen=True)
class Fill:
    open_dreams: int
    cycles: int
    seconds: float
    round_trips: int
    stopped_because: str


DRY_RUN = CycleRequest(max_outputs=5, dry_run=True)
REEVALUATE_ONLY = CycleRequest(reflect_enabled=False, dream_enabled=False, reevaluate_enabled=True)
