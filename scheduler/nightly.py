"""The nightly scheduler: decides when each profile dreams; the graph decides what a cycle does.

Every minute (APScheduler interval job) the scheduler looks at every profile it serves whose
effective dreaming setting is on and runs the ones whose local start time has passed today and
that have no scheduled run recorded for today's local date. That one rule gives:

- exactly one run per local day, because the date is recorded in the graph under a unique
  constraint (restarts, a second process and the repeated fall-back hour cannot add one);
- catch-up after downtime: a process that starts at 09:00 runs the 03:00 cycle once, marked late;
- a spring-forward start time that does not exist runs at the first valid minute after it;
- no overlap with a manual run: a held profile lock makes this tick skip, the next tick retries.

Each tick also leaves the scheduler's trace on the profiles it serves (`graph.dreams.watch`), at
most once per `WATCH_EVERY` each, so that `dreaming_status` in any process can tell whether
anything will run the next night.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal
from zoneinfo import ZoneInfo

import anyio
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.interval import IntervalTrigger

from graph.access import GraphStore
from graph.clock import utcnow
from graph.directory import list_profiles
from graph.dreams.config import DreamingConfig, with_overrides
from graph.dreams.cycle import DEFAULT_GENERATOR, FINISH_WRITE_S, CycleRequest, run_cycle
from graph.dreams.generator import DreamGenerator
from graph.dreams.lease import DEFAULT_LEASE, CycleLease
from graph.dreams.watch import WATCH_EVERY, SchedulerKind, record_watch
from graph.embedding.keeper import VectorKeeper
from graph.errors import AlreadyDreamedError, CycleAlreadyRunningError, ReverieError
from scheduler.timing import due_at

log = logging.getLogger(__name__)

TICK_SECONDS = 60
# On shutdown, a cycle in flight gets this long to finish before it is cancelled.
DRAIN_S = 30.0
# A run that starts later than this after its due time is recorded as a late catch-up.
LATE_AFTER = timedelta(minutes=5)
# A server's first tick waits this long after its start. A host opens with a burst (initialize,
# tools/list, often a first recall, whose query plans take 7 s on idle cores and more on a busy
# laptop, `graph/recall/warmup.py`): a catch-up cycle started then would take the cores from
# the answers the person is waiting for. Two minutes is long past that burst, and is nothing
# to a night that is already hours late. `reverie scheduler` has nobody to answer: no wait.
STARTUP_GRACE_S = 120.0

Outcome = Literal["ran", "not_due", "disabled", "already_ran", "busy", "failed"]


@dataclass(frozen=True)
class TickResult:
    profile_id: str
    outcome: Outcome
    run_id: str | None = None
    late: bool = False
    detail: str | None = None


class NightlyScheduler:
    def __init__(
        self,
        store: GraphStore,
        defaults: DreamingConfig,
        concurrency: int = 1,
        clock: Callable[[], datetime] = utcnow,
        vectors: VectorKeeper | None = None,
        generator: DreamGenerator = DEFAULT_GENERATOR,
        profiles: Callable[[], Collection[str]] | None = None,
        lease: CycleLease = DEFAULT_LEASE,
        kind: SchedulerKind = SchedulerKind.SERVICE,
        first_tick_after_s: float = 0.0,
        tick_s: int = TICK_SECONDS,
    ) -> None:
        """`profiles` names, at each tick, the profiles this scheduler dreams for: a server's own,
        so that another profile in the same database never runs on this server's settings and
        model endpoint. None (`reverie scheduler`): every profile in the database. `kind` is
        what its trace says it is; `first_tick_after_s` is how long after `start` it first ticks,
        and `tick_s` how long it waits between ticks."""
        self._store = store
        self._profiles = profiles
        self.kind = kind
        self._first_tick_after = timedelta(seconds=first_tick_after_s)
        self._tick_s = tick_s
        # When this scheduler last left its trace on each profile (`_watch`).
        self._watched: dict[str, datetime] = {}
        self._vectors = vectors
        # No client is connected at night: the endpoint's model or the deterministic writer.
        self._generator = generator
        self._defaults = defaults
        self._lease = lease
        self._limiter = anyio.CapacityLimiter(concurrency)
        self._clock = clock
        self._scheduler: AsyncIOScheduler | None = None
        self._tick_done: anyio.Event | None = None
        self._tick_scope: anyio.CancelScope | None = None

    async def tick(self, now: datetime | None = None) -> list[TickResult]:
        """One pass over all profiles; safe to run from several processes at once."""
        moment = now or self._clock()
        results: list[TickResult] = []

        async def visit(profile_id: str, overrides: dict[str, Any]) -> None:
            # Before the limiter: a long cycle of another profile must not hold up this trace.
            await self._watch(profile_id, moment)
            async with self._limiter:
                try:
                    config = with_overrides(self._defaults, overrides)
                    results.append(await self._visit(profile_id, config, moment))
                except Exception as error:
                    # Trigger: a failure Reverie did not foresee (say a setting stored by an old
                    # version). Why: it would cancel every other profile's cycle in this group.
                    # Outcome: logged and reported for this profile alone.
                    log.exception("scheduled dreaming for %s failed unexpectedly", profile_id)
                    results.append(TickResult(profile_id, "failed", detail=type(error).__name__))

        # Read before the group: a Neo4j that cannot answer is then one plain error for the tick.
        profiles = await list_profiles(self._store, None if self._profiles is None else self._profiles())
        async with anyio.create_task_group() as group:
            for profile_id, overrides in profiles:
                group.start_soon(visit, profile_id, overrides)
        return sorted(results, key=lambda result: result.profile_id)

    async def _watch(self, profile_id: str, now: datetime) -> None:
        """Leave this scheduler's trace on the profile, unless it did less than WATCH_EVERY ago."""
        last = self._watched.get(profile_id)
        if last is not None and abs(now - last) < WATCH_EVERY:
            return
        try:
            await record_watch(self._store.profile(profile_id), self.kind, now)
        except Exception as error:
            # Trigger: Neo4j busy or gone for this write. Why not raised: the trace only informs
            # dreaming_status, and raised here it would cancel every profile's cycle in this tick.
            # Outcome: one line; the next tick writes it again.
            log.warning("could not record the scheduler's trace on %s: %s", profile_id, error)
            return
        self._watched[profile_id] = now

    async def _visit(self, profile_id: str, config: DreamingConfig, now: datetime) -> TickResult:
        if not config.enabled:
            return TickResult(profile_id, "disabled")
        local_day = now.astimezone(ZoneInfo(config.timezone)).date()
        due = due_at(local_day, config.start_time_local, config.timezone)
        if now < due:
            return TickResult(profile_id, "not_due")
        late = now - due > LATE_AFTER
        request = CycleRequest(trigger="scheduled", scheduled_date=local_day.isoformat(), late=late)
        try:
            run = await run_cycle(
                self._store.profile(profile_id),
                self._defaults,
                request,
                generator=self._generator,
                now=now,
                vectors=self._vectors,
                lease=self._lease,
            )
        except AlreadyDreamedError:
            return TickResult(profile_id, "already_ran")
        except CycleAlreadyRunningError as error:
            # Trigger: a manual cycle holds the profile. Why: cycles must never overlap.
            # Outcome: skipped now; the next tick tries again until today's run is recorded.
            return TickResult(profile_id, "busy", detail=str(error))
        except ReverieError as error:
            log.warning("scheduled dreaming for %s failed: %s", profile_id, error)
            return TickResult(profile_id, "failed", detail=str(error))
        log.info(
            "scheduled dreaming for %s: run %s %s%s", profile_id, run.run_id, run.status, " (late)" * late
        )
        return TickResult(profile_id, "ran", run_id=run.run_id, late=late, detail=run.error)

    async def _safe_tick(self) -> None:
        done = anyio.Event()
        self._tick_done = done
        try:
            with anyio.CancelScope() as scope:
                self._tick_scope = scope
                await self.tick()
        except ReverieError as error:
            # Trigger: Neo4j down or past its deadline. Why: a traceback a minute says nothing
            # more than the error's own words. Outcome: one line; the next tick tries again.
            log.warning("scheduler tick skipped: %s", error)
        except Exception:
            # Trigger: an unexpected failure (say Neo4j down). Why: the scheduler must outlive
            # it. Outcome: logged; the next tick starts afresh.
            log.exception("scheduler tick failed")
        finally:
            self._tick_scope = None
            done.set()

    def start(self) -> None:
        """Tick after `first_tick_after_s`, then every `tick_s`, in the running event loop."""
        scheduler = AsyncIOScheduler(timezone="UTC")
        scheduler.add_job(
            self._safe_tick,
            IntervalTrigger(seconds=self._tick_s),
            next_run_time=self._clock() + self._first_tick_after,
            coalesce=True,
            max_instances=1,
            misfire_grace_time=self._tick_s,
        )
        scheduler.start()
        self._scheduler = scheduler

    async def stop(self, grace_s: float = DRAIN_S) -> None:
        """No new ticks; a tick in flight gets `grace_s` to finish its cycles, then is cancelled,
        which closes its runs as interrupted. Shielded: it runs while its caller shuts down."""
        scheduler, self._scheduler = self._scheduler, None
        if scheduler is None:
            return
        # Paused, not shut down: APScheduler's shutdown cancels the jobs it is running.
        scheduler.pause()
        done = self._tick_done
        with anyio.CancelScope(shield=True):
            if done is not None:
                with anyio.move_on_after(grace_s):
                    await done.wait()
                if not done.is_set() and self._tick_scope is not None:
                    log.warning("stopping: cancelling a dreaming cycle still running after %s s", grace_s)
                    self._tick_scope.cancel()
                    with anyio.move_on_after(FINISH_WRITE_S + 1):
                        await done.wait()
        scheduler.shutdown(wait=False)
