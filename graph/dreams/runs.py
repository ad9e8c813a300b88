"""Reading a profile's past dreaming runs."""

from __future__ import annotations

from collections import Counter
from datetime import datetime

from graph.access import ProfileGraph, ProfileTx
from graph.clock import utcnow
from graph.dreams import queries as q
from graph.dreams.cursor import decode_cursor, encode_cursor
from graph.dreams.lease import ABANDONED, lapsed
from graph.dreams.models import DreamRun, RunPage, RunStatus, RunSummary
from graph.dreams.records import RecentRun, StoredRun
from graph.errors import InvalidInputError

MAX_RUNS_LIMIT = 100


def run_as_of(run: StoredRun, now: datetime) -> DreamRun:
    """A stored run as it stands at `now`. A run whose holder stopped renewing its lease is
    reported interrupted (the next cycle records it so), never as running."""
    status: RunStatus = run.status
    error = run.error
    if lapsed(status, run.lease_expires_at, now):
        status, error = "interrupted", ABANDONED
    return DreamRun(
        run_id=run.id,
        trigger=run.trigger,
        run_date=run.run_date,
        status=status,
        started_at=run.started_at,
        completed_at=run.completed_at,
        lease_expires_at=run.lease_expires_at if status == "running" else None,
        late=run.late,
        phases=list(run.phases),
        error=error,
    )


async def latest_run_writers(graph: ProfileGraph) -> dict[str, int]:
    """How many dreams the latest run wrote, per generator (empty when it wrote none)."""
    rows = await graph.read(ProfileTx.run, q.LATEST_RUN_WRITERS)
    return {str(row["generator"]): int(row["dreams"]) for row in rows}


async def recent_runs(graph: ProfileGraph, limit: int = 14, cursor: str | None = None) -> RunPage:
    """Runs newest first, each with its dreams counted by their status today; paged."""
    if not 1 <= limit <= MAX_RUNS_LIMIT:
        raise InvalidInputError(f"limit must be 1 to {MAX_RUNS_LIMIT}.")
    before, before_id = decode_cursor(cursor, "list_dream_runs") if cursor else (None, None)
    rows = await graph.read(ProfileTx.run, q.RECENT_RUNS, limit=limit + 1, before=before, before_id=before_id)
    recent = [RecentRun.from_row(row) for row in rows[:limit]]
    now = utcnow()
    runs = [
        RunSummary(run=run_as_of(item.run, now), dreams=dict(Counter(item.dream_statuses))) for item in recent
    ]
    if len(rows) <= limit:
        return RunPage(runs=runs, next_cursor=None)
    last = recent[-1].run
    return RunPage(runs=runs, next_cursor=encode_cursor(last.started_at, last.id))
