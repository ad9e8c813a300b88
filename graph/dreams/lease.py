"""The per-profile cycle lock: a short lease that a live cycle keeps renewing.

A cycle holds its profile by a lease written on the Profile node and on its DreamRun. While the
cycle runs, a heartbeat renews the lease every `HEARTBEAT`; a process that dies (kill -9, power
loss, a Neo4j outage at the end) stops renewing, so its hold lapses within `LEASE` and the next
cycle records the run as interrupted. An operator can also release a hold by hand.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

import anyio

from graph.access import ProfileGraph, ProfileTx
from graph.clock import utcnow
from graph.dreams import queries as q
from graph.dreams.models import LockRelease
from graph.errors import ReverieError
from graph.rows import ids_of

log = logging.getLogger(__name__)

LEASE = timedelta(seconds=60)
HEARTBEAT = timedelta(seconds=15)
ABANDONED = "the process running it stopped before it completed (its lease lapsed)"
RELEASED = "released by an operator (reverie dream unlock)"


def lapsed(status: str, lease_expires_at: datetime | None, now: datetime) -> bool:
    """A run still marked running whose holder stopped renewing it."""
    return status == "running" and lease_expires_at is not None and lease_expires_at < now


async def keep_lease(graph: ProfileGraph, run_id: str) -> None:
    """Renew the run's lease until cancelled. A failed renewal is logged and retried: the cycle
    itself decides whether the graph is usable, and a lapse only lets a later cycle take over."""
    while True:
        await anyio.sleep(HEARTBEAT.total_seconds())
        try:
            await graph.write(ProfileTx.run, q.RENEW_LEASE, id=run_id, lease=utcnow() + LEASE)
        except (ReverieError, OSError) as error:
            log.warning("could not renew the lease of run %s: %s", run_id, error)


async def release_lock(graph: ProfileGraph, now: datetime | None = None) -> LockRelease:
    """Mark every running run of the profile interrupted and free its lock. A cycle still alive
    goes on and records its own end; meanwhile another cycle may start beside it."""
    rows = await graph.write(ProfileTx.run, q.RELEASE_CYCLE_LOCK, now=now or utcnow(), reason=RELEASED)
    return LockRelease(released_run_ids=ids_of(rows))
