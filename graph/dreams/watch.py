"""Whether anything will run a profile's next night, told from the trace schedulers leave.

A nightly setting that is on promises nothing by itself: a cycle runs only where a scheduler
runs (`scheduler/nightly.py`). So each scheduler records on the Profile node of every profile it
serves when it last looked at it (`scheduler_seen_at`), and, when it is one that outlives a host
window (`reverie scheduler`, the user service, an HTTP server), also `lasting_scheduler_seen_at`.
Another process (a host's stdio server, `reverie dream status`) reads both back.

A scheduler writes its trace at most once per `WATCH_EVERY` per profile rather than at each
minute's tick: one small write a profile every five minutes, while a trace older than
`WATCH_FRESH` (three missed writes) means no scheduler is looking any more.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum
from typing import Final

from pydantic import Field

from graph.access import ProfileGraph, ProfileTx
from graph.base import Frozen
from graph.dreams import queries as q
from graph.dreams.config import DreamingConfig
from graph.rows import Row

WATCH_EVERY: Final = timedelta(minutes=5)
WATCH_FRESH: Final = 3 * WATCH_EVERY

NIGHTS_OFF = "Nightly dreaming is off: turn it on with configure_dreaming(enabled=true)."
KEPT_BY_SERVICE = (
    "A scheduler that runs without the app (the user service, `reverie scheduler` or an HTTP "
    "server) keeps this profile's nights."
)
KEPT_WHILE_OPEN = (
    "Only the Reverie server a host starts keeps the nights: the night runs if it is running then, "
    "else soon after Reverie next starts. For nights while the app is closed: `reverie service install`."
)
UNWATCHED = (
    "No scheduler has checked this profile in the last {minutes} minutes: the night will run soon "
    "after Reverie next starts, or install the user service with `reverie service install`."
)


class SchedulerKind(StrEnum):
    """Where a scheduler runs, which says whether it outlives the host's window."""

    SERVICE = "service"  # `reverie scheduler`, by hand or as the user service
    HTTP = "http"  # `reverie serve --transport http`, a long-running server
    STDIO = "stdio"  # `reverie serve` over stdio: as long as the host keeps it

    @property
    def lasting(self) -> bool:
        return self is not SchedulerKind.STDIO


class SchedulerWatch(Frozen):
    """When schedulers last looked at a profile, as its Profile node says."""

    seen_at: datetime | None = None
    lasting_seen_at: datetime | None = None

    @classmethod
    def from_row(cls, row: Row | None) -> SchedulerWatch:
        """From `PROFILE_SETTINGS`; no row is a profile not stored yet, which no scheduler saw."""
        stored = row["profile"] if row is not None else {}
        return cls(
            seen_at=stored.get("scheduler_seen_at"), lasting_seen_at=stored.get("lasting_scheduler_seen_at")
        )


class NextNight(Frozen):
    will_run: bool = Field(description="Whether a scheduler will run the next night, as far as known")
    why: str = Field(description="The reason, and what to do when it will not")
    scheduler_seen_at: datetime | None = Field(description="When a scheduler last checked this profile")


def next_night(
    config: DreamingConfig, watch: SchedulerWatch, now: datetime, here: SchedulerKind | None = None
) -> NextNight:
    """What the profile's next night looks like at `now`; `here` is the scheduler of the process
    asking, if it runs one for this profile (it has not necessarily left a trace yet)."""

    def fresh(seen: datetime | None) -> bool:
        return seen is not None and now - seen <= WATCH_FRESH

    if not config.enabled:
        will_run, why = False, NIGHTS_OFF
    elif (here is not None and here.lasting) or fresh(watch.lasting_seen_at):
        will_run, why = True, KEPT_BY_SERVICE
    elif here is not None or fresh(watch.seen_at):
        will_run, why = True, KEPT_WHILE_OPEN
    else:
        will_run, why = False, UNWATCHED.format(minutes=int(WATCH_FRESH.total_seconds() // 60))
    return NextNight(will_run=will_run, why=why, scheduler_seen_at=watch.seen_at)


async def record_watch(graph: ProfileGraph, kind: SchedulerKind, now: datetime) -> None:
    """Leave this scheduler's trace on the profile (none when the profile is not stored yet);
    background work, so that it never holds up a call a host waits on."""
    await graph.in_background().write(ProfileTx.run, q.RECORD_WATCH, now=now, lasting=kind.lasting)
