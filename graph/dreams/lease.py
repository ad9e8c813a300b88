"""The per-profile cycle lock: a short lease that a live cycle keeps renewing.

A cycle holds its profile by a lease written on the Profile node and on its DreamRun. While the
cycle runs, a heartbeat renews the lease four times per lease length (`CycleLease`); a process
that dies (kill -9, power loss, a Neo4j outage at the end) stops renewing, so its hold lapses
within one lease length and the next cycle records the run as interrupted. An operator can also
release a hold by hand.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

import anyio

from graph.access import ProfileGraph, ProfileTx
from graph.clock import utcnow
from graph.dreams import queries as q
from graph.dreams.models import LockRelease
from graph.errors import ReverieError
from graph.rows import ids_of

log = logging.getLogger(__name__)

ABANDONED = "the process running it stopped before it completed (its lease lapsed)"
RELEASED = "released by an operator (reverie dream unlock)"


@dataclass(frozen=True)
class CycleLease:
    """How long a cycle's hold lasts unless renewed (REVERIE_CYCLE_LEASE_SECONDS). Renewing four
    times per length lets a live cycle miss a renewal or two (a slow Neo4j) without lapsing."""

    length: timedelta = timedelta(seconds=60)

    @property
    def heartbeat(self) -> timedelta:
        return self.length / 4

    def from_moment(self, moment: datetime) -> datetime:
        """When a hold taken or renewed at `moment` lapses."""
        return moment + self.length


DEFAULT_LEASE = CycleLease()


def lapsed(status: str, lease_expires_at: datetime | None, now: datetime) -> bool:
    """A run still marked running whose holder stopped renewing it."""
    return status == "running" and lease_expires_at is not None and lease_expires_at < now


async def keep_lease(graph: ProfileGraph, run_id: str, lease: CycleLease) -> None:
    """Renew the run's lease until cancelled. A failed renewal is logged and retried: the cycle
    itself decides whether the graph is usable, and a lapse only lets a later cycle take over."""
    while True:
        await anyio.sleep(lease.heartbeat.total_seconds())
        try:
            await graph.write(ProfileTx.run, q.RENEW_LEASE, id=run_id, lease=lease.from_moment(utcnow()))
        except (ReverieError, OSError) as error:
            log.warning("could not renew the lease of run %s: %s", run_id, error)


async def release_lock(graph: ProfileGraph, now: datetime | None = None) -> LockRelease:
    """Mark every running run of the profile interrupted and free its lock. A cycle still alive
    goes on and records its own end; meanwhile another cycle may start beside it."""
    rows = await graph.write(ProfileTx.run, q.RELEASE_CYCLE_LOCK, now=now or utcnow(), reason=RELEASED)
    return LockRelease(released_run_ids=ids_of(rows))
