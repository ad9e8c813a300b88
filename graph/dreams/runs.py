"""Reading a profile's past dreaming runs."""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime
from typing import Any

from graph.access import ProfileGraph, ProfileTx
from graph.clock import utcnow
from graph.dreams import queries as q
from graph.dreams.cursor import decode_cursor, encode_cursor
from graph.dreams.lease import ABANDONED, lapsed
from graph.dreams.models import DreamRun, DreamStatus, PhaseReport, RunPage, RunSummary
from graph.errors import InvalidInputError

MAX_RUNS_LIMIT = 100


def run_from_record(record: dict[str, Any], now: datetime) -> DreamRun:
    """A stored run as it stands at `now`; its phase reports are kept as one JSON text so a run
    is a single node. A run whose holder stopped renewing its lease is reported interrupted
    (the next cycle records it so), never as running."""
    status, error = record["status"], record.get("error")
    lease_expires_at = record.get("lease_expires_at")
    if lapsed(status, lease_expires_at, now):
        status, error = "interrupted", ABANDONED
    return DreamRun(
        run_id=record["id"],
        trigger=record["trigger"],
        run_date=record["run_date"],
        status=status,
        started_at=record["started_at"],
        completed_at=record.get("completed_at"),
        lease_expires_at=lease_expires_at if status == "running" else None,
        late=record.get("late") or False,
        phases=[PhaseReport(**phase) for phase in json.loads(record.get("phases") or "[]")],
        error=error,
    )


async def recent_runs(graph: ProfileGraph, limit: int = 14, cursor: str | None = None) -> RunPage:
    """Runs newest first, each with its dreams counted by their status today; paged."""
    if not 1 <= limit <= MAX_RUNS_LIMIT:
        raise InvalidInputError(f"limit must be 1 to {MAX_RUNS_LIMIT}.")
    before, before_id = decode_cursor(cursor, "list_dream_runs") if cursor else (None, None)
    rows = await graph.read(ProfileTx.run, q.RECENT_RUNS, limit=limit + 1, before=before, before_id=before_id)
    now = utcnow()
    runs = [
        RunSummary(
            run=run_from_record(row["run"], now),
            dreams=dict(Counter(DreamStatus(status) for status in row["dream_statuses"])),
        )
        for row in rows[:limit]
    ]
    if len(rows) <= limit:
        return RunPage(runs=runs, next_cursor=None)
    last = rows[limit - 1]["run"]
    return RunPage(runs=runs, next_cursor=encode_cursor(last["started_at"], last["id"]))
